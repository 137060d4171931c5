import { describe, expect, it, vi } from 'vitest';
import { graphemeSegmenter, oneCharEach } from '../../src/ui/graphemes.js';

// The segmenter the build gives Ink's ANSI tokenizer, slice-ansi and string-width
// (scripts/build.ts, lazyGraphemes): ICU's answer for every string, without ICU for the strings
// whose characters join no neighbour (a first frame's).

const icu = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const plain = (segments: Iterable<Intl.SegmentData>): [string, number][] => [...segments].map((s) => [s.segment, s.index]);

/** Every BMP character the fast path takes (each one its own grapheme, by its rule). */
function oneCharGraphemes(): string[] {
  const out: string[] = [];
  for (let c = 0; c < 0x10000; c++) {
    const ch = String.fromCharCode(c);
    if (oneCharEach(ch)) out.push(ch);
  }
  return out;
}

describe('graphemeSegmenter', () => {
  it('a simple string never loads ICU: the segmenter is made at the first string that needs it', async () => {
    vi.resetModules();
    const fresh = await import('../../src/ui/graphemes.js');
    expect([...fresh.graphemeSegmenter.segment('╭──╮ ❯ Ask for a change · 100% context left ░░│ \u001b[31mred\u001b[39m')]).toHaveLength(61);
    expect(fresh.icuSegmenterMade()).toBe(false);
    expect(plain(fresh.graphemeSegmenter.segment('a👍🏽b'))).toEqual([
      ['a', 0],
      ['👍🏽', 1],
      ['b', 5],
    ]);
    expect(fresh.icuSegmenterMade()).toBe(true);
  });

  it('segments every character it takes without ICU as ICU does, beside any other such character', () => {
    const chars = oneCharGraphemes();
    // the fast path takes the characters of a terminal frame, and refuses marks, joiners, surrogates, CR/LF, jamo
    expect(chars).toEqual(expect.arrayContaining(['a', '\u001b', '─', '│', '╭', '❯', '░', '·', '…', '✓', '⎿', 'é', '中', '가']));
    for (const no of ['\u0301', '\u200d', '\r', '\n', '\ud83d', '\u1100', '\u0e33', '\uff9e', '\u0600', '\ufe0f']) expect(chars).not.toContain(no);
    expect(chars.length).toBeGreaterThan(50_000);
    // one grapheme each in ICU's segmentation too, whatever stands on either side: in order, in
    // reverse, and each beside itself (a join needs one of the two to be a joining character);
    // in overlapping windows, as ICU copies the whole input into every segment it returns
    const windows = (list: string[]): string[] => {
      const out: string[] = [];
      for (let i = 0; i < list.length; i += 199) out.push(`a${list.slice(i, i + 200).join('')}a`);
      return out;
    };
    const joined = [chars, [...chars].reverse(), chars.map((c) => c + c)].flatMap(windows).filter((text) => [...icu.segment(text)].length !== text.length);
    expect(joined).toEqual([]);
    const sample = `a${chars.filter((_, i) => i % 97 === 0).join('')}`;
    expect(plain(graphemeSegmenter.segment(sample))).toEqual(plain(icu.segment(sample)));
  });

  it('hands every other string to ICU: the same segments as Intl.Segmenter', () => {
    for (const text of [
      'e\u0301',
      'a\r\nb',
      '👨‍👩‍👧 x',
      '🇫🇷🇩🇪',
      '한국어 \u1100\u1161\u11a8',
      'คำ',
      'ｶﾞ',
      '\u0600a',
      '1\ufe0f\u20e3',
      '\u001b[1mé\u0301\u001b[22m',
    ]) {
      expect(plain(graphemeSegmenter.segment(text)), text).toEqual(plain(icu.segment(text)));
    }
  });

  it('answers containing() as ICU does, inside, at and past the ends', () => {
    const text = '╭─ ❯ ok';
    const ours = graphemeSegmenter.segment(text);
    const theirs = icu.segment(text);
    for (const i of [-1, -0.5, 0, 0.5, 1, 3, 6, 7, 100, Number.NaN, undefined]) {
      expect(ours.containing(i), String(i)).toEqual(theirs.containing(i));
    }
    expect([...ours].map((s) => s.input)).toEqual(Array(text.length).fill(text));
  });
});
