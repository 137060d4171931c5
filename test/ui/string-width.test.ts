import fc from 'fast-check';
// Ink's copy (string-width 8, hoisted): the one the build puts behind the fast path
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { withAsciiFastPath } from '../../src/ui/stringWidth.js';

// The width Ink lays text out with answers printable ASCII itself and asks string-width for the
// rest; it must give string-width's answer for every string, graphemes that start with an
// ASCII character (keycaps, combining accents) and ANSI colours included.

const PIECES = [
  'a',
  'Z',
  '1',
  ' ',
  '~',
  '#',
  '*',
  '\n',
  '\t',
  '\r\n',
  '\u0000',
  '\u007f',
  '\u0301', // combining acute accent (joins the letter before it)
  '\u20e3', // combining enclosing keycap: "1\ufe0f\u20e3" is one wide grapheme
  '\ufe0f', // emoji presentation selector
  '\u200d', // zero-width joiner
  '\u200b', // zero-width space
  '\u0600', // Arabic number sign: a prepended mark
  '·',
  '…',
  '✓',
  '✗',
  '❯',
  '⎿',
  '─',
  '█',
  '░',
  'ℹ',
  '⚠',
  '—',
  'é',
  '°',
  '€',
  '→',
  '±',
  'Ⅻ',
  '\u00ad',
  '\u2028',
  '\u0e33',
  '\uff9e',
  '\u0e01',
  '\u231a',
  '\u2614',
  '\u00a0', // lone between ASCII: measured alone

  '漢',
  '한',
  '\u1100',
  '\u1161',
  'ｱ',
  'Ａ',
  '👍',
  '🏽',
  '👨‍👩‍👧',
  '🇫',
  '🇷',
  '❤',
  '\u001b[31m',
  '\u001b[39m',
  '\u001b[1m',
  '\u009b32m',
];

const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((parts) => parts.join(''));
const options = fc.constantFrom(undefined, { ambiguousIsNarrow: false }, { ambiguousIsNarrow: true }, { countAnsiEscapeCodes: true });

describe('string width with the ASCII fast path', () => {
  it("gives string-width's answer for any mix of ASCII, marks, emoji, wide letters and ANSI codes", () => {
    const fast = withAsciiFastPath(stringWidth);
    fc.assert(
      fc.property(text, options, (s, o) => {
        expect(fast(s, o)).toBe(stringWidth(s, o));
        // a second time from what it remembers
        expect(fast(s, o)).toBe(stringWidth(s, o));
      }),
      { numRuns: 3_000 },
    );
  });

  it('measures only the parts that are not simple characters, each once', () => {
    const asked: string[] = [];
    const fast = withAsciiFastPath((s, o) => {
      asked.push(s);
      return stringWidth(s, o);
    });
    expect(fast('plain ASCII text of some length')).toBe(31);
    expect(asked).toEqual([]);
    expect(fast('\u001b[32m✓\u001b[39m Bash npm test')).toBe(15);
    expect(fast('\u001b[32m✓\u001b[39m Bash npm run build')).toBe(20);
    // a plain icon between ASCII characters is its East Asian width: string-width is not asked
    expect(asked).toEqual([]);
    expect(fast('key 1\ufe0f\u20e3 pressed')).toBe(stringWidth('key 1\ufe0f\u20e3 pressed'));
    expect(asked).toEqual(['1\ufe0f\u20e3 ']);
    // an emoji is asked with its neighbours, once; plain symbols, CJK and accented letters never
    expect(fast('time \u231a now, \u231a later')).toBe(stringWidth('time \u231a now, \u231a later'));
    expect(fast('a — b → c · 漢字 é ░░▓ …')).toBe(stringWidth('a — b → c · 漢字 é ░░▓ …'));
    expect(asked).toEqual(['1\ufe0f\u20e3 ', ' \u231a ']);
  });

  it('empty and non-string input is zero wide, as in string-width', () => {
    const fast = withAsciiFastPath(stringWidth);
    expect(fast('')).toBe(0);
    expect(fast('\u001b[31m\u001b[39m')).toBe(0);
    expect(fast(undefined as unknown as string)).toBe(0);
  });
});
