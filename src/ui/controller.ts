// The contract between the Ink app and the live session. The app holds no business
// logic: it renders what the controller tells it and forwards what the person does.
import type { AgentEvent } from '../agent/events.js';
import type { ContextUsage } from '../compaction/budget.js';
import type { CompactionEvent, CompactionRecord } from '../compaction/types.js';
import type { Message, Usage } from '../llm/messages.js';
import type { ApprovalDecision, ApprovalRequest } from '../tools/permissions.js';

export type { GaugeState } from '../compaction/budget.js';

/** What the gauge renders: the engine's figures without its thresholds. */
export type ContextUsageView = Omit<ContextUsage, 'thresholds'>;

export interface SessionView {
  id: string;
  title: string | null;
  model: string;
  provider: string;
  cwd: string;
  /** ask | acceptEdits | allow | deny: shown in the footer, cycled with Shift+Tab. */
  permissionMode?: string;
}

export interface SessionListItem {
  id: string;
  title: string | null;
  cwd: string;
  updatedAt: number;
  messageCount: number;
  contextTokens: number | null;
}

export interface CommandInfo {
  name: string;
  /** e.g. "[focus: …]" */
  args?: string;
  description: string;
}

export interface ContextBreakdownRow {
  label: string;
  tokens: number;
}

export interface CostRow {
  model: string;
  usage: Usage;
  /** undefined when the model has no known price */
  usd?: number;
  /** usd by part: cache reads and writes are priced apart from plain input */
  cost?: { input: number; output: number; cacheRead: number; cacheWrite: number };
}

/** One archived item found by /history. */
export interface HistoryHit {
  id: string;
  /** What it was: "user message", "Bash output `npm test`", ... */
  label: string;
  snippet: string;
  createdAt: number;
}

/** One page of /history results. */
export interface HistoryPage {
  query: string;
  /** 1-based. */
  page: number;
  /** Results per page. */
  pageSize: number;
  hits: HistoryHit[];
  hasMore: boolean;
}

/** One model the /model picker offers. */
export interface ModelChoice {
  name: string;
  provider: string;
  contextWindow: number;
  maxOutputTokens: number;
  /** Where it is described: the .agentrc's `models`, or the built-in table. */
  source: 'config' | 'builtin';
  inputUsdPerM?: number;
  outputUsdPerM?: number;
}

export type CommandOutput =
  | { kind: 'text'; text: string }
  | { kind: 'context'; rows: ContextBreakdownRow[]; contextWindow: number; effectiveWindow: number }
  | { kind: 'cost'; rows: CostRow[]; totalUsd?: number }
  | { kind: 'permissions'; rules: Array<{ source: 'config' | 'session'; rule: string }>; mode: string }
  | { kind: 'help'; commands: CommandInfo[] }
  | { kind: 'picker'; sessions: SessionListItem[] }
  /** /model without a name: the picker (print mode lists them). */
  | { kind: 'models'; models: ModelChoice[]; current: string }
  | { kind: 'history'; result: HistoryPage }
  | { kind: 'rewind'; targets: RewindTargetView[] };

/** One earlier turn in the /rewind picker. */
export interface RewindTargetView {
  index: number;
  turnId: string;
  text: string;
  createdAt: number;
  /** False once compacted or rewound: only its code can be restored. */
  inConversation: boolean;
  /** Why it left the conversation: 'compacted' into a summary, or 'rewound' by an earlier /rewind. */
  gone?: 'compacted' | 'rewound';
  /** Files Edit/Write changed in this turn or later. */
  files: string[];
}

export type UiEvent =
  | AgentEvent
  | CompactionEvent
  | { type: 'context'; usage: ContextUsageView }
  | { type: 'notice'; level: 'info' | 'warning' | 'error'; text: string }
  /** An SDK's notice (a deprecated model): shown once, dimmed, under the prompt, not in the transcript. */
  | { type: 'provider_notice'; text: string }
  | { type: 'approval'; request: ApprovalRequest; respond: (d: ApprovalDecision) => void }
  | { type: 'command_output'; command: string; output: CommandOutput }
  | { type: 'permission_mode'; mode: string }
  /** Handled by the controller (it sends 'session' with the new history); the app ignores it. */
  | { type: 'history_reset' }
  /** A new or resumed session: the app resets its transcript to these messages. */
  | { type: 'session'; session: SessionView; transcript: Message[]; compactions: CompactionRecord[] }
  | { type: 'busy'; busy: boolean }
  | { type: 'exit' };

export interface UiController {
  session(): SessionView;
  /** Messages to show at start (a resumed session's visible history). */
  initialTranscript(): Message[];
  subscribe(listener: (ev: UiEvent) => void): () => void;
  /** A prompt or a slash command ("/compact focus: …"). */
  submit(text: string): void;
  /** Interrupts the running turn or compaction; false when nothing was running. */
  interrupt(): boolean;
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
  /** Shift+Tab: the next permission mode (ask → acceptEdits → deny → ask). */
  cyclePermissionMode(): void;
  /** Ends the program cleanly (flushes, closes the database). */
  exit(): Promise<void>;
}
