// Terminal column width of a string, for Ink's layout. string-width measures every string by
// segmenting it into graphemes and testing each against emoji and East Asian width tables,
// unless the whole string is printable ASCII. One icon (✓, ⎿, ❯) in a line sent the whole line
// down that path: the reprint of a resumed 2,000-message transcript after its first frame spent
// ~190 ms there, and string-width's first call compiles its emoji patterns (~14 ms), which a
// resumed transcript's first frame paid and a new session's did not. The build
// (scripts/build.ts) hands Ink this wrapper (terminalWidth) in place of string-width: "simple" characters are
// counted directly and string-width measures the rest, so the answer is string-width's own.

import { eastAsianWidth } from 'get-east-asian-width';
import stringWidth from 'string-width';
import stripAnsi from 'strip-ansi';

export interface WidthOptions {
  ambiguousIsNarrow?: boolean;
  countAnsiEscapeCodes?: boolean;
}

export type MeasureWidth = (text: string, options?: WidthOptions) => number;

/**
 * Characters that may join a neighbour into one grapheme, or that string-width measures by
 * another rule than East Asian width: marks, joiners, prepended marks, Hangul jamo, Thai/Lao
 * SARA AM, halfwidth voiced marks, controls, format and ignorable characters, separators,
 * emoji, surrogates (every character outside the BMP).
 */
const NOT_SIMPLE =
  /[\p{M}\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Emoji_Presentation}\u0600-\u08ff\u0e33\u0eb3\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff\uff9e\uff9f]/u;

/**
 * How wide the terminal draws an emoji with a skin-tone modifier (👍🏽), as it answered at start
 * (ui/emoji-probe.ts): 2 where it composes the pair, 4 where it draws the base and the modifier
 * as two glyphs (tmux, xterm); undefined when it did not say (string-width's 2 is kept, and the
 * input box leaves the tone out rather than risk its border).
 */
let toneColumns: 2 | 4 | undefined;
/** The fast path's remembered parts: a learned width makes them stale. */
const partCaches = new Set<Map<string, number>>();

/** Who redraws when the width is learned (the input box: an answer may come after the first frame). */
const toneListeners = new Set<() => void>();

export function setSkinToneColumns(columns: 2 | 4 | undefined): void {
  if (columns === toneColumns) return;
  toneColumns = columns;
  for (const c of partCaches) c.clear();
  for (const l of [...toneListeners]) l();
}

export const skinToneColumns = (): 2 | 4 | undefined => toneColumns;

/** Calls `listener` whenever the learned width changes; returns the unsubscribe (useSyncExternalStore's shape). */
export function onSkinToneColumns(listener: () => void): () => void {
  toneListeners.add(listener);
  return () => {
    toneListeners.delete(listener);
  };
}

/** An emoji base with its skin-tone modifier: one grapheme, two columns to string-width. */
const TONED = /\p{Emoji_Modifier_Base}\uFE0F?[\u{1F3FB}-\u{1F3FF}]/gu;

/** A measure with the learned rule: where the terminal does not compose, each modifier takes two columns more. */
export function withSkinTones(measure: MeasureWidth): MeasureWidth {
  return (text, options) => {
    const width = measure(text, options);
    if (toneColumns !== 4 || typeof text !== 'string') return width;
    return width + 2 * (text.match(TONED)?.length ?? 0);
  };
}

/** Distinct non-simple parts remembered (short strings: a few hundred KB at most). */
const PARTS_KEPT = 4_096;

/**
 * Width of the character at `i` when it is simple: printable ASCII (one column), or a BMP
 * character that always stands as its own grapheme and that string-width measures by East
 * Asian width alone (an em dash, an icon, a CJK letter). Undefined for anything else.
 */
function simpleWidth(text: string, i: number, widths: Map<number, number>, ambiguousNarrow: boolean): number | undefined {
  const code = text.charCodeAt(i);
  if (code >= 0x20 && code <= 0x7e) return 1;
  if (code < 0xa0 || !ambiguousNarrow) return undefined;
  let w = widths.get(code);
  if (w === undefined) {
    w = NOT_SIMPLE.test(text[i]!) ? -1 : eastAsianWidth(code, { ambiguousAsWide: false });
    widths.set(code, w);
  }
  return w < 0 ? undefined : w;
}

/**
 * string-width with simple characters counted directly. The width of a string is the sum of
 * its graphemes' widths, and two adjacent simple characters always have a grapheme boundary
 * between them (no rule joins them), so the string is cut only there: each part that holds
 * anything else goes to `measure` with the simple character on either side of it (which may
 * belong to the same grapheme, like the digit of a keycap emoji or a letter before its accent).
 */
export function withAsciiFastPath(measure: MeasureWidth): MeasureWidth {
  // the same few parts recur (an emoji and the letter before it): measured once each
  const known = new Map<string, number>();
  partCaches.add(known);
  const widths = new Map<number, number>();
  const part = (text: string, options: WidthOptions | undefined): number => {
    if (options?.ambiguousIsNarrow === false) return measure(text, options);
    let width = known.get(text);
    if (width === undefined) {
      if (known.size >= PARTS_KEPT) known.clear();
      width = measure(text, options);
      known.set(text, width);
    }
    return width;
  };
  return (input, options) => {
    if (typeof input !== 'string' || input.length === 0) return 0;
    if (options?.countAnsiEscapeCodes) return measure(input, options);
    const text = input.includes('\u001B') || input.includes('\u009B') ? stripAnsi(input) : input;
    const narrow = options?.ambiguousIsNarrow !== false;
    const simple = (i: number): number | undefined => simpleWidth(text, i, widths, narrow);
    const n = text.length;
    let width = 0;
    /** Width the previous character added, when it was simple and is not in a part yet. */
    let previous: number | undefined;
    let i = 0;
    while (i < n) {
      const w = simple(i);
      if (w !== undefined) {
        width += w;
        previous = w;
        i++;
        continue;
      }
      // the part starts at the simple character before this one (it may join it)...
      let from = i;
      if (previous !== undefined) {
        from = i - 1;
        width -= previous;
      }
      // ...and ends after the first simple character that another simple one follows (or at the end)
      let end = i + 1;
      while (end < n && !(simple(end) !== undefined && (end + 1 === n || simple(end + 1) !== undefined))) end++;
      end = Math.min(n, end + 1);
      width += part(text.slice(from, end), options);
      previous = undefined;
      i = end;
    }
    return width;
  };
}

/** Terminal columns a string takes (escape codes take none): the measure Ink and the transcript's text share. */
export const terminalWidth: MeasureWidth = withAsciiFastPath(withSkinTones(stringWidth));
