import { createHash } from 'node:crypto';
import type { Message } from '../llm/messages.js';
import type { ToolSpec } from '../llm/provider.js';
import type { Thresholds } from './budget.js';
import type { CompactionState, Reported } from './guards.js';
import { anchorMatches, anchorOnCount, calibrate, sentRaw, type RequestParts } from './meter.js';
import { detectSilentOverflow, largeRequestTokens, type SilentOverflow } from './overflow.js';
import type { TokenCounter } from './tokens.js';
import { strippedThinkingBytes, type ThinkingRoom } from './thinkingRoom.js';

// The engine's accounting while the tokenizer is not loaded (see TokenCounter): a request whose
// upper bound stays below every threshold needs no exact count, replies do not calibrate, and
// the provider's own count of the last request stands in for the estimate.

/** Bytes a token averages in prose and code, for figures shown before the tokenizer loads. */
const ROUGH_BYTES_PER_TOKEN = 4;

let lastKey: { system: string; tools: readonly ToolSpec[]; key: string } | undefined;

/** A fingerprint of the system prompt and tool schemas a request was sent with (the last one is remembered: they rarely change). */
export function partsKey(system: string, tools: readonly ToolSpec[]): string {
  if (lastKey?.system === system && lastKey.tools === tools) return lastKey.key;
  const key = createHash('sha256').update(system).update('\0').update(JSON.stringify(tools)).digest('base64url');
  lastKey = { system, tools, key };
  return key;
}

/** The provider's count describes this request: it counted the same start of the history, with the same system prompt and tools. */
function describes(r: Reported | undefined, parts: RequestParts): r is Reported {
  return r !== undefined && anchorMatches(r, parts.history) && r.parts === partsKey(parts.system, parts.tools);
}

/**
 * Exact counts are needed from here on: the micro threshold, or, where a server may truncate
 * the prompt silently, the size from which a reply's count can reveal it (detectSilentOverflow),
 * whichever is lower.
 *
 * The bound compared: the provider's count of the last request (`last`), when it counted this
 * history's start with the same system prompt and tools, plus every byte added since (no token
 * of a byte-level BPE is shorter than a byte); else every byte of the request. So a resumed long
 * session does not load the tokenizer to learn that it is far below its thresholds. A server that
 * may truncate gets the byte bound alone: its count may be short of what was sent.
 */
export function needsExactCounts(
  counter: TokenCounter,
  parts: RequestParts,
  ladder: Thresholds,
  ratio: number,
  last: Reported | undefined,
  mayTruncate: boolean,
): boolean {
  const exactFrom = mayTruncate ? Math.min(ladder.micro, largeRequestTokens(ladder.contextWindow)) : ladder.micro;
  const bound =
    !mayTruncate && describes(last, parts)
      ? last.tokens + ratio * counter.boundMessages(parts.history, 1, last.count)
      : ratio * counter.boundRequest(parts.system, parts.tools, parts.history);
  return bound >= exactFrom;
}

/**
 * The gauge's figure: the last reported count (of a request with this history's start, system
 * prompt and tools) plus ~4 bytes a token for what came after, or ~4 bytes a token for
 * everything; thinking the context does not keep (thinkingRoom.ts) left out of what is estimated.
 */
export function roughTokens(counter: TokenCounter, parts: RequestParts, last: Reported | undefined, ratio: number, room: ThinkingRoom = 'all'): number {
  const { history } = parts;
  if (describes(last, parts)) {
    const after = counter.boundMessages(history, ROUGH_BYTES_PER_TOKEN, last.count) - strippedThinkingBytes(history, room, ROUGH_BYTES_PER_TOKEN, last.count);
    return Math.round(last.tokens + ratio * after);
  }
  const all = counter.boundRequest(parts.system, parts.tools, history, ROUGH_BYTES_PER_TOKEN) - strippedThinkingBytes(history, room, ROUGH_BYTES_PER_TOKEN);
  return Math.round(ratio * all);
}

/**
 * A reply to a request sent without exact counts. Where the server may truncate, it is still
 * caught: a count above the window, or one that did not grow with the conversation (the growth
 * estimated at ~4 bytes a token). The size check needs exact counts; needsExactCounts kept this
 * request below it. The count is kept (`reported`), for the next bound and gauge.
 */
export function observeUncounted(
  counter: TokenCounter,
  messages: readonly Message[],
  reported: number,
  last: Reported | undefined,
  contextWindow: number,
  parts: string,
  mayTruncate: boolean,
): { estimated: number; silent: SilentOverflow | undefined; reported: Reported | undefined } {
  const prev = last && anchorMatches(last, messages) ? last : undefined;
  const grown = prev ? counter.boundMessages(messages, ROUGH_BYTES_PER_TOKEN, prev.count) : 0;
  const estimated = Math.min((prev?.tokens ?? reported) + grown, largeRequestTokens(contextWindow) - 1);
  const previous = prev ? { reported: prev.tokens, estimated: prev.tokens } : undefined;
  const silent = mayTruncate ? detectSilentOverflow({ reported, estimated, contextWindow, previous }) : undefined;
  return { estimated, silent, reported: silent ? undefined : reportOf(messages, reported, parts) };
}

/** The provider's count of a request of these messages, system prompt and tools (`parts`, partsKey); undefined when it counted nothing. */
export function reportOf(messages: readonly Message[], tokens: number, parts: string): Reported | undefined {
  const first = messages[0];
  const last = messages[messages.length - 1];
  return first && last && tokens > 0 ? { count: messages.length, firstId: first.id, lastId: last.id, tokens, parts } : undefined;
}

/**
 * Counting starts in a session whose last request went out uncounted (a resumed one, or one that
 * just grew near a threshold): the provider's count of that request becomes the anchor and
 * calibrates the model's ratio, as it would have had the request been counted, so exact figures
 * build on it, as the gauge did, in the provider's units. Nothing changes when the state has an
 * anchor, or when the count does not describe this history's start, system prompt and tools.
 */
export function adoptReported(counter: TokenCounter, parts: RequestParts, st: CompactionState, model: string, room: ThinkingRoom): void {
  const r = st.reported;
  if (st.anchor || !counter.ready || !describes(r, parts)) return;
  const raw = sentRaw(counter, { ...parts, history: parts.history.slice(0, r.count) }, undefined, room);
  st.anchor = anchorOnCount(r, raw);
  calibrate(st.calibration, model, r.tokens, raw.total);
}
