// Terminal column width of a string, for Ink's layout. string-width measures every string by
// segmenting it into graphemes and testing each against emoji and East Asian width tables,
// unless the whole string is printable ASCII. One icon (✓, ⎿, ❯) in a line sent the whole line
// down that path: the reprint of a resumed 2,000-message transcript after its first frame spent
// ~190 ms there. The build (scripts/build.ts) hands Ink this wrapper in place of string-width:
// runs of printable ASCII count one column a character, and string-width measures the rest, so
// the answer is string-width's own.

import stripAnsi from 'strip-ansi';

export interface WidthOptions {
  ambiguousIsNarrow?: boolean;
  countAnsiEscapeCodes?: boolean;
}

export type MeasureWidth = (text: string, options?: WidthOptions) => number;

const printable = (code: number): boolean => code >= 0x20 && code <= 0x7e;

/** Distinct non-ASCII parts remembered (short strings: a few hundred KB at most). */
const PARTS_KEPT = 4_096;

/**
 * string-width with printable ASCII counted directly. The width of a string is the sum of its
 * graphemes' widths, and two adjacent printable ASCII characters always have a grapheme
 * boundary between them (no rule joins them), so the string is cut only there: each part that
 * holds anything else goes to `measure` with the ASCII character on either side of it (which
 * may belong to the same grapheme, like the digit of a keycap emoji).
 */
export function withAsciiFastPath(measure: MeasureWidth): MeasureWidth {
  // the same few parts recur (an icon and the letter before it, a border): measured once each
  const known = new Map<string, number>();
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
    const n = text.length;
    let width = 0;
    let runStart = 0;
    let i = 0;
    while (i < n) {
      if (printable(text.charCodeAt(i))) {
        i++;
        continue;
      }
      const from = i > runStart ? i - 1 : i;
      width += from - runStart;
      // the part ends after the first printable character that another printable one follows (or at the end)
      let end = i + 1;
      while (end < n && !(printable(text.charCodeAt(end)) && (end + 1 === n || printable(text.charCodeAt(end + 1))))) end++;
      end = Math.min(n, end + 1);
      width += part(text.slice(from, end), options);
      runStart = end;
      i = end;
    }
    return width + (n - runStart);
  };
}
