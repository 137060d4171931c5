import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sniff } from '../../src/tools/binary.js';
import { fmtBytes, fmtDuration, fmtInt } from '../../src/tools/format.js';
import { collapseCarriageReturns, TerminalText } from '../../src/tools/terminalText.js';
import { HeadTailBuffer, truncateLine, truncateMiddle } from '../../src/tools/truncate.js';

describe('HeadTailBuffer', () => {
  it('returns short text unchanged', () => {
    const b = new HeadTailBuffer(100);
    b.push('hello ');
    b.push('world');
    expect(b.result()).toEqual({ text: 'hello world', truncated: false, cutChars: 0, cutLines: 0 });
  });

  it('keeps the head and the tail at line boundaries and counts what it cut', () => {
    const text = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const r = truncateMiddle(text, 200);
    expect(r.truncated).toBe(true);
    const [head, rest] = r.text.split(/… \[[^\]]+\] …\n/);
    expect(text.startsWith(head!)).toBe(true);
    expect(text.endsWith(rest!)).toBe(true);
    expect(head!.endsWith('\n')).toBe(true);
    expect(rest!.startsWith('line ')).toBe(true);
    expect(head!.length + rest!.length + r.cutChars).toBe(text.length);
    expect(r.cutLines).toBe(1000 - head!.split('\n').length + 1 - rest!.split('\n').length + 1);
    expect(r.text).toContain(`[${r.cutChars.toLocaleString('en-US')} characters (${r.cutLines} lines) cut from the middle of the output]`);
  });

  it('holds a bounded amount whatever is pushed', () => {
    const b = new HeadTailBuffer(1000);
    const chunk = 'z'.repeat(65_536);
    for (let i = 0; i < 1600; i++) {
      b.push(chunk);
      expect(b.retained).toBeLessThanOrEqual(1000 * 0.4 + 2 * 600 + chunk.length);
    }
    expect(b.total).toBe(1600 * 65_536);
    expect(b.result().text.length).toBeLessThan(1100);
  });

  it('head + tail + cut always account for the whole input (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 300 }), { maxLength: 40 }), fc.integer({ min: 10, max: 500 }), (chunks, max) => {
        const b = new HeadTailBuffer(max);
        for (const c of chunks) b.push(c);
        const whole = chunks.join('');
        const r = b.result();
        if (!r.truncated) return r.text === whole;
        const m = /\n?… \[[^\]]+\] …\n/.exec(r.text)!;
        const head = r.text.slice(0, m.index);
        const tail = r.text.slice(m.index + m[0].length);
        return whole.startsWith(head) && whole.endsWith(tail) && head.length + tail.length + r.cutChars === whole.length;
      }),
    );
  });

  it('truncateLine says how much it left out', () => {
    expect(truncateLine('abc', 5)).toEqual({ text: 'abc', truncated: false });
    expect(truncateLine('abcdefgh', 5)).toEqual({ text: 'abcde… [3 more characters]', truncated: true });
  });
});

describe('TerminalText', () => {
  const clean = (chunks: string[]): string => {
    const t = new TerminalText();
    return chunks.map((c) => t.push(c)).join('') + t.flush();
  };

  it('strips escape sequences even when a chunk cuts one in two', () => {
    expect(clean(['\x1b[3', '1mred\x1b', '[0m ok\n'])).toBe('red ok\n');
    expect(clean(['\x1b]0;title\x07text\n'])).toBe('text\n');
  });

  it('redraws carriage-return lines, across chunks too', () => {
    expect(clean(['10%\r', '20%\r100%\n', 'next\n'])).toBe('100%\nnext\n');
    expect(clean(['a\r', '\nb\r\n'])).toBe('a\nb\n');
    expect(collapseCarriageReturns('done\r')).toBe('done');
  });

  it('gives the same text however the stream is chunked (property)', () => {
    const alphabet = fc.constantFrom('a', 'b', ' ', '\n', '\r', '\x1b[1m', '\x1b[0m', 'é');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 60 }), fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 5 }), (pieces, cuts) => {
        const text = pieces.join('');
        const points = [...new Set(cuts.map((c) => Math.min(c, text.length)))].sort((a, b) => a - b);
        const chunks: string[] = [];
        let last = 0;
        for (const p of points) {
          chunks.push(text.slice(last, p));
          last = p;
        }
        chunks.push(text.slice(last));
        return clean(chunks) === clean([text]);
      }),
    );
  });

  it('passes long unfinished lines on instead of holding them', () => {
    const t = new TerminalText();
    expect(t.push('x'.repeat(10_000)).length).toBe(10_000);
  });
});

describe('sniff', () => {
  it('tells text from binary', () => {
    expect(sniff(Buffer.from('plain text\nwith lines\n'))).toEqual({ binary: false });
    expect(sniff(Buffer.from('\x1b[31mcoloured log\x1b[0m\n'))).toEqual({ binary: false });
    expect(sniff(Buffer.from('GIF89a...'))).toEqual({ binary: true, kind: 'GIF image' });
    expect(sniff(Buffer.from('%PDF-1.7\n'))).toEqual({ binary: true, kind: 'PDF document' });
    expect(sniff(Buffer.from([0x41, 0x00, 0x42]))).toEqual({ binary: true });
    expect(sniff(Buffer.from(Array.from({ length: 100 }, (_, i) => 0x80 + (i % 60))))).toEqual({ binary: true });
    expect(sniff(Buffer.alloc(0))).toEqual({ binary: false });
  });
});

describe('format', () => {
  it('writes a number as Intl writes it in English, without Intl, for every number src/ shows', () => {
    // Intl writes -0 as "-0" (a rounded -0.4); fmtInt as "0"
    const number = fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.double({ noNaN: true })).filter((n) => !Object.is(n, -0));
    fc.assert(fc.property(number, (n) => fmtInt(n) === n.toLocaleString('en-US')));
    expect(fmtInt(Math.round(-0.4))).toBe('0');
    expect([0, 999, 1000, -1234567, 2 ** 53 + 2].map(fmtInt)).toEqual(['0', '999', '1,000', '-1,234,567', '9,007,199,254,740,994']);
    // the process's first Intl object loads ICU's data (~20 ms): every count in src/ goes through fmtInt
    const src = join(import.meta.dirname, '..', '..', 'src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => /\.tsx?$/.test(f) && f !== join('tools', 'format.ts'));
    expect(files.length).toBeGreaterThan(300);
    expect(files.filter((f) => /\.toLocaleString\(|Intl\.NumberFormat/.test(readFileSync(join(src, f), 'utf8')))).toEqual([]);
  });

  it('formats sizes and durations', () => {
    expect(fmtBytes(12)).toBe('12 B');
    expect(fmtBytes(1536)).toBe('1.5 KB');
    expect(fmtBytes(10 * 1024 * 1024)).toBe('10 MB');
    expect(fmtDuration(120_000)).toBe('120s');
    expect(fmtDuration(90_000)).toBe('90s');
    expect(fmtDuration(1500)).toBe('1.5s');
    expect(fmtDuration(700)).toBe('700ms');
  });
});
