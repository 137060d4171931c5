import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileReadTool } from '../../src/tools/fileRead.js';
import { ToolInputError, type AnyTool } from '../../src/tools/types.js';
import { call, ctx, tree } from './helpers.js';

const tool = createFileReadTool() as AnyTool;
const lines = (n: number, f = (i: number) => `line ${i}`) => Array.from({ length: n }, (_, i) => f(i + 1)).join('\n') + '\n';

describe('FileRead', () => {
  it('numbers lines like cat -n', async () => {
    const root = tree({ 'a.txt': 'alpha\nbeta\n' });
    const out = await call(tool, { path: 'a.txt' }, ctx(root));
    expect(out).toEqual({ content: '     1\talpha\n     2\tbeta', isError: false });
  });

  it('reads a last line without a newline, CRLF and a BOM', async () => {
    const root = tree({ 'w.txt': '\uFEFFone\r\ntwo\r\nthree' });
    const out = await call(tool, { path: 'w.txt' }, ctx(root));
    expect(out.content).toBe('     1\tone\n     2\ttwo\n     3\tthree');
  });

  it('honours offset and limit, and says how to read on', async () => {
    const root = tree({ 'f.txt': lines(50) });
    const out = await call(tool, { path: 'f.txt', offset: 10, limit: 3 }, ctx(root));
    expect(out.content).toBe('    10\tline 10\n    11\tline 11\n    12\tline 12\n\n… file has 50 lines; showing 10-12. Read more with offset=13.');
    const end = await call(tool, { path: 'f.txt', offset: 49 }, ctx(root));
    expect(end.content).toBe('    49\tline 49\n    50\tline 50');
  });

  it('caps a huge file at 2,000 lines with a continuation hint that works', async () => {
    const root = tree({ 'big.txt': lines(12_345) });
    const first = await call(tool, { path: 'big.txt' }, ctx(root));
    const rows = first.content.split('\n');
    expect(rows[0]).toBe('     1\tline 1');
    expect(rows[1999]).toBe('  2000\tline 2000');
    expect(first.content).toContain('file has 12,345 lines; showing 1-2,000. Read more with offset=2001.');
    const next = await call(tool, { path: 'big.txt', offset: 2001 }, ctx(root));
    expect(next.content.split('\n')[0]).toBe('  2001\tline 2001');
    expect(next.content).toContain('Read more with offset=4001.');
  });

  it('caps by characters, cuts very long lines', async () => {
    const root = tree({ 'wide.txt': lines(200, (i) => `${i}:${'x'.repeat(1000)}`), 'long.txt': `short\n${'y'.repeat(3000)}\nafter\n${'w'.repeat(50_000)}\n` });
    const wide = await call(tool, { path: 'wide.txt' }, ctx(root));
    expect(wide.content.length).toBeLessThan(101_000);
    const shownLast = Number(/showing 1-(\d+)/.exec(wide.content)?.[1]);
    expect(shownLast).toBeGreaterThan(90);
    expect(shownLast).toBeLessThan(100);
    expect(wide.content).toContain('(output capped at');
    expect(wide.content).toContain(`Read more with offset=${shownLast + 1}.`);

    const long = await call(tool, { path: 'long.txt' }, ctx(root));
    const row2 = long.content.split('\n')[1]!;
    expect(row2.startsWith(`     2\t${'y'.repeat(2000)}…`)).toBe(true);
    expect(row2.endsWith('… [1,000 more characters]')).toBe(true);
    expect(long.content).toContain('     3\tafter');
    expect(long.content.split('\n')[3]!.endsWith('… [line cut; 48.8 KB in all]')).toBe(true);
    expect(long.content).toContain('2 lines longer than 2,000 characters were cut');
  });

  it('cuts a gigantic single line without holding it in memory', async () => {
    const root = tree({ 'min.js': 'z'.repeat(5_000_000) });
    const out = await call(tool, { path: 'min.js' }, ctx(root));
    expect(out.content.length).toBeLessThan(3000);
    expect(out.content).toContain('line cut; 4.8 MB in all');
  });

  it('refuses binary files and undecodable images, naming known kinds', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const root = tree({
      'img.png': png,
      'blob.bin': Buffer.from('abc\0def'),
      'ctrl.dat': Buffer.from(Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? 1 : 65))),
    });
    const img = await call(tool, { path: 'img.png' }, ctx(root));
    // an image is decoded (test/media/image.test.ts): a PNG signature with no image behind it is named as such
    expect(img.isError).toBe(true);
    expect(img.content).toMatch(/^img\.png looks like a PNG image but cannot be decoded \(.+\)\.$/);
    expect((await call(tool, { path: 'blob.bin' }, ctx(root))).content).toMatch(/^blob\.bin is a binary file of 7 B/);
    expect((await call(tool, { path: 'ctrl.dat' }, ctx(root))).isError).toBe(true);
  });

  it('reads UTF-8 text with accents and emoji as text', async () => {
    const root = tree({ 'u.txt': 'héllo wörld 🎉\nçà\n' });
    expect(await call(tool, { path: 'u.txt' }, ctx(root))).toEqual({ content: '     1\théllo wörld 🎉\n     2\tçà', isError: false });
  });

  // issue 30: a Latin-1 file came back as mojibake (U+FFFD for every accented byte) with no word
  // of why, and Edit then refused the file. Its lines are shown decoded as Windows-1252 with a
  // note that says so and what Edit will do. Decoding every line as UTF-8 (the old code) fails it.
  it('shows lines that are not UTF-8 decoded as Windows-1252, with a note naming them and what Edit does', async () => {
    const dir = tree({ 'latin1.txt': Buffer.from('caf\xe9 cr\xe8me\nplain ascii\nna\xefve \x80\n', 'latin1'), 'utf8.txt': 'café crème\n' });
    const out = await call(tool, { path: 'latin1.txt' }, ctx(dir));
    expect(out.isError).toBe(false);
    expect(out.content).not.toContain('\uFFFD');
    expect(out.content).toContain('     1\tcafé crème\n     2\tplain ascii\n     3\tnaïve €');
    expect(out.content).toContain(
      "(Lines 1 and 3 are not valid UTF-8 (Latin-1 or Windows-1252?) and are shown decoded as Windows-1252. Edit and Write refuse this file: they keep a file's bytes as they are. Convert it with Bash (iconv -f WINDOWS-1252 -t UTF-8) to edit it.)",
    );
    const clean = await call(tool, { path: 'utf8.txt' }, ctx(dir));
    expect(clean.content).toBe('     1\tcafé crème');
  });

  it('explains missing files, directories, empty files, offsets past the end', async () => {
    const root = tree({ 'src/index.ts': 'x\n', 'empty.txt': '' });
    const missing = await call(tool, { path: 'src/Index.ts' }, ctx(root));
    expect(missing.isError).toBe(true);
    expect(missing.content).toBe('src/Index.ts: no such file or directory. Did you mean: src/index.ts?');
    const dir = await call(tool, { path: 'src' }, ctx(root));
    expect(dir).toEqual({
      content: 'src is a directory, not a file. To list its files use Glob with pattern "src/*" (or "src/**/*" for everything below it).',
      isError: true,
    });
    expect(await call(tool, { path: 'empty.txt' }, ctx(root))).toEqual({ content: 'empty.txt is empty (0 bytes).', isError: false });
    expect(await call(tool, { path: 'src/index.ts', offset: 5 }, ctx(root))).toEqual({
      content: 'src/index.ts has 1 lines; offset=5 is past the end.',
      isError: true,
    });
  });

  it.skipIf(process.getuid?.() === 0)('reports permission denied', async () => {
    const root = tree({ 'secret.txt': 'x\n' });
    chmodSync(join(root, 'secret.txt'), 0o000);
    const out = await call(tool, { path: 'secret.txt' }, ctx(root));
    expect(out).toEqual({ content: 'secret.txt: permission denied', isError: true });
  });

  it('accepts absolute paths and shows paths outside cwd absolutely', async () => {
    const root = tree({ 'a.txt': 'hi\n' });
    mkdirSync(join(root, 'sub'));
    const out = await call(tool, { path: join(root, 'a.txt') }, ctx(join(root, 'sub')));
    expect(out.content).toBe('     1\thi');
    const gone = await call(tool, { path: join(root, 'nope.txt') }, ctx(join(root, 'sub')));
    expect(gone.content).toBe(`${join(root, 'nope.txt')}: no such file or directory`);
  });

  it('validates input, naming the field; numeric strings are accepted', () => {
    expect(() => tool.parse({})).toThrow(ToolInputError);
    expect(() => tool.parse({})).toThrow(/missing required field "path"/);
    expect(() => tool.parse({ path: 'a', offset: 0 })).toThrow(/"offset"/);
    expect(() => tool.parse({ path: 'a', limit: 'many' })).toThrow(/"limit"/);
    expect(() => tool.parse('a.txt')).toThrow(/JSON object/);
    expect(tool.parse({ path: 'a', offset: '5' })).toEqual({ path: 'a', offset: 5 });
  });

  it('stops when cancelled', async () => {
    const root = tree({ 'a.txt': 'x\n' });
    const ac = new AbortController();
    ac.abort();
    const out = await call(tool, { path: 'a.txt' }, ctx(root, { signal: ac.signal }));
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/Interrupted/);
  });
});

describe('FileRead on special files', () => {
  it.runIf(process.platform === 'linux')('reads files that report size 0 but have content (/proc)', async () => {
    const out = await call(tool, { path: '/proc/self/status' }, ctx('/'));
    expect(out.isError).toBe(false);
    expect(out.content).toMatch(/^\s+1\tName:/);
  });

  it('refuses a FIFO instead of blocking on it', async () => {
    const root = tree();
    execFileSync('mkfifo', [join(root, 'pipe')]);
    expect(await call(tool, { path: 'pipe' }, ctx(root))).toEqual({
      content: 'pipe is not a regular file (a device, socket or pipe); FileRead only reads files.',
      isError: true,
    });
  });
});
