// Terminal column width of a string, for Ink's layout. string-width measures every string by
// segmenting it into graphemes and testing each against emoji and East Asian width tables,
// unless the whole string is printable ASCII. One icon (✓, ⎿, ❯) in a line sent the whole line
// down that path: the reprint of a resumed 2,000-message transcript after its first frame spent
// ~190 ms there. The build (scripts/build.ts) hands Ink this wrapper in place of string-width:
// runs of printable ASCII count one column a character, and string-width measures the rest, so
// the answer is string-width's own.

import { eastAsianWidth } from 'get-east-asian-width';
import stripAnsi from 'strip-ansi';

export interface WidthOptions {
  ambiguousIsNarrow?: boolean;
  countAnsiEscapeCodes?: boolean;
}

export type MeasureWidth = (text: string, options?: WidthOptions) => number;

const printable = (code: number): boolean => code >= 0x20 && code <= 0x7e;

/**
 * Characters that may join the ASCII character beside them into one grapheme (or are not
 * BMP letters at all): marks, joiners, prepended marks, Hangul jamo, Thai/Lao SARA AM,
 * halfwidth voiced marks, controls, surrogates. Anything else has a grapheme boundary on both
 * sides, so its width adds to its neighbours'.
 */
const MAY_JOIN = /[\p{M}\u0000-\u009f\u0600-\u08ff\u0e33\u0eb3\u1100-\u11ff\u200c\u200d\ua960-\ua97f\ud7b0-\udfff\uff9e\uff9f]/u;

/** What string-width measures by other rules than East Asian width: invisible, emoji, marks, controls, separators. */
const NOT_PLAIN = /[\p{Emoji_Presentation}\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\p{M}\p{Cs}\p{Zl}\p{Zp}]/u;

/** The one non-ASCII character of a part of 2–3 characters whose others are printable ASCII, when it stands alone as a grapheme. */
function loneCharacter(text: string): { char: string; index: number } | undefined {
  if (text.length < 2 || text.length > 3) return undefined;
  let index = -1;
  for (let i = 0; i < text.length; i++) {
    if (printable(text.charCodeAt(i))) continue;
    if (index !== -1) return undefined;
    index = i;
  }
  if (index === -1) return undefined;
  const char = text[index]!;
  return MAY_JOIN.test(char) ? undefined : { char, index };
}

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
    // one lone character between ASCII ones (an em dash, an icon): its width alone, so the
    // same character costs one measure whatever its neighbours
    const lone = loneCharacter(text);
    if (lone !== undefined) return text.length - 1 + single(lone.char, options);
    let width = known.get(text);
    if (width === undefined) {
      if (known.size >= PARTS_KEPT) known.clear();
      width = measure(text, options);
      known.set(text, width);
    }
    return width;
  };
  // a plain visible character is its East Asian width (string-width's last rule), without
  // string-width's first call, which compiles its emoji patterns (~14 ms)
  const single = (char: string, options: WidthOptions | undefined): number => (NOT_PLAIN.test(char) ? part(char, options) : eastAsianWidth(char.charCodeAt(0), { ambiguousAsWide: false }));
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
