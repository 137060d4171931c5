// The contract between the Ink app and the live session. The app holds no business
// logic: it renders what the controller tells it and forwards what the person does.
import type { CompactionRecord } from '../history/compaction.js';
import type { Message } from '../llm/messages.js';
import type { Todo } from '../plan/todos.js';
import type { CommandInfo, CommandOutput, ContextUsageView, HistoryPage, SessionEvent, SessionView, TaskRowView } from '../session/protocol.js';
import type { ApprovalDecision, ApprovalRequest } from '../tools/permissions.js';

export type { GaugeState } from '../compaction/budget.js';

export type {
  CommandInfo,
  CommandOutput,
  ContextBreakdownRow,
  ContextUsageView,
  CostRow,
  HistoryHit,
  HistoryPage,
  ModelChoice,
  RewindTargetView,
  TaskRowView,
  SessionListItem,
  SessionView,
} from '../session/protocol.js';

/** What the app renders: everything the live session says, and what the controller adds. */
export type UiEvent =
  | SessionEvent
  /** An SDK's notice (a deprecated model): shown once, dimmed, under the prompt, not in the transcript. */
  | { type: 'provider_notice'; text: string }
  | { type: 'approval'; request: ApprovalRequest; respond: (d: ApprovalDecision) => void }
  | { type: 'command_output'; command: string; output: CommandOutput }
  /** A new or resumed session: the app resets its transcript to these messages (history_reset is the controller's to turn into this). */
  | { type: 'session'; session: SessionView; transcript: Message[]; compactions: CompactionRecord[] }
  | { type: 'busy'; busy: boolean }
  /** The MCP servers' state changed: the footer's word on them ('' when there are none). */
  | { type: 'mcp_status'; text: string }
  /** The statusLine command printed a new first line ('' when none). */
  | { type: 'status_command'; line: string }
  /** The number of running background commands changed: the footer's word on them ('' when none run). */
  | { type: 'background_status'; text: string }
  | { type: 'exit' };

/** A spilled output as the archive keeps it: `text` up to the archive's cap, `totalChars` of the whole. */
export interface SpilledOutputView {
  text: string;
  totalChars: number;
}

export interface UiController {
  session(): SessionView;
  /** Messages to show at start (a resumed session's visible history). */
  initialTranscript(): Message[];
  subscribe(listener: (ev: UiEvent) => void): () => void;
  /** A prompt or a slash command ("/compact focus: …"). */
  submit(text: string): void;
  /** Interrupts the running turn or compaction; false when nothing was running. takeBack (Esc): a prompt still without a reply comes back (prompt_returned). */
  interrupt(opts?: { takeBack?: boolean }): boolean;
  commands(): CommandInfo[];
  /** Prompts typed before, across sessions, oldest first. */
  promptHistory(): string[];
  /** Opens another session (from the picker). */
  resume(sessionId: string): Promise<void>;
  contextUsage(): ContextUsageView;
  /** A page of /history results (the archive browser turning pages). */
  searchArchive(query: string, page: number): HistoryPage;
  /** Paths of the working directory for what follows an "@" in the prompt (fuzzy, .gitignore respected). */
  completePath?(query: string): Promise<string[]>;
  /** A sub-agent's whole transcript as text (Ctrl+O on a Task row); undefined when it is not this session's child. */
  childTranscript?(childSessionId: string): string | undefined;
  /** The whole of a spilled tool output of this session, by the handle its preview names (Ctrl+O on its row); undefined when there is none. */
  spilledOutput?(handle: string): SpilledOutputView | undefined;
  /** Ids of the sessions whose messages match the words (the session picker filters by content too). */
  searchSessions?(query: string): string[];
  /** The session's task list (TodoWrite), read from its log; absent: none is shown. */
  todos?(): readonly Todo[];
  /** The /tasks panel's rows as they stand (read again when a command starts or ends). */
  taskRows?(): TaskRowView[];
  /** The environment the person's editor runs with (a plan opened in $EDITOR): the provider keys left out. Absent: the program's. */
  editorEnv?(): NodeJS.ProcessEnv;
  /** Ctrl+B: moves the running Bash command to the background; false when none runs. */
  backgroundCommand?(): boolean;
  /** Shift+Tab: the next permission mode (ask → acceptEdits → plan → deny → ask). */
  cyclePermissionMode(): void;
  /** Ends the program cleanly (flushes, closes the database). */
  exit(): Promise<void>;
}
