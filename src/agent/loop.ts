import { isProviderError, ProviderError } from '../llm/errors.js';
import {
  addUsage,
  emptyUsage,
  newId,
  textOf,
  toolUses,
  type Message,
  type ToolResultBlock,
  type ToolUseBlock,
  type Usage,
} from '../llm/messages.js';
import type { DoneEvent, ModelRequest, Provider } from '../llm/provider.js';
import type { FileDiff } from '../tools/fileDiff.js';
import type { FileTracker } from '../tools/fileTracker.js';
import { toolSpec, ToolInputError, type AnyTool, type RecallSource, type ToolContext, type ToolOutput } from '../tools/types.js';
import type { AgentEvent, TurnEndReason } from './events.js';
import { nextRetryDelayMs, sleep, type RetryPolicy } from '../llm/retry.js';

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
export type Authorization = { ok: true } | { ok: false; message: string; stop?: boolean };

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

/** Decides whether a tool call may run, asking the person when the policy says so. */
export interface PermissionGate {
  authorize(call: GateCall, signal: AbortSignal): Promise<Authorization>;
}

export interface LoopOptions {
  provider: Provider;
  model: string;
  tools: readonly AnyTool[];
  gate: PermissionGate;
  maxSteps: number;
  retry: RetryPolicy;
  /** No new attempt of a model call starts after this long since its first attempt (timeouts.totalMs). */
  giveUpAfterMs?: number;
  /** Silence (no reply data) after which a `waiting` event is emitted, and again every this long. Default 5 s. */
  waitNoticeMs?: number;
  /** Replies stopping at max_tokens that are told to continue, per turn. */
  maxOutputRecoveries: number;
  cwd: string;
  recall?: RecallSource;
  /** Sent as the requests' cacheKey (OpenAI prompt_cache_key): the session id. */
  cacheKey?: string;
  /** The session's record of files read and written, and its snapshot hook (see ToolContext). */
  files?: FileTracker;
  beforeFileChange?: ToolContext['beforeFileChange'];
  /** Injected for tests: waits between retries. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface TurnResult {
  reason: TurnEndReason;
  steps: number;
  usage: Usage;
  /** The assistant's text over the whole turn. */
  text: string;
}

export const CONTINUE_PROMPT =
  'Your previous reply was cut off because it reached the output token limit. Continue exactly where you stopped — mid-sentence or mid-code if that is where it ended — without repeating anything or apologising. If you were about to call a tool, call it now.';

const INTERRUPTED_RESULT = 'The user interrupted this tool call before it finished; it did not complete.';
const STOPPED_RESULT = 'Not run: the user denied an earlier call in this step and stopped the turn.';

/**
 * Runs one turn: the user's message, then model calls and tool runs until the model ends
 * its turn, the step budget runs out, an error stops it or the signal aborts it.
 * Every completed message goes through host.append as soon as it is complete, so a crash
 * loses at most the message in flight.
 */
export async function runTurn(
  host: LoopHost,
  opts: LoopOptions,
  userMessage: Message,
  signal: AbortSignal,
  emit: (ev: AgentEvent) => void,
): Promise<TurnResult> {
  const turnId = newId('turn');
  let usage = emptyUsage();
  let text = '';
  let steps = 0;
  let continuations = 0;
  const wait = opts.sleep ?? sleep;
  const toolsByName = new Map(opts.tools.map((t) => [t.name, t]));
  const specs = opts.tools.map(toolSpec);

  const end = (reason: TurnEndReason): TurnResult => {
    emit({ type: 'turn_end', reason, steps, usage, text });
    return { reason, steps, usage, text };
  };
  const appendMessage = (msg: Message): Message => {
    const stored = host.append(msg);
    emit({ type: 'message', message: stored });
    return stored;
  };

  emit({ type: 'turn_start', turnId });
  appendMessage(userMessage);

  while (steps < opts.maxSteps) {
    if (signal.aborted) return end('aborted');
    steps++;
    try {
      await host.beforeModelCall(signal);
    } catch (e) {
      if (signal.aborted) return end('aborted');
      emit({ type: 'error', kind: 'internal', message: `compaction before the model call failed: ${errorText(e)}` });
      return end('error');
    }

    const call = await callModel(host, opts, specs, steps, signal, emit, wait);
    if (call.kind === 'aborted') {
      if (call.partialText.trim()) {
        const partial: Message = {
          id: newId(),
          role: 'assistant',
          blocks: [{ type: 'text', text: call.partialText }],
          kind: 'normal',
          createdAt: Date.now(),
          model: opts.model,
          interrupted: true,
        };
        text += textOf(appendMessage(partial));
      }
      return end('aborted');
    }
    if (call.kind === 'failed') {
      emit({ type: 'error', kind: call.error.kind, message: call.error.message });
      return end('error');
    }

    const done = call.done;
    usage = addUsage(usage, done.usage);
    emit({ type: 'usage', usage: done.usage, model: done.model, stopReason: done.stopReason });

    const blocks = done.blocks.filter((b) => !(b.type === 'text' && b.text === ''));
    if (blocks.length > 0) {
      const assistant: Message = {
        id: newId(),
        role: 'assistant',
        blocks,
        kind: 'normal',
        createdAt: Date.now(),
        usage: done.usage,
        model: done.model,
      };
      const stored = appendMessage(assistant);
      text += textOf(stored);

      const uses = toolUses(stored);
      if (uses.length > 0) {
        const { results, stopped } = await runTools(uses, toolsByName, opts, signal, emit);
        appendMessage({ id: newId(), role: 'user', blocks: results, kind: 'normal', createdAt: Date.now() });
        if (signal.aborted) return end('aborted');
        if (stopped) return end('stopped');
        continue;
      }
    }

    if (done.stopReason === 'max_tokens' || done.stopReason === 'context_window') {
      if (continuations >= opts.maxOutputRecoveries || blocks.length === 0) return end('max_tokens');
      continuations++;
      emit({ type: 'continuation', count: continuations, max: opts.maxOutputRecoveries });
      appendMessage({ id: newId(), role: 'user', blocks: [{ type: 'text', text: CONTINUE_PROMPT }], kind: 'meta', createdAt: Date.now() });
      continue;
    }
    return end(done.stopReason === 'refusal' ? 'refusal' : 'end_turn');
  }
  emit({
    type: 'error',
    kind: 'internal',
    message: `stopped after ${opts.maxSteps} model calls in one turn (maxSteps); send another message to let it go on`,
  });
  return end('max_steps');
}

type CallOutcome =
  | { kind: 'done'; done: DoneEvent }
  | { kind: 'aborted'; partialText: string }
  | { kind: 'failed'; error: ProviderError };

/** One model call with retries for transient failures and reactive compaction for overflow. */
async function callModel(
  host: LoopHost,
  opts: LoopOptions,
  specs: ModelRequest['tools'],
  step: number,
  signal: AbortSignal,
  emit: (ev: AgentEvent) => void,
  wait: (ms: number, signal: AbortSignal) => Promise<void>,
): Promise<CallOutcome> {
  let attempt = 0;
  /** Set when the provider said prompt + max output is over its window while the prompt alone fits. */
  let outputCap: number | undefined;
  const firstStarted = Date.now();
  /** The error of the last attempt, stating how long the call was tried. */
  const gaveUp = (err: ProviderError, why = ''): CallOutcome => {
    if (attempt === 1 && !why) return { kind: 'failed', error: err };
    const secs = Math.round((Date.now() - firstStarted) / 1000);
    const message = `${err.message} — gave up after ${attempt} attempt${attempt === 1 ? '' : 's'} over ${secs} s${why}`;
    return { kind: 'failed', error: new ProviderError({ kind: err.kind, provider: err.provider, message, ...(err.status !== undefined ? { status: err.status } : {}) }) };
  };
  for (;;) {
    attempt++;
    emit({ type: 'request_start', step, attempt });
    // tell the person within seconds when nothing comes back, and keep telling
    const tick = opts.waitNoticeMs ?? 5_000;
    let silentTicks = 0;
    let heard = false;
    let dataSinceTick = false;
    const ticker = setInterval(() => {
      if (dataSinceTick) {
        dataSinceTick = false;
        silentTicks = 0;
        return;
      }
      silentTicks++;
      emit({ type: 'waiting', seconds: Math.round((silentTicks * tick) / 1000), attempt, stalled: heard });
    }, tick);
    ticker.unref?.();
    const heardNow = (): void => {
      heard = true;
      dataSinceTick = true;
    };
    const req: ModelRequest = {
      model: opts.model,
      system: host.systemPrompt(),
      messages: [...host.history()],
      tools: specs,
      maxTokens: Math.min(host.maxOutputTokens(), outputCap ?? Infinity),
      signal,
      ...(opts.cacheKey !== undefined ? { cacheKey: opts.cacheKey } : {}),
    };
    let partialText = '';
    try {
      for await (const ev of opts.provider.stream(req)) {
        heardNow();
        switch (ev.type) {
          case 'text_delta':
            partialText += ev.text;
            emit({ type: 'text_delta', text: ev.text });
            break;
          case 'tool_use_start':
            emit({ type: 'tool_call_streaming', id: ev.id, name: ev.name });
            break;
          case 'tool_input_delta':
            break;
          case 'done':
            if (isEmptyReply(ev)) {
              throw new ProviderError({ kind: 'server', provider: opts.provider.name, message: 'the model sent an empty reply (no text and no tool call)' });
            }
            host.afterResponse(req, ev);
            return { kind: 'done', done: ev };
        }
      }
      throw new ProviderError({ kind: 'stream_cut', provider: opts.provider.name, message: 'the response stream ended before the reply was complete' });
    } catch (e) {
      if (signal.aborted) return { kind: 'aborted', partialText };
      const err = isProviderError(e)
        ? e
        : new ProviderError({ kind: 'connection', provider: opts.provider.name, message: errorText(e), cause: e });
      if (err.kind === 'aborted') return { kind: 'aborted', partialText };
      if (err.kind === 'context_overflow') {
        host.noteOverflow(err);
        const room = outputRoom(err, req.maxTokens);
        if (room !== undefined) {
          outputCap = room;
          continue;
        }
        let recovered = false;
        try {
          recovered = await host.recoverFromOverflow(err, signal);
        } catch (recoverErr) {
          if (signal.aborted) return { kind: 'aborted', partialText: '' };
          emit({ type: 'error', kind: 'internal', message: `compaction after "prompt too long" failed: ${errorText(recoverErr)}` });
        }
        if (recovered) {
          attempt = 0;
          continue;
        }
        return { kind: 'failed', error: err };
      }
      const delayMs = nextRetryDelayMs(err, attempt, opts.retry);
      if (delayMs !== undefined && opts.giveUpAfterMs !== undefined && Date.now() + delayMs - firstStarted >= opts.giveUpAfterMs) {
        return gaveUp(err, ` (no new attempt after ${Math.round(opts.giveUpAfterMs / 1000)} s: timeouts.totalMs)`);
      }
      if (delayMs !== undefined) {
        emit({ type: 'retry', attempt: attempt + 1, maxAttempts: opts.retry.maxAttempts, delayMs, kind: err.kind, message: err.message });
        try {
          await wait(delayMs, signal);
        } catch {
          return { kind: 'aborted', partialText: '' };
        }
        continue;
      }
      return err.retryable ? gaveUp(err) : { kind: 'failed', error: err };
    } finally {
      clearInterval(ticker);
    }
  }
}

/** A finished reply with nothing in it (no text, no tool call) that is not a cut-off or a refusal: a failed attempt, retried. */
function isEmptyReply(done: DoneEvent): boolean {
  if (done.stopReason === 'max_tokens' || done.stopReason === 'context_window' || done.stopReason === 'refusal') return false;
  return !done.blocks.some((b) => b.type === 'tool_use' || (b.type === 'text' && b.text.trim() !== ''));
}

/** Output tokens below this are not worth a reply: compact instead. */
const MIN_OUTPUT_ROOM = 1_024;
const OUTPUT_MARGIN = 64;

/**
 * When a provider counts the requested output into its window ("you requested N tokens (P in
 * the messages, O in the completion)", Anthropic's "input length and `max_tokens` exceed
 * context limit") and the prompt alone fits, a smaller max_tokens is the fix, not compaction.
 */
function outputRoom(err: ProviderError, requested: number): number | undefined {
  const o = err.overflow;
  if (o?.limit === undefined || o.promptTokens === undefined || o.requestedOutputTokens === undefined) return undefined;
  const room = o.limit - (o.promptTokens - o.requestedOutputTokens) - OUTPUT_MARGIN;
  return room >= MIN_OUTPUT_ROOM && room < requested ? room : undefined;
}

/** Runs the requested tools: consecutive read-only calls in parallel, the rest one by one, results in call order. */
async function runTools(
  uses: ToolUseBlock[],
  toolsByName: Map<string, AnyTool>,
  opts: LoopOptions,
  signal: AbortSignal,
  emit: (ev: AgentEvent) => void,
): Promise<{ results: ToolResultBlock[]; stopped: boolean }> {
  const results: ToolResultBlock[] = new Array<ToolResultBlock>(uses.length);
  let stopped = false;
  let i = 0;
  while (i < uses.length) {
    if (stopped) {
      // every tool_use still gets its result, so the next request is well formed
      const use = uses[i]!;
      emit({ type: 'tool_end', id: use.id, name: use.name, output: { content: STOPPED_RESULT, isError: true }, durationMs: 0, status: 'denied' });
      results[i] = { type: 'tool_result', toolUseId: use.id, content: STOPPED_RESULT, isError: true };
      i++;
      continue;
    }
    const batch: number[] = [i];
    if (toolsByName.get(uses[i]!.name)?.readOnly) {
      while (i + batch.length < uses.length && toolsByName.get(uses[i + batch.length]!.name)?.readOnly) batch.push(i + batch.length);
    }
    await Promise.all(
      batch.map(async (idx) => {
        const r = await runOneTool(uses[idx]!, toolsByName, opts, signal, emit);
        results[idx] = r.result;
        if (r.stop) stopped = true;
      }),
    );
    i += batch.length;
  }
  return { results, stopped };
}

async function runOneTool(
  use: ToolUseBlock,
  toolsByName: Map<string, AnyTool>,
  opts: LoopOptions,
  signal: AbortSignal,
  emit: (ev: AgentEvent) => void,
): Promise<{ result: ToolResultBlock; stop?: boolean }> {
  // reset once approved: the time shown is the tool's, not the wait for the person
  let started = Date.now();
  const tool = toolsByName.get(use.name);
  let summary = '';
  const finish = (output: ToolOutput, status: 'done' | 'error' | 'denied' | 'interrupted', stop = false): { result: ToolResultBlock; stop?: boolean } => {
    emit({ type: 'tool_end', id: use.id, name: use.name, output, durationMs: Date.now() - started, status });
    return { result: { type: 'tool_result', toolUseId: use.id, content: output.content, isError: output.isError }, ...(stop ? { stop } : {}) };
  };
  const ctx: ToolContext = {
    cwd: opts.cwd,
    signal,
    onProgress: (text: string): void => emit({ type: 'tool_progress', id: use.id, text }),
    ...(opts.recall ? { recall: opts.recall } : {}),
    ...(opts.files ? { files: opts.files } : {}),
    ...(opts.beforeFileChange ? { beforeFileChange: opts.beforeFileChange } : {}),
  };

  if (!tool) {
    emit({ type: 'tool_start', id: use.id, name: use.name, input: use.input, summary });
    const names = [...toolsByName.keys()].join(', ');
    return finish({ content: `Unknown tool "${use.name}". Available tools: ${names}.`, isError: true }, 'error');
  }
  let input: unknown;
  try {
    input = tool.parse(use.input);
    summary = tool.summarize(input);
  } catch (e) {
    emit({ type: 'tool_start', id: use.id, name: use.name, input: use.input, summary });
    const why = e instanceof ToolInputError ? e.message : errorText(e);
    return finish({ content: `Invalid input for ${tool.name}: ${why}`, isError: true }, 'error');
  }
  emit({ type: 'tool_start', id: use.id, name: use.name, input, summary });
  if (signal.aborted) return finish({ content: INTERRUPTED_RESULT, isError: true }, 'interrupted');

  const call: GateCall = { tool, input, summary, toolUseId: use.id };
  if (tool.preview) {
    // an edit that cannot apply (not read, stale, not found) is refused before anyone is asked
    try {
      const p = await tool.preview(input, ctx);
      if (!p.ok) return finish(p.output, 'error');
      call.diff = p.change.diff;
      call.abs = p.change.file.abs;
    } catch (e) {
      return finish({ content: `${tool.name} failed: ${errorText(e)}`, isError: true }, 'error');
    }
  }

  let auth: Authorization;
  try {
    auth = await opts.gate.authorize(call, signal);
  } catch (e) {
    if (signal.aborted) return finish({ content: INTERRUPTED_RESULT, isError: true }, 'interrupted');
    auth = { ok: false, message: `Permission check failed: ${errorText(e)}` };
  }
  if (!auth.ok) return finish({ content: auth.message, isError: true }, 'denied', auth.stop === true);
  started = Date.now();

  try {
    const output = await tool.run(input, ctx);
    if (signal.aborted) return finish({ content: output.content ? `${output.content}\n[${INTERRUPTED_RESULT}]` : INTERRUPTED_RESULT, isError: true }, 'interrupted');
    return finish(output, output.isError ? 'error' : 'done');
  } catch (e) {
    if (signal.aborted) return finish({ content: INTERRUPTED_RESULT, isError: true }, 'interrupted');
    return finish({ content: `${tool.name} failed: ${errorText(e)}`, isError: true }, 'error');
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

