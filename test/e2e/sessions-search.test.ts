import { describe, expect, it } from 'vitest';
import { jsonResult, runAgent, useFakeServer, workspace } from './harness.js';

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
    expect(found.stdout).toContain(String(a.sessionId));
    expect(found.stdout).toMatch(/user message\n/);
    expect(found.stdout).toMatch(/assistant message\n/);
    expect(found.stdout).not.toContain('[archived]');
  });
});
