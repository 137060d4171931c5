import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acpClient } from './acpClient.js';
import { useFakeServer, workspace } from './harness.js';

// A goal over ACP (issue 47): `/goal` as a prompt of the editor runs the goal's turns within
// that prompt (each tool call asks the editor), the check decides, and the goal travels in
// session_info_update's _meta.

const server = useFakeServer();
const { withAgent } = acpClient(server);

describe('a goal over ACP', () => {
  it('/goal runs turn after turn within the prompt until its check passes; the editor hears the goal', async () => {
    const ws = workspace();
    const lines = (): number => (existsSync(join(ws.dir, 'progress.txt')) ? readFileSync(join(ws.dir, 'progress.txt'), 'utf8').split('\n').length - 1 : 0);
    // one line per turn: a Bash call, then a short answer that ends the turn
    server.respondWith((req) => {
      const last = req.view.messages.at(-1);
      if (last?.blocks.some((b) => b.type === 'tool_result')) return { text: 'Added a line.' };
      return { toolCalls: [{ name: 'Bash', input: { command: 'echo step >> progress.txt' } }] };
    });
    await withAgent(
      ws,
      () => 'allow_once',
      async (ctx, h) => {
        await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
        const session = await ctx.buildSession(ws.dir).start();
        const answer = await session.prompt(`/goal write two lines --check 'test $(wc -l < progress.txt) -ge 2'`);
        expect(answer.stopReason).toBe('end_turn');
        expect(lines()).toBe(2);
        // two turns: the continuation after the first check failed
        expect(server.requests.filter((r) => r.view).length).toBe(4);
        const goals = h.updates.flatMap((n) =>
          n.update.sessionUpdate === 'session_info_update' && n.update._meta?.['agentGoal'] !== undefined ? [n.update._meta['agentGoal']] : [],
        );
        expect(goals.at(-1)).toMatchObject({ objective: 'write two lines', status: 'complete', used: { turns: 2 } });
      },
    );
  }, 60_000);
});

// Mutations checked: acpSession.prompt without its goal loop (one turn, 1 line), the goal's
// subscription not sending session_info_update (no agentGoal seen).
