import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { oneLine, sanitize } from '../../src/ui/sanitize.js';
import { streamTail, wrapRows } from '../../src/ui/live-text.js';

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('sanitize', () => {
  it('removes CSI sequences: colours, cursor moves, screen clears', () => {
    expect(sanitize('\u001b[31mred\u001b[0m \u001b[2J\u001b[Hhome \u001b[10;20Hmoved \u001b[?25lhidden')).toBe('red home moved hidden');
  });

  it('removes OSC sequences whole: titles, hyperlinks, clipboard writes', () => {
    expect(sanitize('a\u001b]0;evil title\u0007b')).toBe('ab');
    expect(sanitize('\u001b]8;;https://x.test\u001b\\link\u001b]8;;\u001b\\')).toBe('link');
    expect(sanitize('x\u001b]52;c;cm0gLXJmIC8=\u0007y')).toBe('xy');
  });

  it('removes DCS/APC strings, 8-bit introducers and other escapes', () => {
    expect(sanitize('a\u001bP1$r0m\u001b\\b')).toBe('ab');
    expect(sanitize('a\u001b_apc\u001b\\b')).toBe('ab');
    expect(sanitize('a\u009b2Jb\u009d0;t\u009cc')).toBe('abc');
    expect(sanitize('a\u001bcb\u001b7c\u001b(Bd')).toBe('abcd');
  });

  it('drops control characters but keeps newlines; expands tabs', () => {
    expect(sanitize('a\u0000b\u0007c\u000bd\u007fe\nf')).toBe('abcde\nf');
    expect(sanitize('a\tb\n\tc')).toBe('a   b\n    c');
  });

  it('renders carriage-return progress as the last state and backspaces as erasure', () => {
    expect(sanitize('10%\r50%\r100%\ndone\r\n')).toBe('100%\ndone\n');
    expect(sanitize('b\bbo\bol\bld\bd')).toBe('bold');
  });

  it('removes bidirectional overrides', () => {
    expect(sanitize('abc\u202edcba\u202c')).toBe('abcdcba');
  });

  it('never leaves a control character or escape, whatever the input', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(
            'a',
            ' ',
            '\n',
            '\r',
            '\t',
            '\b',
            '\u001b',
            '[',
            ']',
            '\\',
            '\u0007',
            '0',
            ';',
            'm',
            'H',
            '\u009b',
            '\u009d',
            'P',
            '\u0000',
            'é',
          ),
        }),
        (s) => {
          expect(sanitize(s)).not.toMatch(CONTROL);
          expect(sanitize(s)).not.toContain('\r');
        },
      ),
      { numRuns: 500 },
    );
  });

  it('oneLine collapses whitespace', () => {
    expect(oneLine('  npm\n  test \u001b[1m --run ')).toBe('npm test --run');
  });
});

describe('the streaming tail', () => {
  it('keeps only the last rows, marks that something is above', () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const t = streamTail(text, 40, 5);
    expect(t.rows).toEqual(['line 95', 'line 96', 'line 97', 'line 98', 'line 99']);
    expect(t.clipped).toBe(true);
  });

  it('wraps long lines into rows, at spaces where it can', () => {
    expect(wrapRows('aaaa bbbb cccc', 9)).toEqual(['aaaa bbbb', 'cccc']);
    expect(wrapRows('aaaa bbbb cccc', 8)).toEqual(['aaaa', 'bbbb', 'cccc']);
    expect(wrapRows('x'.repeat(25), 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
    const t = streamTail(`short\n${'x'.repeat(100)}`, 40, 3);
    expect(t.rows).toEqual(['x'.repeat(40), 'x'.repeat(40), 'x'.repeat(20)]);
    expect(t.clipped).toBe(true);
    const u = streamTail(`short\n${'x'.repeat(80)}`, 40, 3);
    expect(u).toEqual({ rows: ['short', 'x'.repeat(40), 'x'.repeat(40)], clipped: false });
  });

  it('shows short text whole', () => {
    expect(streamTail('a\nb', 40, 5)).toEqual({ rows: ['a', 'b'], clipped: false });
  });

  it('sanitizes, and never starts inside a cut escape sequence', () => {
    const text = `${'z'.repeat(500)}\u001b[31m${'y'.repeat(10)}\nend \u001b]0;t\u0007ok`;
    const t = streamTail(text, 40, 3);
    expect(t.rows).toEqual(['end ok']);
  });

  it('looks at a bounded window, not the whole reply', () => {
    const huge = 'word '.repeat(400_000);
    const t = streamTail(`${huge}\nthe end`, 80, 10);
    // The long line is cut by the window: only whole lines are shown.
    expect(t).toEqual({ rows: ['the end'], clipped: true });
    const u = streamTail(huge, 80, 10);
    expect(u.rows).toHaveLength(10);
    expect(u.clipped).toBe(true);
    expect(u.rows.every((r) => r.length <= 80)).toBe(true);
  });
});
