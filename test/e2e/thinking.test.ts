import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Reply } from '../fake-server/server.js';
import { bigFile, events, LONG, records, SUMMARY, type StreamEvent } from './compaction-cases.js';
import { isSummarizer, MODEL, runAgent, useFakeServer, workspace, type Workspace } from './inprocess.js';
import { itRegimeFree } from './regime.js';

// Both regimes: thinking's binding to the prefix differs between adaptive (5.5) and enabled-with-budget (4.5) thinking.
// The 12-turn tool session of issue 20 through -p --continue processes: bash, read, edit and
// long-reply turns on a model that thinks, on a 200K window and on a 16K one where micro and
// auto compaction fire. The fake server refuses what the API refuses (a tool loop without its
// thinking, thinking bound to a changed prefix): zero refused requests is the bar.

const server = useFakeServer();

/** The replies of turn t: a tool loop of one to three calls, or a long reply. */
function turnReplies(t: number): Reply[] {
  switch (t % 4) {
    case 0:
      return [
        { text: `Running a command for turn ${t}.`, toolCalls: [{ name: 'Bash', input: { command: `echo turn-${t} && ls` } }] },
        { text: `The command ran (turn ${t}).` },
      ];
    case 1:
      return [
        { toolCalls: [{ name: 'FileRead', input: { path: `big${t}.txt` } }] },
        { toolCalls: [{ name: 'FileRead', input: { path: `big${t + 1}.txt` } }] },
        { text: `Both files read (turn ${t}).` },
      ];
    case 2:
      return [
        { toolCalls: [{ name: 'FileRead', input: { path: `edit${t}.txt` } }] },
        { toolCalls: [{ name: 'Edit', input: { path: `edit${t}.txt`, old_string: 'value: old', new_string: 'value: new' } }] },
        { text: `Edited (turn ${t}).` },
      ];
    default:
      return [{ text: `${LONG.repeat(4)} (turn ${t})` }];
  }
}

async function session(ws: Workspace, model: string, extra: string[] = []): Promise<{ evs: StreamEvent[]; id: string }> {
  for (let i = 0; i < 14; i++) bigFile(ws, `big${i}.txt`, 90);
  for (let i = 0; i < 12; i++) writeFileSync(join(ws.dir, `edit${i}.txt`), 'name: demo\nvalue: old\n');
  server.respondWith((req) => (isSummarizer(req.view) ? { text: SUMMARY } : undefined));
  const all: StreamEvent[] = [];
  for (let t = 0; t < 12; t++) {
    server.enqueue(...turnReplies(t));
    const r = await runAgent(
      ['-p', `turn ${t}: do the next part`, '--output-format', 'events', '--model', model, ...extra, ...(t === 0 ? [] : ['--continue'])],
      { ws, server, timeoutMs: 60_000 },
    );
    const evs = events(r.stdout);
    expect(r.stderr).toBe('');
    expect(evs.filter((e) => e.type === 'error')).toEqual([]);
    expect(r.code).toBe(0);
    all.push(...evs);
  }
  const result = all.find((e) => e.type === 'result') as { sessionId?: string } | undefined;
  return { evs: all, id: result?.sessionId ?? '' };
}

function expectNoRefusals(): void {
  const refused = server.requests.filter((q) => q.response?.status !== 200).map((q) => `#${q.seq} ${q.response?.status}: ${q.response?.errorMessage ?? ''}`);
  expect(refused).toEqual([]);
}

/** Requests that sent a tool loop back: each carried its thinking (or the server would have refused it). */
function loopsWithThinking(): number {
  return server.requests.filter((q) => {
    const m = q.view?.messages ?? [];
    const last = m[m.length - 1];
    const prev = m[m.length - 2];
    return last?.blocks.some((b) => b.type === 'tool_result') && prev?.blocks[0]?.type === 'thinking';
  }).length;
}

// each test names its model and thinking: the same in both regimes
describe('a 12-turn tool session on a model that thinks', () => {
  itRegimeFree(
    'claude-sonnet-5-5 on a 200K window: zero refused requests, tool loops carry their thinking, thinking streams',
    async () => {
      const ws = workspace({ permissions: { mode: 'allow' } });
      server.settings.contextWindow = 200_000;
      const { evs, id } = await session(ws, 'claude-sonnet-5-5');
      expectNoRefusals();
      // stored verbatim with their signatures, shown marked, never in the plain text
      const show = await runAgent(['sessions', 'show', id], { ws });
      expect(show.stdout).toContain('[thinking] The person asked something.');
      const md = await runAgent(['sessions', 'export', id, '--format', 'md'], { ws });
      expect(md.stdout).toContain('> **Thinking**');
      expect(loopsWithThinking()).toBeGreaterThanOrEqual(12);
      expect(evs.some((e) => e.type === 'thinking_delta')).toBe(true);
      const results = evs.filter((e) => e.type === 'result') as Array<{ usage?: { thinkingTokens?: number } }>;
      expect(results.every((r) => (r.usage?.thinkingTokens ?? 0) > 0)).toBe(true);
      // --resume and --fork go on from the stored thinking without a binding error
      server.enqueue(...turnReplies(1));
      const resumed = await runAgent(['-p', 'one more', '--continue', '--model', 'claude-sonnet-5-5'], { ws, server, timeoutMs: 60_000 });
      expect(resumed.code).toBe(0);
      server.enqueue(...turnReplies(0));
      const forked = await runAgent(['-p', 'and in a fork', '--continue', '--fork', '--model', 'claude-sonnet-5-5'], { ws, server, timeoutMs: 60_000 });
      expect(forked.code).toBe(0);
      expectNoRefusals();
    },
    240_000,
  );

  itRegimeFree(
    'claude-sonnet-5-5 on a 16K window where micro and auto compaction fire: zero refused requests',
    async () => {
      const model = 'claude-sonnet-5-5';
      const ws = workspace({
        permissions: { mode: 'allow' },
        compaction: { microKeepRecent: 2 },
        models: { [model]: { contextWindow: 16_384, maxOutputTokens: 4_096 } },
      });
      server.settings.contextWindow = { [model]: 16_384, '*': 1_000_000 };
      const { evs } = await session(ws, model);
      expectNoRefusals();
      const applied = records(evs).filter((c) => c.status === 'applied');
      expect(applied.some((c) => c.trigger === 'micro')).toBe(true);
      expect(applied.some((c) => c.trigger === 'auto')).toBe(true);
      expect(loopsWithThinking()).toBeGreaterThanOrEqual(6);
    },
    240_000,
  );

  itRegimeFree(
    'claude-sonnet-4-5 with thinking enabled and a 4,000-token budget works the same way',
    async () => {
      const model = 'claude-sonnet-4-5';
      const ws = workspace({
        permissions: { mode: 'allow' },
        thinking: { mode: 'enabled', budgetTokens: 4_000 },
        models: { [model]: { contextWindow: 16_384, maxOutputTokens: 8_000 } },
      });
      server.settings.contextWindow = { [model]: 16_384, '*': 1_000_000 };
      const { evs } = await session(ws, model);
      expectNoRefusals();
      expect(records(evs).some((c) => c.status === 'applied')).toBe(true);
      expect(loopsWithThinking()).toBeGreaterThanOrEqual(6);
      expect(server.requests.find((q) => q.view && !isSummarizer(q.view))?.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 4_000 } });
    },
    240_000,
  );
});

describe("the suites' own model", () => {
  it('thinks in every suite: adaptive on claude-sonnet-5-5, enabled with a 4,000-token budget on claude-sonnet-4-5 (npm run test:e2e-4-5)', async () => {
    server.enqueue({ text: 'hello' });
    const r = await runAgent(['-p', 'hi'], { ws: workspace(), server });
    expect(r.code, r.stderr).toBe(0);
    const thinking = (server.requests.find((q) => q.view)!.body as { thinking?: unknown }).thinking;
    expect(thinking).toEqual(
      MODEL.anthropic === 'claude-sonnet-4-5' ? { type: 'enabled', budget_tokens: 4_000, display: 'summarized' } : { type: 'adaptive', display: 'summarized' },
    );
  });
});

describe('thinking settings and capabilities', () => {
  // each case names its model and sets its own thinking: the second regime would send the same
  itRegimeFree('refuses a setting the model cannot take up front, naming the setting and the model (exit 2 in -p), with no request sent', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ thinking: { mode: 'off' } }, 'claude-sonnet-5-5', 'thinking.mode: "off" is not supported by claude-sonnet-5-5'],
      [{ thinking: { mode: 'sometimes' } }, 'claude-sonnet-5-5', 'thinking.mode'],
      [{ thinking: { effort: 'xhigh' } }, 'claude-sonnet-4-6', 'thinking.effort: "xhigh" is not supported by claude-sonnet-4-6'],
      [{ thinking: { mode: 'enabled', budgetTokens: 512 } }, 'claude-sonnet-4-5', 'thinking.budgetTokens: 512 is under the minimum of 1024'],
      [
        { maxOutputTokens: 4_000, thinking: { mode: 'enabled', budgetTokens: 4_000 } },
        'claude-sonnet-4-5',
        'thinking.budgetTokens: 4000 is not below the output limit',
      ],
    ];
    for (const [rc, model, message] of cases) {
      const r = await runAgent(['-p', 'hi', '--model', model], { ws: workspace(rc), server });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
    }
    expect(server.requests).toEqual([]);
  });

  it("learns the model's capabilities from the models endpoint once, and reads them from the database after", async () => {
    const ws = workspace();
    server.enqueue({ text: 'one' }, { text: 'two' });
    expect((await runAgent(['-p', 'hi'], { ws, server })).code).toBe(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(server.modelLookups.map((q) => q.path)).toEqual([`/v1/models/${MODEL.anthropic}`]);
    expect((await runAgent(['-p', 'again', '--continue'], { ws, server })).code).toBe(0);
    expect(server.modelLookups).toHaveLength(1);
  });
});

// The 16K sessions end most -p runs with a background compaction due, warmed and swapped in at
// rest. Mutation checked: the warm-up sending the history as it is at rest (ending with the
// model's reply, no user message after it) fails both 16K tests with the API's 400 "a final
// assistant message must start with a thinking block" (and cutting it back to the last user
// message instead reopens a finished tool loop: the same 400 on a tool_use).
