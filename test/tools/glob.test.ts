import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGlobTool, sortByMtime } from '../../src/tools/glob.js';
import { expandBraces, splitGlob } from '../../src/tools/globPattern.js';
import type { AnyTool } from '../../src/tools/types.js';
import { age, call, ctx, tree } from './helpers.js';

const glob = createGlobTool() as AnyTool;

function project(): string {
  return tree({
    '.git/config': '',
    '.gitignore': 'node_modules/\n*.tmp\n/out\n',
    'a.ts': '',
    'b.js': '',
    'src/c.ts': '',
    'src/d.tsx': '',
    'src/gen/.gitignore': '*.ts\n!keep.ts\n',
    'src/gen/skip.ts': '',
    'src/gen/keep.ts': '',
    'src/scratch.tmp': '',
    'node_modules/pkg/index.ts': '',
    'out/x.ts': '',
    'lib/out/y.ts': '',
    '.github/workflows/ci.yml': '',
  });
}

const list = async (input: Record<string, unknown>, cwd: string): Promise<string[]> => (await call(glob, input, ctx(cwd))).content.split('\n').sort();

describe('Glob', () => {
  it('matches like a shell glob: * in one directory, ** across', async () => {
    const root = project();
    expect(await list({ pattern: '*.ts' }, root)).toEqual(['a.ts']);
    expect(await list({ pattern: '**/*.ts' }, root)).toEqual(['a.ts', 'lib/out/y.ts', 'src/c.ts', 'src/gen/keep.ts']);
    expect(await list({ pattern: 'src/**/*.{ts,tsx}' }, root)).toEqual(['src/c.ts', 'src/d.tsx', 'src/gen/keep.ts']);
  });

  it('honours root and nested .gitignore, leaves .git out, includes hidden files', async () => {
    const root = project();
    const all = await list({ pattern: '**/*' }, root);
    expect(all).toEqual([
      '.github/workflows/ci.yml',
      '.gitignore',
      'a.ts',
      'b.js',
      'lib/out/y.ts',
      'src/c.ts',
      'src/d.tsx',
      'src/gen/.gitignore',
      'src/gen/keep.ts',
    ]);
    // a literal path to an ignored file is not listed either
    expect((await call(glob, { pattern: 'node_modules/pkg/index.ts' }, ctx(root))).content).toMatch(/^No files match/);
    expect((await call(glob, { pattern: 'src/gen/skip.ts' }, ctx(root))).content).toMatch(/^No files match/);
  });

  it('lists newest first and caps, saying how many more matched', async () => {
    const root = tree({ 'one.md': '', 'two.md': '', 'three.md': '', 'four.md': '', 'five.md': '' });
    ['one', 'two', 'three', 'four', 'five'].forEach((n, i) => age(root, `${n}.md`, 100 - i * 10));
    expect((await call(glob, { pattern: '*.md' }, ctx(root))).content).toBe('five.md\nfour.md\nthree.md\ntwo.md\none.md');
    const capped = createGlobTool({ maxResults: 2 }) as AnyTool;
    expect((await call(capped, { pattern: '*.md' }, ctx(root))).content).toBe(
      'five.md\nfour.md\n\n(5 files match; showing the 2 most recently modified, 3 more not shown. Narrow the pattern or the path to see them.)',
    );
  });

  it('searches under path and answers with paths relative to cwd', async () => {
    const root = project();
    expect(await list({ pattern: '*.ts', path: 'src' }, root)).toEqual(['src/c.ts']);
    expect(await list({ pattern: '**/*.ts', path: join(root, 'src') }, root)).toEqual(['src/c.ts', 'src/gen/keep.ts']);
    expect(await list({ pattern: '../*.js' }, join(root, 'src'))).toEqual(['../b.js'].map((p) => join(root, 'src', p)).map((p) => join(p)));
    expect(await list({ pattern: `${root}/src/*.tsx` }, root)).toEqual(['src/d.tsx']);
  });

  it('explains no match, a directory pattern, a bad path', async () => {
    const root = project();
    expect(await call(glob, { pattern: '*.py' }, ctx(root))).toEqual({ content: 'No files match "*.py" in the working directory.', isError: false });
    expect((await call(glob, { pattern: 'src' }, ctx(root))).content).toBe(
      'No files match "src" in the working directory. "src" is a directory; Glob lists files, so use "src/**/*" to see what it holds.',
    );
    expect(await call(glob, { pattern: '*', path: 'missing' }, ctx(root))).toEqual({ content: 'missing: no such file or directory', isError: true });
    expect(await call(glob, { pattern: '*', path: 'a.ts' }, ctx(root))).toEqual({
      content: 'a.ts is a file, not a directory; path must be a directory to search in.',
      isError: true,
    });
  });

  it('stops when cancelled', async () => {
    const ac = new AbortController();
    ac.abort();
    expect((await call(glob, { pattern: '**/*' }, ctx(project(), { signal: ac.signal }))).isError).toBe(true);
  });
});

describe('glob patterns', () => {
  it('splits off the static directory part', async () => {
    expect(await splitGlob('/r', 'src/**/*.ts')).toEqual({ base: '/r/src', rest: '**/*.ts' });
    expect(await splitGlob('/r/a', '../lib/*.js')).toEqual({ base: '/r/lib', rest: '*.js' });
    expect(await splitGlob('/r', '/abs/dir/*.js')).toEqual({ base: '/abs/dir', rest: '*.js' });
    expect(await splitGlob('/r', '{src/a,test/b}/*.ts')).toEqual({ base: '/r', rest: '{src/a,test/b}/*.ts' });
    expect(await splitGlob('/r', 'file.txt')).toEqual({ base: '/r', rest: 'file.txt' });
  });

  it('expands braces', () => {
    expect(expandBraces('*.{ts,tsx}')).toEqual(['*.ts', '*.tsx']);
    expect(expandBraces('{a,b{c,d}}/x')).toEqual(['a/x', 'bc/x', 'bd/x']);
    expect(expandBraces('plain')).toEqual(['plain']);
    expect(expandBraces('{single}')).toEqual(['{single}']);
  });

  it('sorts newest first with files gone meanwhile (or unreadable as a path) last, equal times by path', async () => {
    const root = tree({ 'old.ts': '', 'new.ts': '', 'mid.ts': '', 'same-b.ts': '', 'same-a.ts': '' });
    age(root, 'old.ts', 300);
    age(root, 'mid.ts', 200);
    age(root, 'new.ts', 100);
    const p = (name: string) => join(root, name);
    // one time for both (two age() calls read the clock twice, a millisecond apart on a busy machine)
    const same = Date.now() / 1000 - 250;
    utimesSync(p('same-a.ts'), same, same);
    utimesSync(p('same-b.ts'), same, same);
    // a path through a file throws ENOTDIR (not "no entry"): mutation: dropping the catch's -Infinity shifts every later time by one
    const sorted = await sortByMtime([p('old.ts/inside'), p('gone.ts'), p('old.ts'), p('same-b.ts'), p('mid.ts'), p('same-a.ts'), p('new.ts')]);
    expect(sorted).toEqual([p('new.ts'), p('mid.ts'), p('same-a.ts'), p('same-b.ts'), p('old.ts'), p('gone.ts'), p('old.ts/inside')]);
  });
  // mutation: `?.mtimeMs && -Infinity` (glob.ts) gives every file the same time: the path order
});
