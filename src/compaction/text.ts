import type { CountFn } from './tokens.js';
import { fmtInt } from '../tools/format.js';

/** Marker left where the middle of a text was cut out. */
export const truncationMarker = (omittedChars: number): string => `\n[… ${fmtInt(omittedChars)} characters omitted …]\n`;

/** Moves a cut off the second half of a UTF-16 surrogate pair. */
function safeCut(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return at > 0 && code >= 0xdc00 && code <= 0xdfff ? at - 1 : at;
}

/**
 * Keeps the head and the tail of a text within maxChars (marker included), cutting the
 * middle out: the start of an output says what ran, the end how it finished.
 */
export function truncateMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  // the marker for the whole length is at least as long as the real one; one spare char for a surrogate fix
  const keep = Math.max(0, maxChars - truncationMarker(text.length).length - 1);
  if (keep === 0) return text.slice(0, safeCut(text, Math.max(0, maxChars)));
  const headEnd = safeCut(text, Math.ceil(keep / 2));
  const tailStart = safeCut(text, text.length - Math.floor(keep / 2));
  return text.slice(0, headEnd) + truncationMarker(tailStart - headEnd) + text.slice(tailStart);
}

/** truncateMiddle to a token budget: shrinks the character budget until the count fits. */
export function truncateToTokens(text: string, maxTokens: number, count: CountFn): string {
  if (maxTokens <= 0) return '';
  let tokens = count(text);
  if (tokens <= maxTokens) return text;
  let chars = Math.floor(text.length * (maxTokens / tokens) * 0.95);
  for (let i = 0; i < 8; i++) {
    const cut = truncateMiddle(text, Math.max(0, chars));
    tokens = count(cut);
    if (tokens <= maxTokens) return cut;
    chars = Math.floor(chars * Math.min(0.9, maxTokens / tokens));
  }
  return '';
}
