// The grapheme segmenter of the terminal libraries the bundle holds (Ink's ANSI tokenizer, which
// splits every line of every frame; slice-ansi; string-width). Each made an Intl.Segmenter when its
// module loaded, and the process's first Intl object loads ICU's data: ~16 ms of every first
// frame (~34 ms in a profile), though the frame's text (ASCII, box drawing, ❯, ░) needs no
// grapheme rules at all. The build (scripts/build.ts, lazyGraphemes) gives them this one instead:
// a string in which no character can join a neighbour is segmented one character a grapheme,
// as ICU would; any other string goes to an Intl.Segmenter made on first need.

/**
 * Characters that may join a neighbour into one grapheme cluster (UAX #29): marks (Extend,
 * SpacingMark), format characters (ZWJ, ZWNJ, Prepend's Arabic signs), every character outside
 * the BMP (regional indicators, emoji modifiers, tags) and lone surrogates, CR and LF (one cluster
 * together), Hangul jamo, and the letters that are Prepend or SpacingMark without being marks
 * (Malayalam dot reph, Thai and Lao SARA AM, halfwidth voiced sound marks).
 */
const JOINS = /[\p{M}\p{Cf}\p{Cs}\u{10000}-\u{10ffff}\r\n\u0d4e\u0e33\u0eb3\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff\uff9e\uff9f]/u;

/** A string's graphemes when each character is one: what Intl.Segmenter#segment returns, for such strings. */
class OneCharSegments implements Intl.Segments {
  constructor(private readonly input: string) {}

  containing(codeUnitIndex = 0): Intl.SegmentData | undefined {
    // as Intl's: the index made an integer, NaN read as 0
    const i = Math.trunc(codeUnitIndex) || 0;
    return i >= 0 && i < this.input.length ? { segment: this.input[i]!, index: i, input: this.input } : undefined;
  }

  *[Symbol.iterator](): IterableIterator<Intl.SegmentData> {
    for (let i = 0; i < this.input.length; i++) yield { segment: this.input[i]!, index: i, input: this.input };
  }
}

let icu: Intl.Segmenter | undefined;

/** Whether every character of `text` is a grapheme of its own, whatever its neighbours: segmented without ICU. */
export const oneCharEach = (text: string): boolean => !JOINS.test(text);

/** Segments `input` into graphemes exactly as `new Intl.Segmenter(undefined, { granularity: 'grapheme' })` does. */
export const graphemeSegmenter = {
  segment(input: string): Intl.Segments {
    if (oneCharEach(input)) return new OneCharSegments(input);
    icu ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    return icu.segment(input);
  },
};

/** Whether the ICU segmenter was made (tests: a simple string never makes it). */
export const icuSegmenterMade = (): boolean => icu !== undefined;
