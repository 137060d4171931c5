// What the session offers the front ends (the TUI's controller, print mode, ACP, the slash
// commands): the views and command outputs they render. Types only; the session and the
// commands build them, ui/, print/ and acp/ show them. The events are in ./events.ts.
import type { ContextUsage } from '../compaction/budget.js';
import type { Usage } from '../llm/messages.js';

/** The name a tool row of the person's own `!command` shows (session/shellNote.ts runs it; the transcript draws its output whole). */
export const SHELL_ROW_NAME = 'Shell';

/**
 * What the gauge renders: the engine's figures without its thresholds. `rough`: the tokenizer is
 * not loaded yet, so the figure is the provider's last count plus ~4 bytes a token for the rest,
 * which the exact count replaces (the TUI shows no figure until then: Session.countExactly).
 */
export type ContextUsageView = Omit<ContextUsage, 'thresholds'> & { rough?: true };

export interface SessionView {
  id: string;
  title: string | null;
  model: string;
  provider: string;
  cwd: string;
  /** ask | acceptEdits | allow | deny: shown in the footer, cycled with Shift+Tab. */
  permissionMode?: string;
  /** The MCP servers' state for the footer ("MCP 2✓ · 1 connecting"); absent without servers. */
  mcp?: string;
  /** The sandbox's word for the footer ("sandboxed", or a warning when it cannot start); absent when it is off. */
  sandbox?: { text: string; ok: boolean };
  /** How many background commands run, for the footer ("2 background"); absent when none. */
  background?: string;
  /** The thinking in effect ("thinking high", "thinking 4k"), shown in the footer; absent when none is sent. */
  thinking?: string;
  /** Messages the database refused (disk full), kept in memory and retried: the footer's "unsaved: N"; absent when none. */
  unsaved?: number;
  /** The session's goal for the footer ("goal: active · 2/5 turns"); absent without one. */
  goal?: string;
  /** The first line of the statusLine command's output (~/.agentrc statusLine), shown under the footer; absent when none. */
  statusCommand?: string;
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

/** One sub-agent's line in /cost (its usage is in the model rows too). */
export interface ChildCostRow {
  id: string;
  label: string;
  tokens: number;
  usd?: number;
}

export interface AgentRow {
  name: string;
  description: string;
  source: string;
  file?: string;
  model?: string;
  tools: string[];
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
  /** /context: the rows add up to the gauge's tokens; `percentLeft` is the gauge's own figure. */
  | { kind: 'context'; rows: ContextBreakdownRow[]; contextWindow: number; effectiveWindow: number; percentLeft: number }
  | { kind: 'cost'; rows: CostRow[]; totalUsd?: number; children?: ChildCostRow[] }
  /** /agents: the agents the Task tool offers, and files that were skipped. */
  | { kind: 'agents'; agents: AgentRow[]; warnings: string[] }
  | { kind: 'permissions'; rules: Array<{ source: 'config' | 'session'; rule: string }>; mode: string; meaning?: string }
  | { kind: 'help'; commands: CommandInfo[] }
  | { kind: 'picker'; sessions: SessionListItem[] }
  /** /model without a name: the picker (print mode lists them). */
  | { kind: 'models'; models: ModelChoice[]; current: string }
  | { kind: 'history'; result: HistoryPage }
  /** `overwrite`: the rewind (or undo) `command` found files changed outside since the last turn; the picker asks before running it with --force. */
  | { kind: 'rewind'; targets: RewindTargetView[]; overwrite?: { files: string[]; command: string } }
  /** /tasks without arguments: the background commands (the TUI's panel; print mode prints `text`). */
  | { kind: 'tasks'; rows: TaskRowView[]; text: string };

/** One background command in the /tasks panel. */
export interface TaskRowView {
  id: string;
  /** The session that started it (a sub-agent's differs from the current one). */
  sessionId: string;
  own: boolean;
  command: string;
  /** "running", "exit code 0", "stopped", … */
  state: string;
  running: boolean;
  /** How long it ran, and how much it printed, formatted. */
  ran: string;
  output: string;
  pid: number;
}

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
  /** Whether the project's checkpoint before this turn can be restored (Bash's changes too), or why not; absent when checkpoints are off. */
  checkpoint?: { ok: true } | { ok: false; missing: string };
}

/** A session's goal (/goal): what the footer, `sessions show`, stream-json and ACP show of it. */
export interface GoalView {
  /** As the person gave it, verbatim. */
  objective: string;
  status: 'active' | 'paused' | 'budget_limited' | 'complete';
  /** The command whose success completes it; absent: the model's word does. */
  check?: string;
  /** Why it stands where it stands (which budget ended it, what completed or paused it). */
  reason?: string;
  /** Limits: billed tokens, turns, wall time in ms; absent: none. */
  budget: { tokens?: number; turns?: number; ms?: number };
  /** Used against the budgets since the goal was set (or resumed from budget-limited). */
  used: { tokens: number; turns: number; ms: number };
  /** The footer's few words ("goal: active · 2/5 turns"). */
  footer: string;
  lastCheck?: { at: number; passed: boolean; output: string };
}

/** One item of a task list (TodoWrite's): what the panel above the prompt, a sub-agent's row, ACP's plan and print mode's todos line show. */
export interface TodoView {
  content: string;
  status: 'pending' | 'in_progress' | 'completed' | 'cancelled' | 'blocked';
  /** The item as the spinner says it while it is in progress ("Running the tests"). */
  activeForm?: string;
}

/** A session's task list as its last successful TodoWrite set it ([] before any). */
export interface TaskListView {
  todos: TodoView[];
  /** The call that set it (absent before any): a front end that follows the list tells a new one apart from the same list set again. */
  setBy?: string;
  /** Work is under way: some item neither completed nor cancelled (the TUI shows the list above the prompt then). */
  open: boolean;
}

/**
 * The views a front end may ask the seam for (UiController.view, Runtime.views), by name, and the
 * data of each: capabilities contribute them (Capability.views), the session adds its own.
 */
export interface ViewData {
  /** The session's task list (the plan capability's). */
  todos: TaskListView;
  /** The background commands, the /tasks panel's rows (the background capability's). */
  tasks: TaskRowView[];
  /** A sub-agent's whole transcript as text, by its child session's id (Ctrl+O on a Task row; the session's). */
  child: string;
}

export type ViewName = keyof ViewData;
