// What the loop asks of the session that runs it: the host (history, persistence, compaction
// around each call), the permission gate, and the turn's options and result.
import type { ProviderError } from '../llm/errors.js';
import type { Message, Usage } from '../llm/messages.js';
import type { DoneEvent, ModelRequest, Provider, ThinkingRequest, WebSearchRequest } from '../llm/provider.js';
import type { RetryPolicy } from '../llm/retry.js';
import type { FileDiff } from '../tools/fileDiff.js';
import type { AnyTool, SandboxRun, SpillSink, ToolOutput } from '../tools/types.js';
import type { TurnEndReason } from '../protocol/events.js';

/**
 * What the loop needs from the live session. The session owns the history, persists it
 * and compacts it; the loop only drives model calls and tools.
 */
export interface LoopHost {
  /** The visible history as it stands now. */
  history(): readonly Message[];
  /** Adds a completed message to the history (the session persists it before returning) and returns it as stored. */
  append(msg: Message): Message;
  /** The system prompt for the next call (it may change after a compaction). */
  systemPrompt(): string;
  /** Output tokens a reply may use (it may shrink when the provider reveals a smaller window). */
  maxOutputTokens(): number;
  /** Runs before every model call: the compaction tiers. May replace the history. */
  beforeModelCall(signal: AbortSignal): Promise<void>;
  /** Every "too long" error passes here first (the session learns the provider's real window from it). */
  noteOverflow(err: ProviderError): void;
  /** The provider rejected the prompt as too long; true when the history was compacted and the call should be retried (the host bounds the attempts). */
  recoverFromOverflow(err: ProviderError, signal: AbortSignal): Promise<boolean>;
  /** A response completed: the session anchors its token count and checks for silent truncation. */
  afterResponse(req: ModelRequest, done: DoneEvent): void;
}

/** `stop`: the person denied the call and ended the turn; the model is not called again. */
/** `sandbox`: how a sandboxed call runs when not as usual (plan mode's read-only sandbox, an escape the person approved). */
export type Authorization = { ok: true; sandbox?: SandboxRun } | { ok: false; message: string; stop?: boolean };

export interface GateCall {
  tool: AnyTool;
  input: unknown;
  summary: string;
  toolUseId: string;
  /** For a tool that edits files: the change it would make (from its preview). */
  diff?: FileDiff;
  /** For a tool that edits files: the absolute path it changes. */
  abs?: string;
}

/** Decides whether a tool call may run, asking the person when the policy says so; and what comes before a change. */
export interface PermissionGate {
  /** `preapproved`: a PreToolUse hook allowed the call (it skips asking, never plan mode). */
  authorize(call: GateCall, signal: AbortSignal, preapproved?: boolean): Promise<Authorization>;
  /** Awaited before a call that may change files (tools/kinds.ts mayChangeFiles) is hooked, approved and run: the turn's checkpoint is taken then. */
  beforeChange?(): Promise<void>;
}

/** What a turn runs with; the tools close over what they use of the session (tools/registry.ts createTools). */
export interface LoopOptions {
  provider: Provider;
  model: string;
  tools: readonly AnyTool[];
  gate: PermissionGate;
  maxSteps: number;
  /** How a model call is waited for and tried again. */
  patience: CallPatience;
  /** Replies stopping at max_tokens that are told to continue, per turn. */
  maxOutputRecoveries: number;
  cwd: string;
  /** What every request of the turn sends besides the history (one configuration per turn). */
  request: TurnRequest;
  /** Where results over the spill threshold go (absent: nothing is spilled). */
  spill?: SpillSink;
  /** The person's hooks around tool calls and the turn's end (the session adapts src/hooks). */
  hooks?: LoopHooks;
  /** Notices for the model's next request after a step's tool results (a background command ended), each given once. */
  notices?: () => string[];
}

/** How a model call is waited for and tried again. */
export interface CallPatience {
  retry: RetryPolicy;
  /** No new attempt of a model call starts after this long since its first attempt (timeouts.totalMs). */
  giveUpAfterMs?: number;
  /** Silence (no reply data) after which a `waiting` event is emitted, and again every this long. Default 5 s. */
  waitNoticeMs?: number;
  /** Injected for tests: waits between retries. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** What every request of a turn sends besides the history. */
export interface TurnRequest {
  /** false: the model reads no images; they are sent as notes naming them (models.<name>.images). */
  images?: boolean | undefined;
  /** The thinking settings every request of the turn sends. */
  thinking?: ThinkingRequest | undefined;
  /** The provider's web search, offered on every request of the turn (.agentrc webSearch). */
  webSearch?: WebSearchRequest | undefined;
  /** Sent as the requests' cacheKey (OpenAI prompt_cache_key): the session id. */
  cacheKey?: string;
}

/** What the loop asks of hooks; each never throws (a failing hook is reported by whoever runs it). */
export interface LoopHooks {
  /** Before a call is authorized: `block` refuses it (the reason is the model's tool result), `allow` skips asking. */
  beforeTool(call: { name: string; input: unknown; toolUseId: string }, signal: AbortSignal): Promise<{ block?: string; allow?: boolean }>;
  /** After a call succeeded: a note for the model, appended to the tool's result. */
  afterTool(call: { name: string; input: unknown; toolUseId: string }, output: ToolOutput, signal: AbortSignal): Promise<string | undefined>;
  /** The model ended its turn: a reason to go on (the model reads it), or undefined to stop. `count`: how often it went on already. */
  onStop(text: string, count: number, signal: AbortSignal): Promise<string | undefined>;
}

export interface TurnResult {
  reason: TurnEndReason;
  steps: number;
  usage: Usage;
  /** The assistant's text over the whole turn. */
  text: string;
}
