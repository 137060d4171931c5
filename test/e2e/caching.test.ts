import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CompactionRecord } from '../../src/history/compaction.js';
import type { RecordedRequest } from '../fake-server/server.js';
import { isSummarizer, jsonResult, runAgent, useFakeServer, workspace, type ProviderKind, type Workspace } from './inprocess.js';
import { describeEachProvider, itRegimeFree } from './regime.js';

// Both regimes: the cached prefix holds thinking blocks, whose form the model family sets.
// Prompt caching end to end: the built CLI, the real SDKs, the fake server simulating both
// providers' caches from their documented rules. Every turn is a separate `-p --continue`
// process, so every turn is also a resume that must rebuild a byte-identical prefix.

const server = useFakeServer();
const MODEL: Record<ProviderKind, string> = { anthropic: 'claude-sonnet-4-5', openai: 'gpt-4o' };

interface Ev {
  type: string;
  record?: CompactionRecord;
  usage?: { tokens: number };
}

async function turn(ws: Workspace, provider: ProviderKind, prompt: string, first: boolean, model = MODEL[provider]): Promise<Ev[]> {
  const r = await runAgent(['-p', prompt, '--output-format', 'events', '--model', model, ...(first ? [] : ['--continue'])], {
    ws,
    server,
    provider,
    timeoutMs: 60_000,
  });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Ev);
}

const total = (q: RecordedRequest): number => q.usage!.inputTokens + q.usage!.cacheReadTokens + q.usage!.cacheWriteTokens;
const readShare = (qs: RecordedRequest[]): number => qs.reduce((n, q) => n + q.usage!.cacheReadTokens, 0) / qs.reduce((n, q) => n + total(q), 0);
const withoutMarks = (v: unknown): string => JSON.stringify(v, (k, x: unknown) => (k === 'cache_control' ? undefined : x));

function files(ws: Workspace, n: number): void {
  for (let i = 0; i < n; i++) {
    const body = Array.from({ length: 30 }, (_, l) => `module ${i} line ${l}: export const value${l} = compute(${l * i}, "the quick brown fox");`).join('\n');
    writeFileSync(join(ws.dir, `mod${i}.ts`), `${body}\n`);
  }
}

describeEachProvider('prompt caching with %s', (provider) => {
  // its own model, without the suite's thinking: the same in both regimes
  itRegimeFree(
    'reads at least 90% of the input of a 30-turn session with tool calls from the cache, each resume hitting the prefix the last turn wrote',
    async () => {
      // exact reads: without the suite's 4.5 thinking, whose finished turns the API strips (a shorter prefix than was written)
      const ws = workspace({ cache: { promptCacheKey: true } }, { suiteThinking: false });
      files(ws, 30);
      const sessionIds = new Set<string>();
      for (let t = 0; t < 30; t++) {
        server.enqueue(
          { text: `Reading mod${t}.ts.`, toolCalls: [{ name: 'FileRead', input: { path: `mod${t}.ts` } }] },
          { text: `mod${t}.ts computes thirty values.` },
        );
        const evs = await turn(ws, provider, `what does mod${t}.ts do?`, t === 0);
        expect(evs.filter((e) => e.type === 'error')).toEqual([]);
        const result = evs.at(-1) as unknown as { sessionId: string };
        sessionIds.add(result.sessionId);
      }
      expect(sessionIds.size).toBe(1);
      const reqs = server.requests.filter((q) => q.view && q.usage);
      expect(reqs).toHaveLength(60);
      const share = readShare(reqs);
      expect(share).toBeGreaterThanOrEqual(0.9);
      // every resumed turn (a new process) reads what the previous turn's last request sent
      for (let t = 1; t < 30; t++) {
        const previous = reqs[2 * t - 1]!;
        const first = reqs[2 * t]!;
        if (provider === 'anthropic') {
          expect(first.usage!.cacheReadTokens).toBe(total(previous));
          const [a, b] = [previous.body as Record<string, unknown>, first.body as Record<string, unknown>];
          expect(withoutMarks(b.system)).toBe(withoutMarks(a.system));
          expect(withoutMarks(b.tools)).toBe(withoutMarks(a.tools));
          const prefix = (a.messages as unknown[]).length;
          expect(withoutMarks((b.messages as unknown[]).slice(0, prefix))).toBe(withoutMarks(a.messages));
        } else {
          expect(total(previous) - first.usage!.cacheReadTokens).toBeLessThan(128);
          expect((first.body as { prompt_cache_key?: string }).prompt_cache_key).toBe([...sessionIds][0]);
        }
      }
      console.log(`[caching e2e] ${provider}: ${reqs.length} requests, ${(share * 100).toFixed(1)}% of input read from cache`);
    },
    300_000,
  );

  it('the session model’s compaction summary is mostly a cache read', async () => {
    const ws = workspace();
    files(ws, 6);
    server.respondWith((req) => (isSummarizer(req.view) ? { text: '## Goal\nRead the modules.\n## Next Steps\nKeep reading.' } : undefined));
    for (let t = 0; t < 6; t++) {
      server.enqueue({ toolCalls: [{ name: 'FileRead', input: { path: `mod${t}.ts` } }] }, { text: `mod${t}.ts is read.` });
      await turn(ws, provider, `read mod${t}.ts`, t === 0);
    }
    const evs = await turn(ws, provider, '/compact', false);
    expect(evs.filter((e) => e.type === 'compaction_end').map((e) => e.record!.status)).toEqual(['applied']);
    const summaries = server.requests.filter((q) => q.view && isSummarizer(q.view));
    expect(summaries).toHaveLength(1);
    const s = summaries[0]!;
    expect(s.view!.system).not.toContain('context checkpoints');
    expect(s.usage!.cacheReadTokens / total(s)).toBeGreaterThan(0.8);
    console.log(`[caching e2e] ${provider}: summary request read ${((s.usage!.cacheReadTokens / total(s)) * 100).toFixed(1)}% from cache`);
  }, 120_000);
});

describe('cost with caching', () => {
  it('-p --output-format events and /cost show cache reads and writes and price them', async () => {
    const ws = workspace();
    const json = async (prompt: string, first: boolean): Promise<Record<string, unknown>> => {
      // priced as claude-sonnet-4-5 below, whatever model the suite runs
      const r = await runAgent(['-p', prompt, '--output-format', 'events', '--model', 'claude-sonnet-4-5', ...(first ? [] : ['--continue'])], {
        ws,
        server,
        provider: 'anthropic',
      });
      expect(r.code).toBe(0);
      return jsonResult(r);
    };
    server.enqueue({ text: 'first answer' }, { text: 'second answer' });
    const one = await json('hello', true);
    expect(one.usage).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: expect.any(Number) });
    expect((one.usage as { cacheWriteTokens: number }).cacheWriteTokens).toBeGreaterThan(1_000);
    const two = await json('and again', false);
    const usage = two.usage as { inputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };
    expect(usage.cacheReadTokens).toBe((one.usage as { cacheWriteTokens: number }).cacheWriteTokens);
    // claude-sonnet-4-5: $3 per million input, reads at 0.1×, writes at 1.25×
    const cost = two.cost as { input: number; cacheRead: number; cacheWrite: number };
    expect(cost.cacheRead).toBeCloseTo((usage.cacheReadTokens * 0.3) / 1e6, 9);
    expect(cost.cacheWrite).toBeCloseTo((usage.cacheWriteTokens * 3.75) / 1e6, 9);
    expect(two.costUsd).toBeGreaterThan(0);
    const r = await runAgent(['-p', '/cost', '--continue'], { ws, server, provider: 'anthropic' });
    expect(r.stdout).toMatch(/cache read, [\d,]+ cache write/);
    expect(r.stdout).toMatch(/cache read \$\d\.\d{4}, cache write \$\d\.\d{4}/);
  }, 60_000);
});

describeEachProvider('accounting with caching on and off (%s)', (provider) => {
  // a model of its own (tiny-16k): the same in both regimes
  itRegimeFree(
    'the gauge and auto compaction behave the same on a 16K window, with no overflow reaching the user',
    async () => {
      const model = 'tiny-16k';
      const LONG = 'This answer describes the module layout, its exports and how the tests exercise them in detail. '.repeat(40);
      const ws = workspace();
      const runSession = async (enabled: boolean) => {
        server.clear();
        server.settings.contextWindow = { [model]: 16_384, '*': 1_000_000 };
        server.respondWith((req) => (isSummarizer(req.view) ? { text: '## Goal\nDescribe the modules.\n## Next Steps\nGo on.' } : undefined));
        // the same directory for both runs: it is part of the system prompt
        writeFileSync(
          join(ws.dir, '.agentrc'),
          JSON.stringify({
            retry: { baseDelayMs: 5, maxDelayMs: 50 },
            cache: { enabled },
            models: { [model]: { contextWindow: 16_384, maxOutputTokens: 2_048, provider } },
          }),
        );
        const gauge: number[] = [];
        const compactions: string[] = [];
        for (let t = 0; t < 16; t++) {
          server.enqueue({ text: `answer ${t}. ${LONG}` });
          const evs = await turn(ws, provider, `describe part ${t}`, t === 0, model);
          expect(evs.filter((e) => e.type === 'error')).toEqual([]);
          for (const e of evs) {
            if (e.type === 'context') gauge.push(e.usage!.tokens);
            if (e.type === 'compaction_end') compactions.push(`${t}:${e.record!.trigger}:${e.record!.status}`);
          }
        }
        const turns = server.requests.filter((q) => q.view && !isSummarizer(q.view));
        expect(turns.every((q) => q.response?.status === 200)).toBe(true);
        return {
          gauge,
          compactions,
          read: turns.reduce((n, q) => n + (q.usage?.cacheReadTokens ?? 0), 0),
          max: Math.max(...turns.map((q) => q.view!.promptTokens)),
        };
      };
      const on = await runSession(true);
      const off = await runSession(false);
      expect(on.read, JSON.stringify(on)).toBeGreaterThan(0);
      // OpenAI caches on its own whatever the client sends; Anthropic only at breakpoints
      if (provider === 'anthropic') expect(off.read).toBe(0);
      expect(on.compactions.filter((c) => c.includes(':auto:applied')).length).toBeGreaterThan(0);
      expect(on.compactions).toEqual(off.compactions);
      // the same figures but for random ids, each a few tokens longer or shorter (the checkpoint's
      // compaction id, and the working-state ledger's Recall ids of the person's messages, one per
      // message, up to 16 here: a CI run saw 13 tokens apart at 5,071). Caching counted into the
      // gauge would put them thousands apart.
      expect(on.gauge).toHaveLength(off.gauge.length);
      on.gauge.forEach((g, i) => expect(Math.abs(g - off.gauge[i]!), `gauge #${i}: ${g} vs ${off.gauge[i]}`).toBeLessThanOrEqual(Math.max(4, g * 0.01)));
      expect(on.max).toBeLessThanOrEqual(16_384);
    },
    300_000,
  );
});
