import type { JsonSchema, ToolSpec } from '../llm/provider.js';
import type { FileAccess } from './fileAccess.js';
import type { FileDiff } from './fileDiff.js';
import type { FileTracker } from './fileTracker.js';
import type { ToolKind, ToolTraits } from './kinds.js';
import type { FullOutput } from './spill.js';

/** What a tool hands back to the model. */
export interface ToolOutput {
  content: string;
  isError: boolean;
  /** Images for the model (an MCP tool's image content); `content` says they are there. */
  images?: { mediaType: string; data: string }[];
  /** The whole output when `content` is already cut (Bash's head and tail): what a spill archives. */
  full?: FullOutput;
  /** Set when the output was spilled: `content` is the preview, the whole is archived under `handle`. */
  spilled?: SpillReceipt;
  /** The turn ends after this call (ExitPlanMode when nobody can approve the plan). */
  stopTurn?: boolean;
  /** What the OS sandbox denied the command (Bash): the session keeps it as a record of its own (store/sandboxViolations.ts). */
  sandboxDenied?: { command: string; lines: string[] };
}

/** What the tool row and the transcript say about a spilled output. */
export interface SpillReceipt {
  handle: string;
  lines: number;
  bytes: number;
}

/** Archives a spilled output (the session provides it: redacted, in the store, searchable). */
export interface SpillSink {
  /** Threshold in tokens for this tool (0: never spill). */
  thresholdFor(toolName: string): number;
  /** Stores the whole output and returns its handle (e.g. "o12"). */
  archive(o: { toolUseId: string; toolName: string; summary: string; isError: boolean; full: FullOutput }): string;
}

/** Read access to the compaction archive, for the Recall tool (the session provides it). */
export interface RecallSource {
  search(query: string, opts: { limit: number; offset: number }): RecallHit[];
  /** Full text of one archived message or cleared tool output, or undefined if unknown. */
  get(id: string): { id: string; label: string; text: string; images?: { mediaType: string; data: string }[] } | undefined;
}

export interface RecallHit {
  /** Id to pass to Recall `id` (an archived message id or a tool output archive id). */
  id: string;
  /** What it was: "user message", "Bash output `npm test`", ... */
  label: string;
  snippet: string;
  /** Session the hit belongs to (differs from the current one only when cross-session recall is on). */
  sessionId: string;
  createdAt: number;
}

/** How a command ended: its exit code, or the signal that killed it. */
export interface CommandExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A terminal a front end lends for Bash's foreground commands (ACP's terminal/*): it runs one command and tells how it ended. */
export interface CommandTerminal {
  run(req: {
    command: string;
    /** The shell that runs it (`shell -c command`). */
    shell: string;
    cwd: string;
    /** The call the terminal belongs to: the front end shows it live there. */
    toolUseId: string | undefined;
    /** Bytes of output kept (the terminal drops the oldest beyond it). */
    outputByteLimit: number;
    timeoutMs: number;
    /** Aborted: the command is killed. */
    signal: AbortSignal;
  }): Promise<TerminalRun>;
}

/** How a command in a lent terminal ended: its output (raw terminal text), and why it was stopped if it was. */
export interface TerminalRun {
  output: string;
  /** The terminal dropped the beginning (past outputByteLimit). */
  truncated: boolean;
  exit: CommandExit;
  stopped?: 'timeout' | 'interrupted';
  /** It could not be run at all (the front end refused it). */
  error?: string;
}

/** A running command handed to the background (Bash run_in_background, or a foreground command past its timeout). */
export interface BackgroundJob {
  command: string;
  /** The leader of its process group (tracked in processes/groups.ts). */
  pid: number;
  startedAt: number;
  /** What it printed before it was handed over (a foreground command's output so far). */
  earlier: string;
  /** Sets where its further output goes (cleaned text, as it comes); called once, when it is adopted. */
  follow(onText: (text: string) => void): void;
  /** Resolves when it exited and its output is drained; never rejects. */
  ended: Promise<CommandExit>;
  /**
   * Leaves it running past this program's end: forgotten by the process registry (no signal of
   * the program's end reaches it), its output drained by a small process of its own (`cat` to
   * /dev/null: it never dies of a closed pipe), no longer archived.
   */
  detach(): void;
}

/** One background command's output as archived so far (what Recall reads by its id). */
export interface BackgroundOutput {
  id: string;
  label: string;
  text: string;
  /** The last line the model read with Recall (0: none yet). */
  lastRead: number;
  running: boolean;
}

/** The session's background commands, as the tools see them (the background capability provides them). */
export interface BackgroundShells {
  /** Why no other command may go to the background now (the limit on running ones), or undefined. */
  refusal(): string | undefined;
  /** Takes a running command over: its output is archived under the returned id (b1, b2, …), its end told to the model. */
  adopt(job: BackgroundJob): string;
  /** The first lines it printed (up to a few), for the answer that starts it. */
  firstLines(id: string): string;
  /** Its output as archived so far; undefined for an id it does not know. */
  output(id: string): BackgroundOutput | undefined;
  /** The model read up to this line (Recall's since_last_read reads on from there). */
  markRead(id: string, line: number): void;
  /** Full-text search over every command's output (running or ended): one hit per command whose lines hold every word, newest first. */
  search(query: string): RecallHit[];
  /** A foreground command runs: `move` hands it to the background when the person asks (Ctrl+B). Returns the unregister. */
  holdForeground(move: () => void): () => void;
}

/**
 * How a call of a sandboxed tool (Bash, when the sandbox is configured) would run: what the gate
 * decides by. The sandbox itself (src/sandbox/) fills the port below; the tools never import it.
 */
export type SandboxPlan =
  /** Inside the OS sandbox; `autoAllow`: it may run without asking (sandbox.autoAllowBashIfSandboxed). */
  | { kind: 'inside'; autoAllow: boolean }
  /** Configured but it cannot start (`why`, with what to install): every command asks, or is refused (`refuse`: sandbox.failIfUnavailable). */
  | { kind: 'unavailable'; refuse: boolean; why: string }
  /** Outside it: the model asked (dangerouslyDisableSandbox: the person approves it, each time) or the command is excluded; `refused`: why it may not. */
  | { kind: 'outside'; reason: 'escape' | 'excluded'; refused?: string };

/** How the gate lets a sandboxed call run, when not as usual: in a read-only sandbox (plan mode), or outside it (approved). */
export type SandboxRun = 'readOnly' | 'outside';

/** The OS sandbox commands run in, as the Bash tool sees it (src/sandbox/runtime.ts is the one). */
export interface CommandSandbox {
  /** Whether the model may ask to leave it (sandbox.allowUnsandboxedCommands): Bash then offers dangerouslyDisableSandbox. */
  readonly escapable: boolean;
  /** Undefined when the settings leave the sandbox off. */
  plan(command: string, leave: boolean): SandboxPlan | undefined;
  /** The program, arguments and environment additions that run `command` with `shell` inside it (read-only: nothing is writable). */
  wrap(command: string, shell: string, o: { cwd: string; readOnly: boolean; id: string }): Promise<{ argv: string[]; env: Record<string, string> }>;
  /** After the command: what the sandbox denied it (a path, a domain), one line each, for the model; empty when nothing was seen. */
  denials(id: string, output: string, o: { readOnly: boolean }): string[];
}

/** What one call of a tool is given: the rest it needs it closes over (ToolSession, when its session builds it). */
export interface ToolContext {
  cwd: string;
  signal: AbortSignal;
  /** The call's tool_use id (a file read by it is recorded under it). */
  toolUseId?: string;
  /** Output as it is produced (Bash), for a live view; what the model gets is the returned result. */
  onProgress?: (text: string) => void;
}

/** How the gate let this call run, when not as usual (run's third argument): only a sandboxed tool (Bash) reads it. */
export interface CallGrant {
  /** Plan mode's read-only sandbox, or an escape the person approved. */
  sandbox?: SandboxRun;
}

/**
 * What a session lends its built-in tools: each tool closes over it when the session builds its
 * tools (registry.ts createTools). A tool built without one (a test, the goal check) has none of it.
 */
export interface ToolSession {
  /** The session's record of what the model read and wrote (FileRead records under the call's id; Edit and Write check). */
  files?: FileTracker;
  /** The session's archive, for Recall. */
  recall?: RecallSource;
  /** The spill threshold of a tool's results in characters (0: none): a tool that is never spilled (Recall) cuts its own result to it. */
  resultChars?: (toolName: string) => number;
  /** Runs before a tool changes a file, with its prior bytes (undefined: it did not exist) and mode: the session snapshots it. */
  beforeFileChange?: (abs: string, prior: Buffer | undefined, mode: number | undefined) => Promise<void> | void;
  /** Where FileRead, Edit and Write read and write (absent: the local disk); an editor's buffers under ACP. */
  fileAccess?: FileAccess;
  /** Where Bash runs a foreground command when not as a child of this process (an editor's terminal, shown live there). */
  terminal?: CommandTerminal;
  /** The session's background commands (Bash run_in_background, timeouts that move a command there, Recall of their output). */
  background?: BackgroundShells;
}

/** Builds the built-in tools of one session: each closes over what its session lends it (registry.ts createTools). */
export type BuiltinTools = (session: ToolSession) => AnyTool[];

/** The tracker a call records in: the session's, its records stored under the call's id. */
export const callFiles = (session: ToolSession, ctx: ToolContext): FileTracker | undefined =>
  ctx.toolUseId !== undefined ? session.files?.forCall(ctx.toolUseId) : session.files;

/** Where the tools reach files and run commands when a front end lends its own (an ACP editor's buffers and terminals). */
export type ToolIo = Pick<ToolSession, 'fileAccess' | 'terminal'>;

/** What an edit tool would change (shown in the approval prompt before it runs), or why it is refused. */
export type Preview = { ok: true; change: { file: { abs: string }; diff: FileDiff } } | { ok: false; output: ToolOutput };

/** Thrown by Tool.parse when the model sent input that does not fit the schema. */
export class ToolInputError extends Error {
  override readonly name = 'ToolInputError';
}

export interface Tool<I = unknown> {
  readonly name: string;
  /** Tells the model what the tool does and when to use it. */
  readonly description: string;
  readonly inputSchema: JsonSchema;
  /** What the tool does (kinds.ts): whether it asks, runs in parallel, edits files, is cleared or spilled follows from it. */
  readonly kind: ToolKind;
  /** Where this tool differs from its kind (Recall never spills; an MCP tool declared read-only runs as a read). */
  readonly traits?: Partial<ToolTraits>;
  /** Validates raw model input; throws ToolInputError naming the bad field. */
  parse(input: unknown): I;
  /** The key argument, for UI rows and placeholders (a path, a command, a pattern). */
  summarize(input: I): string;
  /** A tool that runs in the OS sandbox when one is configured (Bash): how this call would run there; undefined without a sandbox. */
  sandboxPlan?(input: I): SandboxPlan | undefined;
  /** A tool allowed per scope (WebFetch: `domain:docs.rs`): what a permission rule `Name(scope)` and a session answer cover. */
  permissionScope?(input: I): string | undefined;
  /** Edit tools: the path the input names (as given). */
  pathOf?(input: I): string;
  /** Edit tools: the change the call would make, or why it is refused (nothing is written). */
  preview?(input: I, ctx: ToolContext): Promise<Preview>;
  /**
   * A dispatching tool (McpCall): the tool a call really runs and its parsed input. The loop
   * authorizes, shows and runs that tool instead, so permissions apply to the real one.
   */
  delegate?(input: I): { tool: AnyTool; input: unknown };
  /**
   * A call that only starts something and answers after a short wait of its own (a background
   * command's first lines): consecutive such calls of one step run together, so that their waits
   * overlap instead of adding up.
   */
  startsAlongside?(input: I): boolean;
  /** Runs the tool. Expected failures come back as { isError: true }, never as throws. */
  run(input: I, ctx: ToolContext, grant?: CallGrant): Promise<ToolOutput>;
}

/** A tool of any input type (method parameters are bivariant, so every Tool<I> fits). */
export type AnyTool = Tool<unknown>;

export const toolSpec = (t: AnyTool): ToolSpec => ({ name: t.name, description: t.description, inputSchema: t.inputSchema });
