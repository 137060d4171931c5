import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonResult, runAgent, useFakeServer, workspace } from './inprocess.js';

// Looking for last week's conversation by a phrase: `agent sessions search` used to answer
// "Nothing archived matches" unless a compaction had archived it.

const server = useFakeServer();

describe('agent sessions search', () => {
  it('finds a conversation that was never compacted (archived hits are marked: test/store/message-index.test.ts)', async () => {
    const ws = workspace();
    server.enqueue({ text: 'The heron migration is planned for March.' });
    const a = jsonResult(await runAgent(['-p', 'when is the heron migration?', '--output-format', 'json'], { ws, server }));
    const found = await runAgent(['sessions', 'search', 'heron migration'], { ws });
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toContain(String(a.session_id));
    expect(found.stdout).toMatch(/user message\n/);
    expect(found.stdout).toMatch(/assistant message\n/);
    expect(found.stdout).not.toContain('[archived]');
  });
});

// issue 30: `agent sessions` refused to list anything when .agentrc named a model of its own
// without a provider ("cannot tell which provider serves …"): listing, showing and removing
// stored sessions need the database, not a provider. Resolving the whole config for them (the
// old withStore) fails the first expectation; a broken .agentrc is still an error naming it.
describe('agent sessions with a model no provider is known for', () => {
  it('lists, shows and removes sessions; an .agentrc that is not JSON still fails, naming the file', async () => {
    const ws = workspace();
    server.enqueue({ text: 'Stored before the model changed.' });
    const a = jsonResult(await runAgent(['-p', 'remember this', '--output-format', 'json'], { ws, server }));
    const id = String(a.session_id);
    writeFileSync(join(ws.dir, '.agentrc'), JSON.stringify({ model: 'house-model-7b' }));
    const list = await runAgent(['sessions'], { ws });
    expect(list.stderr).toBe('');
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(id);
    const shown = await runAgent(['sessions', 'show', id], { ws });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Stored before the model changed.');
    const removed = await runAgent(['sessions', 'rm', id, '--yes'], { ws });
    expect(removed.code, removed.stderr).toBe(0);
    expect((await runAgent(['sessions'], { ws })).stdout).not.toContain(id);
    writeFileSync(join(ws.dir, '.agentrc'), '{ "model": ');
    const broken = await runAgent(['sessions'], { ws });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain(`${join(ws.dir, '.agentrc')}: not valid JSON at line 1`);
  });
});
