import { chmodSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEditTool } from '../../src/tools/edit.js';
import { commit, type PlannedChange } from '../../src/tools/fileChange.js';
import { createFileReadTool } from '../../src/tools/fileRead.js';
import { FileTracker } from '../../src/tools/fileTracker.js';
import { createWriteTool } from '../../src/tools/write.js';
import type { ToolContext, ToolSession } from '../../src/tools/types.js';
import { call, perSession, sessionCtx, tree } from './helpers.js';

const edit = perSession(createEditTool);
const writeTool = perSession(createWriteTool);
const read = perSession((lent) => createFileReadTool({}, lent));

/** A context whose session has read `files` (through FileRead, as the model would). */
async function session(root: string, ...files: string[]): Promise<ToolContext & { lent: ToolSession; snaps: Array<[string, string | undefined]> }> {
  const snaps: Array<[string, string | undefined]> = [];
  const c = sessionCtx(root, { files: new FileTracker(), beforeFileChange: (abs, prior) => void snaps.push([abs, prior?.toString('utf8')]) });
  for (const f of files) expect((await call(read, { path: f }, c)).isError).toBe(false);
  return Object.assign(c, { snaps });
}

const bytes = (root: string, f: string): Buffer => readFileSync(join(root, f));

describe('Edit', () => {
  it('replaces one occurrence and reports +N −M with a unified diff', async () => {
    const root = tree({ 'a.ts': 'const a = 1;\nconst b = 2;\n' });
    const c = await session(root, 'a.ts');
    const out = await call(edit, { path: 'a.ts', old_string: 'const b = 2;', new_string: 'const b = 3;\nconst c = 4;' }, c);
    expect(out.isError).toBe(false);
    expect(out.content.split('\n')[0]).toBe('Edited a.ts (+2 −1): replaced 1 occurrence');
    expect(out.content).toContain('@@ -1,2 +1,3 @@');
    expect(bytes(root, 'a.ts').toString()).toBe('const a = 1;\nconst b = 3;\nconst c = 4;\n');
    expect(c.snaps).toEqual([[join(root, 'a.ts'), 'const a = 1;\nconst b = 2;\n']]);
  });

  it('writes only once the snapshot hook has finished, and not at all when it fails', async () => {
    const root = tree({ 'a.ts': 'old\n' });
    const seen: string[] = [];
    // a snapshot that reads the file after a turn of the event loop, as a checkpoint store does
    const snapshot = async (abs: string): Promise<void> => {
      await new Promise((r) => setImmediate(r));
      seen.push(readFileSync(abs, 'utf8'));
    };
    const c = sessionCtx(root, { files: new FileTracker(), beforeFileChange: snapshot });
    await call(read, { path: 'a.ts' }, c);
    expect((await call(edit, { path: 'a.ts', old_string: 'old', new_string: 'new' }, c)).isError).toBe(false);
    expect(seen).toEqual(['old\n']);
    const failing = sessionCtx(root, {
      files: new FileTracker(),
      beforeFileChange: async () => {
        await new Promise((r) => setImmediate(r));
        throw Object.assign(new Error('no space'), { code: 'ENOSPC' });
      },
    });
    await call(read, { path: 'a.ts' }, failing);
    const out = await call(edit, { path: 'a.ts', old_string: 'new', new_string: 'newer' }, failing);
    expect(out.isError).toBe(true);
    expect(out.content).toContain('the change could not be written');
    expect(bytes(root, 'a.ts').toString()).toBe('new\n');
  });

  it('refuses a file never read in this session ("read it first")', async () => {
    const root = tree({ 'a.ts': 'x\n' });
    const out = await call(edit, { path: 'a.ts', old_string: 'x', new_string: 'y' }, await session(root));
    expect(out).toEqual({ isError: true, content: expect.stringContaining('has not been read in this session: read it first') });
    expect(bytes(root, 'a.ts').toString()).toBe('x\n');
  });

  it('refuses a file changed on disk since it was read ("read it again")', async () => {
    const root = tree({ 'a.ts': 'x\n' });
    const c = await session(root, 'a.ts');
    writeFileSync(join(root, 'a.ts'), 'x changed\n');
    const out = await call(edit, { path: 'a.ts', old_string: 'x', new_string: 'y' }, c);
    expect(out.content).toContain('changed on disk since you read it');
    expect(bytes(root, 'a.ts').toString()).toBe('x changed\n');
    // a touch that changes nothing is not staleness once the tool knows the content (after its own write)
    const c2 = await session(root, 'a.ts');
    expect((await call(edit, { path: 'a.ts', old_string: 'changed', new_string: 'again' }, c2)).isError).toBe(false);
    utimesSync(join(root, 'a.ts'), new Date(2001, 1, 1), new Date(2001, 1, 1));
    expect((await call(edit, { path: 'a.ts', old_string: 'again', new_string: 'thrice' }, c2)).isError).toBe(false);
  });

  it('not found: says so with the closest match and its line; with other whitespace it says that', async () => {
    const root = tree({ 'a.py': 'def f():\n    return compute_total(items)\n\ndef g():\n\treturn 2\n' });
    const c = await session(root, 'a.py');
    const out = await call(edit, { path: 'a.py', old_string: '    return compute_totals(item)', new_string: 'x' }, c);
    expect(out.isError).toBe(true);
    expect(out.content).toContain('old_string was not found in a.py');
    expect(out.content).toContain('The closest match starts at line 2');
    expect(out.content).toContain('     2\t    return compute_total(items)');
    const ws = await call(edit, { path: 'a.py', old_string: 'def g():\n    return 2', new_string: 'x' }, c);
    expect(ws.content).toContain('The same text with different whitespace or indentation starts at line 4');
  });

  it('found several times without replace_all: says how many and where; replace_all changes them all', async () => {
    const root = tree({ 'a.txt': 'foo\nbar\nfoo\nfoo\n' });
    const c = await session(root, 'a.txt');
    const out = await call(edit, { path: 'a.txt', old_string: 'foo', new_string: 'baz' }, c);
    expect(out.content).toContain('old_string occurs 3 times in a.txt (at lines 1, 3, 4)');
    const all = await call(edit, { path: 'a.txt', old_string: 'foo', new_string: 'baz', replace_all: true }, c);
    expect(all.content).toContain('replaced 3 occurrences');
    expect(bytes(root, 'a.txt').toString()).toBe('baz\nbar\nbaz\nbaz\n');
  });

  it('refuses old_string == new_string, an empty old_string, a directory, a binary file and a missing file', async () => {
    const root = tree({ 'a.txt': 'a\n', 'dir/x': 'x', 'img.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]), 'README.md': 'r' });
    const c = await session(root, 'a.txt');
    expect((await call(edit, { path: 'a.txt', old_string: 'a', new_string: 'a' }, c)).content).toContain('are the same');
    expect((await call(edit, { path: 'a.txt', old_string: '', new_string: 'a' }, c)).content).toContain('old_string is empty');
    expect((await call(edit, { path: 'dir', old_string: 'a', new_string: 'b' }, c)).content).toContain('dir is a directory');
    c.lent.files!.record(join(root, 'img.png'), statSync(join(root, 'img.png')));
    expect((await call(edit, { path: 'img.png', old_string: 'a', new_string: 'b' }, c)).content).toContain('is a binary file (PNG image)');
    const missing = await call(edit, { path: 'readme.md', old_string: 'a', new_string: 'b' }, c);
    expect(missing.content).toContain('readme.md does not exist. Did you mean: README.md?');
    expect(c.snaps).toEqual([]);
  });

  it('keeps CRLF line endings, a UTF-8 BOM, the mode bits and a missing final newline', async () => {
    const root = tree({ 'win.txt': '\ufeffone\r\ntwo\r\nthree', 'run.sh': '#!/bin/sh\necho hi\n' });
    chmodSync(join(root, 'run.sh'), 0o754);
    const c = await session(root, 'win.txt', 'run.sh');
    expect((await call(edit, { path: 'win.txt', old_string: 'two\nthree', new_string: 'TWO\nTHREE\nFOUR' }, c)).isError).toBe(false);
    expect(bytes(root, 'win.txt')).toEqual(Buffer.from('\ufeffone\r\nTWO\r\nTHREE\r\nFOUR', 'utf8'));
    expect((await call(edit, { path: 'run.sh', old_string: 'echo hi', new_string: 'echo bye' }, c)).isError).toBe(false);
    expect(statSync(join(root, 'run.sh')).mode & 0o777).toBe(0o754);
    expect(bytes(root, 'run.sh').toString()).toBe('#!/bin/sh\necho bye\n');
  });

  it('keeps UTF-16LE with its BOM, and refuses bytes that are not valid UTF-8', async () => {
    const u16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo\nworld\n', 'utf16le')]);
    const root = tree({ 'u16.txt': u16, 'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]) });
    const c = await session(root, 'u16.txt', 'latin1.txt');
    // FileRead decodes the UTF-16 file for the model
    expect((await call(read, { path: 'u16.txt' }, c)).content).toBe('     1\théllo\n     2\tworld');
    expect((await call(edit, { path: 'u16.txt', old_string: 'world', new_string: 'wörld' }, c)).isError).toBe(false);
    expect(bytes(root, 'u16.txt')).toEqual(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo\nwörld\n', 'utf16le')]));
    const l1 = await call(edit, { path: 'latin1.txt', old_string: 'caf', new_string: 'tea' }, c);
    expect(l1.content).toContain('is not valid UTF-8');
    expect(bytes(root, 'latin1.txt')).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  });

  it('refuses to write when the file changes between the preview and the write', async () => {
    const root = tree({ 'a.txt': 'a\n' });
    const c = await session(root, 'a.txt');
    const p = await edit.preview!(edit.parse({ path: 'a.txt', old_string: 'a', new_string: 'b' }), c);
    expect(p.ok).toBe(true);
    writeFileSync(join(root, 'a.txt'), 'someone else\n');
    const out = await edit.run(edit.parse({ path: 'a.txt', old_string: 'a', new_string: 'b' }), c);
    expect(out.isError).toBe(true);
    expect(bytes(root, 'a.txt').toString()).toBe('someone else\n');
  });

  it('compares contents in its last check before writing: a same-size change between plan and write is refused', async () => {
    const root = tree({ 'a.txt': 'alpha\n' });
    const c = await session(root, 'a.txt');
    const p = await edit.preview!(edit.parse({ path: 'a.txt', old_string: 'alpha', new_string: 'omega' }), c);
    if (!p.ok) throw new Error(p.output.content);
    // changed while the plan waited (the person looking at the diff): same size, other bytes
    writeFileSync(join(root, 'a.txt'), 'ALPHA\n');
    // the preview of a file-changing tool is its plan (fileChangeTool)
    const out = await commit(p.change as PlannedChange, c, c.lent);
    expect(out.content).toContain('a.txt changed on disk while the change waited');
    expect(bytes(root, 'a.txt').toString()).toBe('ALPHA\n');
  });
});

describe('Write', () => {
  it('creates a file and its parent directories (no read needed), snapshotting its absence', async () => {
    const root = tree();
    const c = await session(root);
    const out = await call(writeTool, { path: 'deep/er/new.txt', content: 'hello\nworld\n' }, c);
    expect(out.content.split('\n')[0]).toBe('Created deep/er/new.txt (+2 −0)');
    expect(bytes(root, 'deep/er/new.txt').toString()).toBe('hello\nworld\n');
    expect(c.snaps).toEqual([[join(root, 'deep/er/new.txt'), undefined]]);
  });

  it('overwriting needs a read in this session and keeps the line endings', async () => {
    const root = tree({ 'w.txt': 'a\r\nb\r\n' });
    const c = await session(root);
    expect((await call(writeTool, { path: 'w.txt', content: 'x\n' }, c)).content).toContain('read it first');
    await call(read, { path: 'w.txt' }, c);
    const out = await call(writeTool, { path: 'w.txt', content: 'x\ny\n' }, c);
    expect(out.content.split('\n')[0]).toBe('Wrote w.txt (+2 −2)');
    expect(bytes(root, 'w.txt').toString()).toBe('x\r\ny\r\n');
    // what it wrote counts as seen: a second write needs no new read
    expect((await call(writeTool, { path: 'w.txt', content: 'z\n' }, c)).isError).toBe(false);
  });
});
// Mutation checked (the last check, commit in fileChange.ts): dropping `&& contentHash(current) ===
// contentHash(existing.bytes)` fails the same-size case (the other bytes are overwritten).
