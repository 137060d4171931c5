import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { jsonResult, MODEL, runAgent, workspace, type Workspace, useFakeServer, isSummarizer } from './inprocess.js';
import { describeEachProvider } from './regime.js';

// Both regimes: a resumed history must send its thinking blocks back as the family binds them.
// Persistence end to end: what one process stored, the next one continues exactly.

const server = useFakeServer();

/** A reply long enough that summarizing it saves space. */
const LONG = 'The details of this answer go on at length about line counting and many other things. '.repeat(40);

describeEachProvider('resume with %s', (provider) => {
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace();
    writeFileSync(join(ws.dir, 'data.txt'), 'line one\nline two\n');
  });
  const run = (args: string[]) => runAgent(args, { ws, server, provider });

  it('sends, after --continue, the same history as the last request before exit plus the reply and the new prompt', async () => {
    server.enqueue({ text: 'Reading.', toolCalls: [{ name: 'FileRead', input: { path: 'data.txt' } }] }, { text: 'It has two lines.' });
    const first = await run(['-p', 'how many lines in data.txt?', '--output-format', 'json']);
    expect(first.code).toBe(0);
    const before = server.requests[1]!.view!;

    server.enqueue({ text: 'Next step done.' });
    const second = await run(['-p', 'now the next step', '--continue', '--output-format', 'json']);
    expect(second.code).toBe(0);
    expect(jsonResult(second).session_id).toBe(jsonResult(first).session_id);
    const after = server.requests[2]!.view!;

    expect(after.system).toBe(before.system);
    expect(after.toolNames).toEqual(before.toolNames);
    expect(after.model).toBe(before.model);
    expect(after.messages.slice(0, before.messages.length)).toEqual(before.messages);
    const added = after.messages.slice(before.messages.length);
    // a model that thinks gets its thinking back verbatim, first (the fake checks its signature)
    const thought = server.requests[1]!.response?.status === 200 && added[0]?.blocks[0]?.type === 'thinking' ? [added[0].blocks[0]] : [];
    if (provider === 'anthropic' && /^claude-[a-z]+-5/.test(MODEL.anthropic)) expect(thought).toHaveLength(1);
    expect(added).toEqual([
      { role: 'assistant', blocks: [...thought, { type: 'text', text: 'It has two lines.' }] },
      { role: 'user', blocks: [{ type: 'text', text: 'now the next step' }] },
    ]);
  });

  it("resumes by id (or a unique prefix) and keeps the session's own model", async () => {
    server.enqueue({ text: 'one' });
    const first = jsonResult(await run(['-p', 'first', '--output-format', 'json']));
    const id = String(first.session_id);
    server.enqueue({ text: 'two' });
    // no --model: the session's model is used even though the default would differ
    const r = await runAgent(['-p', 'second', '--resume', id.slice(0, 12), '--output-format', 'json', '--model', Object.keys(first.modelUsage as object)[0]!], {
      ws,
      server,
      provider,
    });
    expect(r.code).toBe(0);
    expect(jsonResult(r).session_id).toBe(id);
    expect(server.requests[1]!.view!.messages).toHaveLength(3);
  });

  it('carries a compaction across resume: checkpoint first, then the tail', async () => {
    server.respondWith((req) => (isSummarizer(req.view) ? { text: '## Goal\nCount lines.\n## Next Steps\nContinue.' } : undefined));
    for (const p of ['turn one', 'turn two', 'turn three', 'turn four', 'turn 4b']) {
      server.enqueue({ text: `answer to ${p}. ${LONG}` });
      expect((await run(['-p', p, ...(p === 'turn one' ? [] : ['--continue'])])).code).toBe(0);
    }
    const compact = await run(['-p', '/compact focus: keep the counting', '--continue']);
    expect(compact.code).toBe(0);
    server.enqueue({ text: 'after compaction' });
    expect((await run(['-p', 'turn five', '--continue'])).code).toBe(0);
    const last = server.requests.at(-1)!.view!;
    const firstUser = JSON.stringify(last.messages[0]);
    expect(firstUser).toContain('Count lines.');
    expect(JSON.stringify(last.messages)).not.toContain('answer to turn one');
    expect(JSON.stringify(last.messages.at(-1))).toContain('turn five');
  });

  it('reports an unknown session id as a usage error', async () => {
    const r = await run(['-p', 'x', '--resume', 's_doesnotexist']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no session with id "s_doesnotexist"');
  });
});

describe('sessions command', () => {
  it('lists, shows (with archived parts), exports, searches and removes sessions', async () => {
    const ws = workspace();
    server.respondWith((req) => (isSummarizer(req.view) ? { text: '## Goal\nFind the zebra.\n' } : undefined));
    server.enqueue({ text: `The zebra lives in the archive. ${LONG}` });
    const first = jsonResult(await runAgent(['-p', 'where is the zebra?', '--output-format', 'json'], { ws, server }));
    const id = String(first.session_id);
    for (const p of ['two', 'three', 'four']) {
      server.enqueue({ text: `reply ${p}. ${LONG}` });
      await runAgent(['-p', p, '--continue'], { ws, server });
    }
    expect((await runAgent(['-p', '/compact', '--continue'], { ws, server })).code).toBe(0);

    const list = await runAgent(['sessions'], { ws });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(id);
    expect(list.stdout).toContain('where is the zebra?');
    expect(list.stdout).toMatch(new RegExp(`${id}\\t[^\\t]+\\t\\d+\\t1\\t`));

    const show = await runAgent(['sessions', 'show', id], { ws });
    expect(show.stdout).toContain('## checkpoint');
    expect(show.stdout).not.toContain('The zebra lives in the archive.');
    expect(show.stdout).toMatch(/archived messages? not shown/);
    const showAll = await runAgent(['sessions', 'show', id, '--archived'], { ws });
    expect(showAll.stdout).toContain('The zebra lives in the archive.');
    expect(showAll.stdout).toContain('[archived by compaction');

    const jsonl = await runAgent(['sessions', 'export', id, '--format', 'jsonl'], { ws });
    const lines = jsonl.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; archivedBy?: string | null });
    expect(lines[0]!.type).toBe('session');
    expect(lines.filter((l) => l.type === 'message' && l.archivedBy).length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.type === 'compaction')).toHaveLength(1);
    const md = await runAgent(['sessions', 'export', id, '--format', 'md'], { ws });
    expect(md.stdout).toContain('# where is the zebra?');

    const search = await runAgent(['sessions', 'search', 'zebra'], { ws });
    expect(search.stdout).toContain(id);
    expect(search.stdout).toMatch(/«zebra»/i);

    const refuse = await runAgent(['sessions', 'rm', id], { ws });
    expect(refuse.code).toBe(2);
    const rm = await runAgent(['sessions', 'rm', id, '--yes'], { ws });
    expect(rm.code).toBe(0);
    expect((await runAgent(['sessions'], { ws })).stdout).not.toContain(id);
  });
});
