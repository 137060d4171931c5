import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEditTool } from '../../src/tools/edit.js';
import { createFileReadTool } from '../../src/tools/fileRead.js';
import { FileTracker } from '../../src/tools/fileTracker.js';
import { call, perSession, sessionCtx, tree } from './helpers.js';

const edit = perSession(createEditTool);
const read = perSession((lent) => createFileReadTool({}, lent));

describe('staleness after an edit (content hash)', () => {
  it('the tracker compares content: a same-size change is stale, a touch without a change is fresh', () => {
    const t = new FileTracker();
    const before = Buffer.from('const a = 1;\n');
    t.record('/f', { mtimeMs: 1, size: before.length }, before);
    const sameSize = Buffer.from('const a = 2;\n');
    expect(t.check('/f', { mtimeMs: 2, size: sameSize.length }, sameSize)).toEqual({ kind: 'stale' });
    expect(t.check('/f', { mtimeMs: 2, size: before.length }, before)).toEqual({ kind: 'fresh' });
  });

  it('Edit refuses a file changed outside after its own edit, even when the size is the same', async () => {
    const root = tree({ 'a.ts': 'const a = 1;\n' });
    const c = sessionCtx(root, { files: new FileTracker() });
    expect((await call(read, { path: 'a.ts' }, c)).isError).toBe(false);
    expect((await call(edit, { path: 'a.ts', old_string: '= 1', new_string: '= 2' }, c)).isError).toBe(false);
    const file = join(root, 'a.ts');
    writeFileSync(file, 'const a = 9;\n'); // same size, made by someone else
    const later = statSync(file).mtimeMs / 1000 + 5;
    utimesSync(file, later, later);
    const out = await call(edit, { path: 'a.ts', old_string: 'const a', new_string: 'let a' }, c);
    expect(out.isError).toBe(true);
    expect(out.content).toContain('changed on disk since you read it');
    expect(readFileSync(file, 'utf8')).toBe('const a = 9;\n');
  });
});

describe('Edit with old_string found exactly twice', () => {
  it('refuses without replace_all naming both lines, and replace_all changes exactly those two', async () => {
    const root = tree({ 'a.txt': 'foo\nbar\nfoo\n' });
    const c = sessionCtx(root, { files: new FileTracker() });
    expect((await call(read, { path: 'a.txt' }, c)).isError).toBe(false);
    const out = await call(edit, { path: 'a.txt', old_string: 'foo', new_string: 'baz' }, c);
    expect(out.isError).toBe(true);
    expect(out.content).toContain('old_string occurs 2 times in a.txt (at lines 1, 3)');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('foo\nbar\nfoo\n');
    const all = await call(edit, { path: 'a.txt', old_string: 'foo', new_string: 'baz', replace_all: true }, c);
    expect(all.isError).toBe(false);
    expect(all.content.split('\n')[0]).toContain('replaced 2 occurrences');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('baz\nbar\nbaz\n');
  });
});
