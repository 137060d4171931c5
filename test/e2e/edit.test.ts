import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { isSummarizer, MODEL, runAgent, workspace, type ProviderKind, type Workspace, useFakeServer } from './harness.js';
import { describeEachProvider } from './regime.js';

// Edit, Write and /rewind end to end, print mode: the built CLI, the real SDKs, the fake
// server validating every request like the real services.

const server = useFakeServer();

const failed = (r: { content: string; isError: boolean } | undefined, provider: ProviderKind): boolean =>
  provider === 'anthropic' ? r?.isError === true : /^Error/.test(r?.content ?? '');

function toolResultsIn(n: number): Array<{ content: string; isError: boolean }> {
  const out: Array<{ content: string; isError: boolean }> = [];
  for (const m of server.requests[n - 1]?.view?.messages ?? [])
    for (const b of m.blocks) if (b.type === 'tool_result') out.push({ content: b.content, isError: b.isError });
  return out;
}

/** Every request reached the model and was accepted: none the provider would reject was sent. */
const allAccepted = (): void => {
  for (const q of server.requests) expect(q.response?.status, JSON.stringify(q.response)).toBe(200);
};

describeEachProvider('Edit, Write and /rewind with %s', (provider) => {
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace();
    writeFileSync(join(ws.dir, 'app.ts'), 'export const port = 3000;\r\nexport const host = "localhost";\r\n');
  });
  const run = (args: string[]) => runAgent(args, { ws, server, provider, timeoutMs: 30_000 });
  const file = (name: string): string => readFileSync(join(ws.dir, name), 'utf8');

  it('refuses an edit in print mode without acceptEdits, naming the flag', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'FileRead', input: { path: 'app.ts' } }] },
      { toolCalls: [{ name: 'Edit', input: { path: 'app.ts', old_string: '3000', new_string: '4000' } }] },
      { text: 'ok' },
    );
    const r = await run(['-p', 'change the port']);
    expect(r.code).toBe(0);
    const res = toolResultsIn(3).at(-1);
    expect(failed(res, provider)).toBe(true);
    expect(res!.content).toContain('--permission-mode acceptEdits');
    expect(file('app.ts')).toContain('3000');
    allAccepted();
  });

  it('refuses an edit of a file not read first, and one that is not found (with the closest line); the file stays as it was', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'Edit', input: { path: 'app.ts', old_string: '3000', new_string: '4000' } }] },
      { toolCalls: [{ name: 'FileRead', input: { path: 'app.ts' } }] },
      { toolCalls: [{ name: 'Edit', input: { path: 'app.ts', old_string: 'export const prot = 3000;', new_string: 'x' } }] },
      { text: 'gave up' },
    );
    const r = await run(['-p', 'change the port', '--permission-mode', 'acceptEdits']);
    expect(r.code).toBe(0);
    expect(toolResultsIn(2)[0]!.content).toContain('read it first');
    const notFound = toolResultsIn(4).at(-1)!;
    expect(failed(notFound, provider)).toBe(true);
    expect(notFound.content).toContain('closest match starts at line 1');
    expect(file('app.ts')).toBe('export const port = 3000;\r\nexport const host = "localhost";\r\n');
    allAccepted();
  });

  it('refuses every bad edit with a message the model can act on, the files untouched; keeps a BOM; refuses a stale file', async () => {
    writeFileSync(join(ws.dir, 'dup.txt'), 'same\nother\nsame\n');
    writeFileSync(join(ws.dir, 'bom.txt'), '\ufeffhello\nworld\n');
    writeFileSync(join(ws.dir, 'pic.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]));
    mkdirSync(join(ws.dir, 'adir'));
    const steps: Array<[string, Record<string, unknown>]> = [
      ['FileRead', { path: 'dup.txt' }],
      ['Edit', { path: 'dup.txt', old_string: 'same', new_string: 'diff' }],
      ['Edit', { path: 'dup.txt', old_string: 'other', new_string: 'other' }],
      ['Edit', { path: 'adir', old_string: 'a', new_string: 'b' }],
      ['Edit', { path: 'pic.png', old_string: 'a', new_string: 'b' }],
      ['Edit', { path: 'missing.txt', old_string: 'a', new_string: 'b' }],
      ['Write', { path: 'bom.txt', content: 'x' }],
      ['FileRead', { path: 'bom.txt' }],
      ['Edit', { path: 'bom.txt', old_string: 'world', new_string: 'there' }],
      ['FileRead', { path: 'app.ts' }],
      ['Bash', { command: 'echo "// touched" >> app.ts' }],
      ['Edit', { path: 'app.ts', old_string: '3000', new_string: '4000' }],
    ];
    server.enqueue(...steps.map(([name, input]) => ({ toolCalls: [{ name, input }] })), { text: 'done' });
    const r = await run(['-p', 'try things', '--permission-mode', 'allow']);
    expect(r.code, r.stderr).toBe(0);
    const results = toolResultsIn(steps.length + 1);
    const at = (i: number) => results[i]!;
    expect(at(1).content).toContain('old_string occurs 2 times in dup.txt (at lines 1, 3)');
    expect(at(2).content).toContain('old_string and new_string are the same');
    expect(at(3).content).toContain('adir is a directory');
    expect(at(4).content).toContain('is a binary file (PNG image)');
    expect(at(5).content).toContain('missing.txt does not exist');
    expect(at(6).content).toContain('bom.txt has not been read in this session: read it first');
    for (const i of [1, 2, 3, 4, 5, 6]) expect(failed(at(i), provider), `result ${i}`).toBe(true);
    expect(at(8).content).toMatch(/^Edited bom\.txt \(\+1 −1\)/);
    expect(readFileSync(join(ws.dir, 'bom.txt'))).toEqual(Buffer.from('\ufeffhello\nthere\n', 'utf8'));
    expect(at(11).content).toContain('changed on disk since you read it');
    expect(failed(at(11), provider)).toBe(true);
    expect(file('dup.txt')).toBe('same\nother\nsame\n');
    expect(file('app.ts')).toContain('3000');
    allAccepted();
  });

  it('edits (CRLF and mode kept), writes, shows the diffs in sessions show/export, then /rewind restores code, conversation or both — also after --resume and a compaction', async () => {
    // the compaction keeps only the last turn verbatim
    ws = workspace({ compaction: { tailTurns: 1 } });
    writeFileSync(join(ws.dir, 'app.ts'), 'export const port = 3000;\r\nexport const host = "localhost";\r\n');
    chmodSync(join(ws.dir, 'app.ts'), 0o640);
    server.respondWith((req) => (isSummarizer(req.view) ? { text: '## Goal\nChange the port.\n## Files\napp.ts, docs/NOTES.md' } : undefined));
    // turn 1: read and edit
    server.enqueue(
      { toolCalls: [{ name: 'FileRead', input: { path: 'app.ts' } }] },
      { toolCalls: [{ name: 'Edit', input: { path: 'app.ts', old_string: 'port = 3000', new_string: 'port = 4000' } }] },
      { text: 'Port changed.' },
    );
    expect((await run(['-p', 'change the port to 4000', '--permission-mode', 'acceptEdits'])).code).toBe(0);
    expect(file('app.ts')).toBe('export const port = 4000;\r\nexport const host = "localhost";\r\n');
    expect(statSync(join(ws.dir, 'app.ts')).mode & 0o777).toBe(0o640);
    const edited = toolResultsIn(3).at(-1)!;
    expect(edited.content).toMatch(/^Edited app\.ts \(\+1 −1\)/);
    expect(edited.content).toContain('-export const port = 3000;');

    // turn 2 (a resumed process): a new file
    // a reply long enough that summarizing the older turns makes the context smaller (a near-empty
    // conversation is refused: "would not be smaller", the working-state ledger alone outweighs it)
    server.enqueue(
      { toolCalls: [{ name: 'Write', input: { path: 'docs/NOTES.md', content: '# Notes\nport is 4000\n' } }] },
      { text: `Noted. ${'The port lives in app.ts and the notes say so. '.repeat(60)}` },
    );
    expect((await run(['-p', 'write notes', '--permission-mode', 'acceptEdits', '--continue'])).code).toBe(0);
    expect(file('docs/NOTES.md')).toBe('# Notes\nport is 4000\n');

    // turn 3, then a compaction of the older turns
    server.enqueue({ text: 'Nothing else to do.' });
    expect((await run(['-p', 'anything else?', '--continue'])).code).toBe(0);

    const id = (await run(['sessions'])).stdout.match(/s_\w+/)![0];
    const show = await run(['sessions', 'show', id]);
    expect(show.stdout).toContain('+export const port = 4000;');
    expect(show.stdout).toContain('+port is 4000');
    const exported = await run(['sessions', 'export', id, '--format', 'md']);
    expect(exported.stdout).toMatch(/@@ -1,2 \+1,2 @@\n-export const port = 3000;\n\+export const port = 4000;/);

    const compact = await run(['-p', '/compact', '--continue']);
    expect(compact.code, compact.stdout + compact.stderr).toBe(0);

    const list = await run(['-p', '/rewind', '--continue']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/1\. .*change the port to 4000.*app\.ts/);
    expect(list.stdout).toContain("Bash's changes included");

    // code only: both files back to before turn 1 (the new file removed), the conversation stays
    const code = await run(['-p', '/rewind 1 code', '--continue']);
    expect(code.code, code.stderr).toBe(0);
    expect(code.stdout).toContain('app.ts restored');
    expect(code.stdout).toContain('docs/NOTES.md removed');
    expect(file('app.ts')).toBe('export const port = 3000;\r\nexport const host = "localhost";\r\n');
    expect(existsSync(join(ws.dir, 'docs/NOTES.md'))).toBe(false);

    // the conversation back to before turn 3 (kept verbatim after the compaction); the next request no longer carries it
    const conv = await run(['-p', '/rewind 3 conversation', '--continue']);
    expect(conv.code, conv.stderr).toBe(0);
    expect(conv.stdout).toMatch(/Conversation: \d+ messages? archived/);
    server.enqueue({ text: 'Back again.' });
    expect((await run(['-p', 'where were we?', '--continue'])).code).toBe(0);
    const last = JSON.stringify(server.requests.at(-1)!.view!.messages);
    expect(last).not.toContain('anything else?');
    expect(last).toContain('where were we?');
    // nothing was deleted: the rewound request is still searchable
    const found = await run(['sessions', 'search', 'anything else']);
    expect(found.stdout).toMatch(/«?anything»? «?else»?/);
    const archived = await run(['sessions', 'show', id, '--archived']);
    expect(archived.stdout).toMatch(/## user \[archived by rewind rw_\w+\].*\n\nanything else\?/);
    allAccepted();
  });

  it('/rewind both after --resume restores the file and drops the turn from the conversation', async () => {
    server.enqueue({ text: 'hello' });
    expect((await run(['-p', 'hi'])).code).toBe(0);
    server.enqueue(
      { toolCalls: [{ name: 'FileRead', input: { path: 'app.ts' } }] },
      { toolCalls: [{ name: 'Edit', input: { path: 'app.ts', old_string: '"localhost"', new_string: '"0.0.0.0"' } }] },
      { text: 'done' },
    );
    expect((await run(['-p', 'listen everywhere', '--permission-mode', 'acceptEdits', '--continue'])).code).toBe(0);
    expect(file('app.ts')).toContain('0.0.0.0');
    const both = await run(['-p', '/rewind 2 both', '--continue']);
    expect(both.code, both.stderr).toBe(0);
    expect(file('app.ts')).toContain('"localhost"');
    server.enqueue({ text: 'ok' });
    expect((await run(['-p', 'next', '--continue'])).code).toBe(0);
    const last = JSON.stringify(server.requests.at(-1)!.view!.messages);
    expect(last).not.toContain('listen everywhere');
    expect(last).toContain('hi');
    allAccepted();
    expect(MODEL[provider]).toBeTruthy();
  });
});

// issue 30: Edit's read check gave false reasons. (1) A file attached with @ counted as read
// only until the process ended: after --continue Edit said "has not been read", or, when an
// older FileRead of it was in view, "changed on disk" though the @ read had seen this very
// version (the @ read was never stored). (2) After a code-only /rewind the read is still in the
// conversation, yet Edit said "has not been read in this session": the file was restored, which
// is what it must say. Not storing @ reads fails (1); forgetting the file on a code rewind fails (2).
describe('Edit after --continue and a code-only /rewind', () => {
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace();
    writeFileSync(join(ws.dir, 'notes.txt'), 'alpha\nbeta\n');
  });
  const run = (args: string[]) => runAgent(args, { ws, server, timeoutMs: 30_000 });
  const lastResult = (): { content: string; isError: boolean } => toolResultsIn(server.requests.length).at(-1)!;

  it('counts an @ attachment as a read across --continue, newer than an earlier FileRead', async () => {
    server.enqueue({ toolCalls: [{ name: 'FileRead', input: { path: 'notes.txt' } }] }, { text: 'read' });
    expect((await run(['-p', 'read notes.txt'])).code).toBe(0);
    writeFileSync(join(ws.dir, 'notes.txt'), 'alpha\nbeta\ndelta\n');
    server.enqueue({ text: 'Seen the new version.' });
    expect((await run(['-p', 'look at @notes.txt again', '--continue'])).code).toBe(0);
    server.enqueue({ toolCalls: [{ name: 'Edit', input: { path: 'notes.txt', old_string: 'delta', new_string: 'gamma' } }] }, { text: 'done' });
    expect((await run(['-p', 'rename delta', '--continue', '--permission-mode', 'acceptEdits'])).code).toBe(0);
    expect(lastResult()).toMatchObject({ isError: false });
    expect(readFileSync(join(ws.dir, 'notes.txt'), 'utf8')).toBe('alpha\nbeta\ngamma\n');
  });

  it('says a file restored by a code-only /rewind must be read again, not that it was never read', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'FileRead', input: { path: 'notes.txt' } }] },
      { toolCalls: [{ name: 'Edit', input: { path: 'notes.txt', old_string: 'beta', new_string: 'BETA' } }] },
      { text: 'done' },
    );
    expect((await run(['-p', 'shout beta', '--permission-mode', 'acceptEdits'])).code).toBe(0);
    const code = await run(['-p', '/rewind 1 code', '--continue']);
    expect(code.code, code.stderr).toBe(0);
    expect(readFileSync(join(ws.dir, 'notes.txt'), 'utf8')).toBe('alpha\nbeta\n');
    server.enqueue({ toolCalls: [{ name: 'Edit', input: { path: 'notes.txt', old_string: 'alpha', new_string: 'ALPHA' } }] }, { text: 'refused' });
    expect((await run(['-p', 'shout alpha', '--continue', '--permission-mode', 'acceptEdits'])).code).toBe(0);
    expect(lastResult().isError).toBe(true);
    expect(lastResult().content).toBe(
      'notes.txt was restored by /rewind since you read it (to how it was before turn 1): read it again with FileRead before changing it. The file was not changed.',
    );
  });
});
