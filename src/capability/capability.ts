// The capability seam. A capability is a module that brings a session what it adds, declared
// in one value, so that the session iterates a list instead of naming each one: its tools
// (built with their dependencies closed over, as pi's createReadTool(cwd, { operations })),
// tools that come and go with their system-prompt section (MCP), hooks around the prompt, each
// tool call, the turn's start and end and compaction, a system-prompt section, its view of the
// files and terminal (an editor's), and a slice of the saved state; and what it shows the front
// ends, as data (views, keys), which they ask the seam for by name. bootstrap.ts builds the list
// from the configuration; each session opens every capability once, lending it what only a
// session has (its id, how it began, its sub-agent runner) through CapabilityHost.
//
// This file holds types only (the architecture test checks it): the vocabulary capabilities and
// the session share. A capability file (src/<room>/capability.ts) imports this seam, src/tools/,
// src/llm/ and its own room, nothing else. See CONTRIBUTING.md, "Adding a capability".
import type { AgentCatalog } from '../agents/agents.js';
import type { SubagentHost } from '../agents/host.js';
import type { TreeCheckpoints } from './checkpoints.js';
import type { PermissionMode } from '../config/schema.js';
import type { CompactionRecord, CompactionTrigger } from '../history/compaction.js';
import type { LedgerSection as DerivedLedgerSection } from '../ledger/types.js';
import type { Message, TextBlock } from '../llm/messages.js';
import type { AnyTool, BackgroundShells, ToolIo, ToolOutput } from '../tools/types.js';
import type { BackgroundCommands } from '../background/commands.js';
import type { CustomCommand } from '../commands/custom.js';
import type { Goals } from '../goals/goals.js';
import type { McpManager } from '../mcp/manager.js';
import type { SkillCatalog } from '../skills/catalog.js';
import type { CapabilityCommand, CapabilityContext, CapabilityKey, CapabilityViews } from './context.js';

/** A compaction's receipt, as the hooks around compaction receive it. */
export type CompactionReceipt = CompactionRecord;
export type SummaryTrigger = Exclude<CompactionTrigger, 'micro'>;

/** Tools that come and go during a session (an MCP server's), and the system-prompt section about them. */
export interface ToolSet {
  tools: readonly AnyTool[];
  /** Appended to the system prompt; '' for none. */
  system: string;
}

/** A tool call as hooks see it. */
export interface HookCall {
  name: string;
  input: unknown;
  toolUseId: string;
}

/** Where the person's attention is asked for (Notification hooks). */
export type AttentionKind = 'permission_prompt' | 'idle_prompt';

/** Hooks a capability may hang on a session; each never throws (a failing hook is reported by whoever runs it). */
export interface CapabilityHooks {
  /** Before a prompt is sent: context blocks to add to its message, or why it must not be sent (the person reads it). */
  beforePrompt?(prompt: string, signal: AbortSignal): Promise<{ block?: string; blocks: TextBlock[] }>;
  /** Before a call is authorized: `block` refuses it (the model reads the reason), `allow` skips asking. */
  beforeTool?(call: HookCall, signal: AbortSignal): Promise<{ block?: string; allow?: boolean }>;
  /** After a call succeeded: a note for the model, appended to the result. */
  afterTool?(call: HookCall, output: ToolOutput, signal: AbortSignal): Promise<string | undefined>;
  /** The model ended its turn: a reason to go on (the model reads it), or undefined. `count`: how often it went on already. */
  onStop?(text: string, count: number, signal: AbortSignal): Promise<string | undefined>;
  /** Before a summary is asked for: text the summary request is told (after compaction.instructions, before the /compact focus). */
  beforeCompaction?(trigger: SummaryTrigger, focus: string | undefined, signal: AbortSignal): Promise<string[]>;
  /** After an LLM compaction attempt was committed (applied or not). */
  afterCompaction?(record: CompactionReceipt): Promise<void>;
  /** The agent waits for the person. Not awaited. */
  attention?(kind: AttentionKind, message: string): void;
  /** Before the model's next request within a turn (after a step's tool results): notices for the model (a background command ended), each given once. */
  notices?(): string[];
  /**
   * A turn starts, never inside a tool loop (its thinking is bound to the prefix): true when the
   * capability's system-prompt section changed (skill folders the last turns reached), so the
   * system prompt is built again now.
   */
  turnStart?(history: readonly Message[], cwd: string): Promise<boolean>;
  /**
   * A turn's start (its message is stored, no tool has run) or its end (whatever way it ended):
   * the working tree's checkpoints note the turn here, and snapshot the project after it when
   * it was snapshotted before its first change (beforeChange). Awaited; never throws.
   */
  turnBoundary?(edge: 'before' | 'after', turnId: string): Promise<void>;
  /**
   * A call that may change files (tools/kinds.ts mayChangeFiles: an edit, a command, an MCP tool,
   * a sub-agent) is about to be hooked (the loop's gate asks), approved and run in the current turn: the checkpoints
   * snapshot the project here before the turn's first change. Awaited; never throws.
   */
  beforeChange?(): Promise<void>;
  /**
   * A compaction (not micro) was committed, before it is announced: a message to append for what
   * the compacted history lost and the model still needs (the skills loaded before it), or none.
   */
  reattach?(before: readonly Message[], after: readonly Message[], contextWindow: number): Message | undefined;
}

/** One section of the working-state ledger the session re-injects after a compaction. */
export interface LedgerSection {
  title: string;
  text: string;
}

/**
 * A capability's part of the session's saved state (the session row's meta, under
 * `capabilities[key]`): restored when a stored session opens, saved with the rest.
 */
export interface StateSlice {
  readonly key: string;
  /** What was saved (undefined for a new session, or when nothing was): read forgivingly, never throw. */
  restore(saved: unknown): void;
  /** JSON to store; undefined stores nothing. */
  save(): unknown;
  /** What the model must still know after a compaction (the working-state ledger). */
  ledger?(): LedgerSection | undefined;
}

/** What a capability brings one session. Every part is optional. */
export interface CapabilitySession {
  /** Tools for the whole session: they join the built-in ones (and the system prompt's tool list), in this order. */
  readonly tools?: readonly AnyTool[];
  /** Tools that come and go, read at the start of each turn; the same object while nothing changed (the cached prefix holds). */
  toolSet?(): ToolSet;
  /**
   * Its section of the system prompt, read whenever the prompt is built (after the built-in part,
   * before the tool sets'): '' for none. `tools`: the session's tools for the whole session (a
   * sub-agent's: those its agent names); `contextWindow`: the model's, for a section's budget.
   */
  systemSection?(tools: readonly AnyTool[], contextWindow: number): string;
  readonly hooks?: CapabilityHooks;
  readonly state?: StateSlice;
  /**
   * Sections of the working-state ledger derived from the log (pure functions of the messages,
   * like the built-in ones: src/ledger/types.ts), for what the history itself records (skills
   * loaded, the task list's last write). State the log does not hold goes in `state.ledger()`.
   */
  readonly ledger?: readonly DerivedLedgerSection[];
  /** The session's background commands, lent to the tools (Bash hands commands to them, Recall reads them). */
  readonly background?: BackgroundShells;
  /** Where the tools reach files and run commands, when a front end lends its own (an ACP editor's buffers and terminals). */
  readonly io?: ToolIo;
  /** The working tree's checkpoints, which /rewind restores the project from (src/checkpoints/). */
  readonly checkpoints?: TreeCheckpoints;
  /** The session closes (a sub-agent's child ended, the program ends). */
  close?(): Promise<void> | void;
}

export type { DerivedLedgerSection };

/** What a tool may ask of the turn it runs in (the Skill tool: the history, allowances, gated commands). */
export interface TurnHost {
  /** The history the model sees. */
  history(): readonly Message[];
  /** Lets these allowed-tools entries run without asking for the rest of the turn; returns the ones that name no tool. */
  allowTools(written: readonly string[]): string[];
  /**
   * Runs a command through the permission gate (asks, or refuses in print mode unless allowed;
   * `preapproved`: the person approved it already, only plan mode can refuse it); `refused` says why it did not run.
   */
  shell(command: string, signal: AbortSignal, preapproved?: boolean): Promise<{ output: string } | { refused: string }>;
  notice(level: 'info' | 'warning', text: string): void;
  /** Something the person waits on besides the model began (a hook: "Running the UserPromptSubmit hook") or ended (done). */
  activity(label: string, done: boolean): void;
  /** The session's permission mode now (plan mode: only reading runs). */
  permissionMode(): PermissionMode;
  /** Sets the permission mode (an approved plan leaves plan mode); the footer follows. */
  setPermissionMode(mode: PermissionMode): void;
  /**
   * Shows a plan to the person (ExitPlanMode): approved (in the mode to go on in, with the plan as
   * approved), to be revised (with their note), or unanswered (print mode: nobody can approve).
   */
  askPlan(plan: string, toolUseId: string, signal: AbortSignal): Promise<PlanAnswer>;
  /** The messages of the session in log order: what compactions archived, then the history as it stands (a /rewind's are gone). */
  workLog(): readonly Message[];
}

/** The person's answer to a plan. */
export type PlanAnswer =
  /** `edited`: the person changed the plan (in $EDITOR) before approving it; `plan` is theirs. */
  | { kind: 'approve'; mode: PermissionMode; plan: string; edited?: boolean }
  /** `plan`: the plan as the person edited it before sending it back. */
  | { kind: 'revise'; note?: string; plan?: string }
  | { kind: 'unanswered' };

/** What a session lends a capability when it opens it. */
export interface CapabilityHost {
  readonly sessionId: string;
  /** A stored session opened again (--resume, --continue), as opposed to a new one. */
  readonly resumed: boolean;
  /** A sub-agent's session: its parent, its label ("agent: description"), and whether what it leaves running is handed to the parent (Task's keep_background). */
  readonly parent?: { id: string; label: string; handBackground: boolean };
  /** Runs sub-agents of `catalog` as child sessions of this one (session/children.ts). */
  subagents(catalog: AgentCatalog): SubagentHost;
  /** The turn a tool call runs in (read when the call runs). */
  readonly turn: TurnHost;
}

/**
 * The run-wide objects the front ends still reach by name through `Runtime` (the footer's MCP
 * and goal badges, print mode's background commands, /tasks' panel, the init message's skills):
 * the capability that builds one hands it over here, so bootstrap names none of them.
 */
export interface RunParts {
  readonly mcp?: McpManager;
  readonly background?: BackgroundCommands;
  readonly goals?: Goals;
  readonly skills?: SkillCatalog;
}

export interface Capability {
  readonly name: string;
  /** Names of the tools it brings, known before any session opens (custom commands' allowed-tools, hook matchers). */
  readonly toolNames?: readonly string[];
  /** Slash commands it brings, listed by /help after the built-in ones, in the list's order. */
  readonly commands?: readonly CapabilityCommand[];
  /**
   * Adds to the custom commands (a skill is also /name): given those found on disk and the
   * built-in command names, the commands in force and what the person should hear about them.
   */
  customCommands?(found: readonly CustomCommand[], builtIn: readonly string[]): { commands: CustomCommand[]; warnings: string[] };
  readonly parts?: RunParts;
  /** What it shows the front ends (the task list, the /tasks panel's rows): data they draw, asked for by name. */
  readonly views?: CapabilityViews;
  /** Keys it binds in the TUI (Ctrl+B), after the built-in ones. */
  readonly keys?: readonly CapabilityKey[];
  /** Opens the capability for one session. */
  open(host: CapabilityHost): CapabilitySession;
}

/** A capability module's one factory: builds it from the run's context; undefined when the configuration leaves it out. */
export type CapabilityFactory = (ctx: CapabilityContext) => Capability | undefined | Promise<Capability | undefined>;
