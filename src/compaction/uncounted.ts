import type { Message } from '../llm/messages.js';
import type { Thresholds } from './budget.js';
import type { Anchor } from './guards.js';
import { anchorMatches, type RequestParts } from './meter.js';
import { detectSilentOverflow, largeRequestTokens, type SilentOverflow } from './overflow.js';
import type { TokenCounter } from './tokens.js';

// The engine's accounting while the tokenizer is not loaded (see TokenCounter): a request whose
// upper bound stays below every threshold needs no exact count, replies do not calibrate, and
// the provider's own count of the last request stands in for the estimate.

/** Bytes a token averages in prose and code, for figures shown before the tokenizer loads. */
const ROUGH_BYTES_PER_TOKEN = 4;

/** The provider's count of a request, and which history it counted. */
export type Reported = Pick<Anchor, 'count' | 'firstId' | 'lastId' | 'tokens'>;

/**
 * Exact counts are needed from here on: the micro threshold, or the size from which a reply's
 * count can reveal a truncating server (detectSilentOverflow), whichever is lower.
 */
export function needsExactCounts(counter: TokenCounter, parts: RequestParts, ladder: Thresholds, ratio: number): boolean {
  const exactFrom = Math.min(ladder.micro, largeRequestTokens(ladder.contextWindow));
  return ratio * counter.boundRequest(parts.system, parts.tools, parts.history) >= exactFrom;
}

/** The gauge's figure: the last reported count plus ~4 bytes a token for what came after, or ~4 bytes a token for everything. */
export function roughTokens(counter: TokenCounter, parts: RequestParts, last: Reported | undefined, ratio: number): number {
  if (last && anchorMatches(last, parts.history))
    return Math.round(last.tokens + ratio * counter.boundMessages(parts.history, ROUGH_BYTES_PER_TOKEN, last.count));
  return Math.round(ratio * counter.boundRequest(parts.system, parts.tools, parts.history, ROUGH_BYTES_PER_TOKEN));
}

/**
 * A reply to a request sent without exact counts. A truncating server is still caught: a count
 * above the window, or one that did not grow with the conversation (the growth estimated at ~4
 * bytes a token). The size check needs exact counts; needsExactCounts kept this request below it.
 */
export function observeUncounted(
  counter: TokenCounter,
  messages: readonly Message[],
  reported: number,
  last: Reported | undefined,
  contextWindow: number,
): { estimated: number; silent: SilentOverflow | undefined; reported: Reported | undefined } {
  const prev = last && anchorMatches(last, messages) ? last : undefined;
  const grown = prev ? counter.boundMessages(messages, ROUGH_BYTES_PER_TOKEN, prev.count) : 0;
  const estimated = Math.min((prev?.tokens ?? reported) + grown, largeRequestTokens(contextWindow) - 1);
  const previous = prev ? { reported: prev.tokens, estimated: prev.tokens } : undefined;
  const silent = detectSilentOverflow({ reported, estimated, contextWindow, previous });
  const first = messages[0];
  const final = messages[messages.length - 1];
  const next = !silent && first && final && reported > 0 ? { count: messages.length, firstId: first.id, lastId: final.id, tokens: reported } : undefined;
  return { estimated, silent, reported: next };
}
