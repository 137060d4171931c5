// The contract between the Ink app and the live session. The app holds no business
// logic: it renders what the controller tells it and forwards what the person does.
import type { Message } from '../llm/messages.js';
import type { CommandInfo, ContextUsageView, HistoryPage, SessionView, ViewData, ViewName } from '../protocol/views.js';
import type { Event } from '../protocol/events.js';

/** A spilled output as the archive keeps it: `text` up to the archive's cap, `totalChars` of the whole. */
export interface SpilledOutputView {
  text: string;
  totalChars: number;
}

export interface UiController {
  session(): SessionView;
  /** Messages to show at start (a resumed session's visible history). */
  initialTranscript(): Message[];
  subscribe(listener: (ev: Event) => void): () => void;
  /** A prompt or a slash command ("/compact focus: …"). */
  submit(text: string): void;
  /** Interrupts the running turn or compaction; false when nothing was running. takeBack (Esc): a prompt still without a reply comes back (prompt_returned). */
  interrupt(opts?: { takeBack?: boolean }): boolean;
  /** Stops the compaction written in the background (Esc at rest); false when none runs. */
  cancelCompaction(): boolean;
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
  /** The whole of a spilled tool output of this session, by the handle its preview names (Ctrl+O on its row); undefined when there is none. */
  spilledOutput?(handle: string): SpilledOutputView | undefined;
  /** Ids of the sessions whose messages match the words (the session picker filters by content too). */
  searchSessions?(query: string): string[];
  /**
   * A view on the seam, by name (src/protocol/views.ts's ViewData): the task list, the /tasks
   * panel's rows, a sub-agent's transcript (`key`: its session id). The capabilities contribute
   * them; undefined when none does, or when there is nothing to show.
   */
  viewOf<K extends ViewName>(name: K, key?: string): ViewData[K] | undefined;
  /** The environment the person's editor runs with (a plan opened in $EDITOR): the provider keys left out. Absent: the program's. */
  editorEnv?(): NodeJS.ProcessEnv;
  /** A key a capability binds ("ctrl+b": the running Bash command to the background); false when none binds it. */
  press(key: string): boolean;
  /** Shift+Tab: the next permission mode (ask → acceptEdits → plan → deny → ask). */
  cyclePermissionMode(): void;
  /** Ends the program cleanly (flushes, closes the database). */
  exit(): Promise<void>;
}
