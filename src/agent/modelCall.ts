// The model half of a step: one call to the provider, with waiting notices, retries of
// transient failures, a smaller max_tokens or reactive compaction when the prompt is too long.
import { isProviderError, ProviderError } from '../llm/errors.js';
import { noImagesNote, withoutImages } from '../llm/withoutImages.js';
import type { DoneEvent, ModelRequest } from '../llm/provider.js';
import { nextRetryDelayMs } from '../llm/retry.js';
import { debug, debugEnabled, debugFull } from '../log.js';
import { errorText } from './errorText.js';
import type { AgentEvent } from '../protocol/events.js';
import type { LoopHost, LoopOptions } from './host.js';

/** aborted and failed carry the text the last attempt streamed before it ended (kept as an interrupted reply). */
export type CallOutcome =
  | { kind: 'done'; done: DoneEvent }
  | { kind: 'aborted'; partialText: string }
  | { kind: 'failed'; error: ProviderError; partialText: string };

/** One model call with retries for transient failures and reactive compaction for overflow. */
export async function callModel(
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
  /** The last attempt could not reach the provider (connection refused, DNS…): the waiting notices say so, not "no response yet". */
  let cannotConnect: string | undefined;
  /** The error of the last attempt, stating how long the call was tried. */
  let partialText = '';
  const gaveUp = (err: ProviderError, why = ''): CallOutcome => {
    if (attempt === 1 && !why) return { kind: 'failed', error: err, partialText };
    const secs = Math.round((Date.now() - firstStarted) / 1000);
    const message = `${err.message} — gave up after ${attempt} attempt${attempt === 1 ? '' : 's'} over ${secs} s${why}`;
    return {
      kind: 'failed',
      error: new ProviderError({ kind: err.kind, provider: err.provider, message, ...(err.status !== undefined ? { status: err.status } : {}) }),
      partialText,
    };
  };
  for (;;) {
    attempt++;
    emit({ type: 'request_start', step, attempt });
    // tell the person within seconds when nothing comes back, and keep telling
    const tick = opts.patience.waitNoticeMs ?? 5_000;
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
      emit({
        type: 'waiting',
        seconds: Math.round((silentTicks * tick) / 1000),
        attempt,
        stalled: heard,
        ...(cannotConnect !== undefined && !heard ? { cannotConnect } : {}),
      });
    }, tick);
    ticker.unref?.();
    const heardNow = (): void => {
      heard = true;
      cannotConnect = undefined;
      dataSinceTick = true;
    };
    const req: ModelRequest = {
      model: opts.model,
      system: host.systemPrompt(),
      messages: opts.request.images === false ? withoutImages(host.history(), noImagesNote(opts.model)) : [...host.history()],
      tools: specs,
      maxTokens: Math.min(host.maxOutputTokens(), outputCap ?? Infinity),
      signal,
      ...(opts.request.cacheKey !== undefined ? { cacheKey: opts.request.cacheKey } : {}),
      ...(opts.request.thinking !== undefined ? { thinking: opts.request.thinking } : {}),
      ...(opts.request.webSearch !== undefined ? { webSearch: opts.request.webSearch } : {}),
    };
    partialText = '';
    const sentAt = Date.now();
    if (debugEnabled()) debug('request', requestFigures(req, step, attempt));
    try {
      for await (const ev of opts.provider.stream(req)) {
        heardNow();
        switch (ev.type) {
          case 'text_delta':
            partialText += ev.text;
            emit({ type: 'text_delta', text: ev.text });
            break;
          case 'thinking_delta':
            emit({ type: 'thinking_delta', text: ev.text, ...(ev.signature ? { signature: ev.signature } : {}) });
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
            debug('response', {
              model: ev.model,
              ms: Date.now() - sentAt,
              stopReason: ev.stopReason,
              usage: ev.usage,
              ...(debugFull() ? { blocks: JSON.stringify(ev.blocks).slice(0, 4_000) } : {}),
            });
            return { kind: 'done', done: ev };
        }
      }
      throw new ProviderError({ kind: 'stream_cut', provider: opts.provider.name, message: 'the response stream ended before the reply was complete' });
    } catch (e) {
      if (signal.aborted) return { kind: 'aborted', partialText };
      const err = isProviderError(e) ? e : new ProviderError({ kind: 'connection', provider: opts.provider.name, message: errorText(e), cause: e });
      debug('request failed', {
        ms: Date.now() - sentAt,
        kind: err.kind,
        ...(err.status !== undefined ? { status: err.status } : {}),
        ...(err.requestId ? { requestId: err.requestId } : {}),
        message: err.message,
      });
      if (err.kind === 'aborted') return { kind: 'aborted', partialText };
      if (err.kind === 'connection' && !heard) cannotConnect = err.message;
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
        return { kind: 'failed', error: err, partialText: '' };
      }
      const delayMs = nextRetryDelayMs(err, attempt, opts.patience.retry);
      const giveUpAfterMs = opts.patience.giveUpAfterMs;
      if (delayMs !== undefined && giveUpAfterMs !== undefined && Date.now() + delayMs - firstStarted >= giveUpAfterMs) {
        return gaveUp(err, ` (no new attempt after ${Math.round(giveUpAfterMs / 1000)} s: timeouts.totalMs)`);
      }
      if (delayMs !== undefined) {
        emit({ type: 'retry', attempt: attempt + 1, maxAttempts: opts.patience.retry.maxAttempts, delayMs, kind: err.kind, message: err.message });
        try {
          await wait(delayMs, signal);
        } catch {
          return { kind: 'aborted', partialText: '' };
        }
        continue;
      }
      return err.retryable ? gaveUp(err) : { kind: 'failed', error: err, partialText };
    } finally {
      clearInterval(ticker);
    }
  }
}

/** A finished reply with nothing in it (no text, no tool call) that is not a cut-off or a refusal: a failed attempt, retried. */
function isEmptyReply(done: DoneEvent): boolean {
  if (done.stopReason === 'max_tokens' || done.stopReason === 'context_window' || done.stopReason === 'refusal') return false;
  return !done.blocks.some((b) => b.type === 'tool_use' || b.type === 'web_search' || (b.type === 'text' && b.text.trim() !== ''));
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

/** What --debug logs of a request: its model and sizes (contents only with --debug=full). */
function requestFigures(req: ModelRequest, step: number, attempt: number): Record<string, unknown> {
  const chars = req.messages.reduce((n, m) => n + JSON.stringify(m.blocks).length, 0);
  const last = req.messages.at(-1);
  return {
    model: req.model,
    step,
    attempt,
    messages: req.messages.length,
    messageChars: chars,
    systemChars: req.system.length,
    tools: req.tools.length,
    maxTokens: req.maxTokens,
    ...(req.cacheKey !== undefined ? { cacheKey: true } : {}),
    ...(debugFull() && last ? { last: JSON.stringify(last.blocks).slice(0, 4_000) } : {}),
  };
}
