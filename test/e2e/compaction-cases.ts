import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { CompactionRecord } from '../../src/history/compaction.js';
import type { FakeServer, Reply } from '../fake-server/server.js';
import { KEY, runAgent, workspace, type ProviderKind, type Workspace, isSummarizer } from './inprocess.js';
import { itRegimeFree } from './regime.js';

// The compaction end-to-end cases, run once per provider by compaction.test.ts (Anthropic) and
// compaction-openai.test.ts (OpenAI): two files, so that the suite runs them side by side.

export const SUMMARY = '## Goal\nRead the big files.\n## Next Steps\nKeep reading.';
export const LONG = 'This answer goes on at some length about the files and what they contain. '.repeat(30);

export interface StreamEvent {
  type: string;
  record?: CompactionRecord;
  level?: string;
  text?: string;
  kind?: string;
  message?: string;
}

export function events(stdout: string): StreamEvent[] {
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as StreamEvent);
}

export const records = (evs: StreamEvent[]): CompactionRecord[] => evs.filter((e) => e.type === 'compaction_end').map((e) => e.record!);

/** One print-mode turn with --output-format events against `server`; returns the events. */
export async function turnWith(
  server: FakeServer,
  ws: Workspace,
  provider: ProviderKind,
  prompt: string,
  first: boolean,
  model: string,
): Promise<{ code: number | null; evs: StreamEvent[]; stderr: string }> {
  const r = await runAgent(['-p', prompt, '--output-format', 'events', '--model', model, ...(first ? [] : ['--continue'])], {
    ws,
    server,
    provider,
    timeoutMs: 60_000,
  });
  return { code: r.code, evs: events(r.stdout), stderr: r.stderr };
}

export function bigFile(ws: Workspace, name: string, lines: number): void {
  const body = Array.from({ length: lines }, (_, i) => `${name} line ${i}: the quick brown fox jumps over the lazy dog ${i * 7}`).join('\n');
  writeFileSync(join(ws.dir, name), `${body}\n`);
}

/** The cases of one provider, against the file's fake server. */
export function compactionCases(server: FakeServer, provider: ProviderKind): void {
  const turn = (ws: Workspace, p: ProviderKind, prompt: string, first: boolean, model: string) => turnWith(server, ws, p, prompt, first, model);
  // models of their own (an 8K and a 64K window): the same in both regimes
  itRegimeFree('keeps a long tool-heavy session on an 8K window going with no overflow reaching the user', async () => {
    const model = 'tiny-8k';
    const ws = workspace({ models: { [model]: { contextWindow: 8192, maxOutputTokens: 1024, provider } } });
    server.settings.contextWindow = { [model]: 8192, '*': 1_000_000 };
    for (let i = 0; i < 12; i++) bigFile(ws, `big${i}.txt`, 60);
    server.respondWith((req) => (isSummarizer(req.view) ? { text: SUMMARY } : undefined));
    const all: StreamEvent[] = [];
    for (let t = 0; t < 4; t++) {
      server.enqueue(
        { text: `Reading part ${t}.`, toolCalls: [{ name: 'FileRead', input: { path: `big${t * 3}.txt` } }] },
        { toolCalls: [{ name: 'FileRead', input: { path: `big${t * 3 + 1}.txt` } }] },
        { toolCalls: [{ name: 'Grep', input: { pattern: 'fox jumps', path: `big${t * 3 + 2}.txt`, outputMode: 'lines' } }] },
        { text: `Done with part ${t}.` },
      );
      const r = await turn(ws, provider, `read part ${t} of the big files`, t === 0, model);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.evs.filter((e) => e.type === 'error')).toEqual([]);
      expect(r.evs.at(-1)).toMatchObject({ type: 'result', result: `Done with part ${t}.`, isError: false });
      all.push(...r.evs);
    }
    const applied = records(all).filter((c) => c.status === 'applied');
    expect(applied.length).toBeGreaterThan(0);
    expect(applied.some((c) => c.trigger === 'micro' || c.trigger === 'auto')).toBe(true);
    // the window was never exceeded: every model request fit and got a 200
    const normal = server.requests.filter((q) => q.view && !isSummarizer(q.view));
    expect(normal.every((q) => q.response?.status === 200)).toBe(true);
    expect(Math.max(...normal.map((q) => q.view!.promptTokens))).toBeLessThanOrEqual(8192);
  });

  it('compacts and retries when the provider says the prompt is too long', async () => {
    const ws = workspace();
    server.respondWith((req) => (isSummarizer(req.view) ? { text: SUMMARY } : undefined));
    const model = provider === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-4o';
    for (let t = 0; t < 5; t++) {
      server.enqueue({ text: `answer ${t}. ${LONG.repeat(4)}` });
      expect((await turn(ws, provider, `question ${t}`, t === 0, model)).code).toBe(0);
    }
    // the provider's window is now smaller than the conversation: the real overflow error
    const size = server.requests.at(-1)!.view!.promptTokens;
    server.settings.contextWindow = { [model]: size - 1000, '*': 1_000_000 };
    server.enqueue({ text: 'Answered after compaction.' });
    const r = await turn(ws, provider, 'one more question', false, model);
    expect(r.code).toBe(0);
    expect(r.evs.at(-1)).toMatchObject({ type: 'result', result: 'Answered after compaction.', isError: false });
    const reactive = records(r.evs).filter((c) => c.trigger === 'reactive');
    expect(reactive.map((c) => c.status)).toContain('applied');
    const statuses = server.requests.filter((q) => q.view && !isSummarizer(q.view)).map((q) => q.response?.status);
    expect(statuses.slice(-2)).toEqual([400, 200]);
    const retried = server.requests.at(-1)!.view!;
    expect(JSON.stringify(retried.messages[0])).toContain('Read the big files.');
  });

  it('sends the focus of /compact to the summarizer', async () => {
    const ws = workspace();
    server.respondWith((req) => (isSummarizer(req.view) ? { text: SUMMARY } : undefined));
    const model = provider === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-4o';
    for (let t = 0; t < 5; t++) {
      server.enqueue({ text: `answer ${t}. ${LONG}` });
      expect((await turn(ws, provider, `question ${t}`, t === 0, model)).code).toBe(0);
    }
    const r = await turn(ws, provider, '/compact focus: keep the database schema decisions', false, model);
    expect(r.code).toBe(0);
    const summarizer = server.requests.filter((q) => q.view && isSummarizer(q.view));
    expect(summarizer).toHaveLength(1);
    expect(JSON.stringify(summarizer[0]!.view!.messages)).toContain('keep the database schema decisions');
    expect(records(r.evs)).toMatchObject([{ trigger: 'manual', status: 'applied', focus: 'keep the database schema decisions' }]);
  });

  it('retries an overloaded summarizer instead of failing the compaction', async () => {
    const ws = workspace();
    let summaries = 0;
    server.respondWith((req) => (isSummarizer(req.view) ? (summaries++ === 0 ? { type: 'error', error: 'overloaded' } : { text: SUMMARY }) : undefined));
    const model = provider === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-4o';
    for (let t = 0; t < 4; t++) {
      server.enqueue({ text: `answer ${t}. ${LONG}` });
      expect((await turn(ws, provider, `question ${t}`, t === 0, model)).code).toBe(0);
    }
    const r = await turn(ws, provider, '/compact', false, model);
    expect(r.code).toBe(0);
    expect(records(r.evs)).toMatchObject([{ trigger: 'manual', status: 'applied' }]);
    const statuses = server.requests.filter((q) => q.view && isSummarizer(q.view)).map((q) => q.response?.status);
    expect(statuses).toEqual([provider === 'anthropic' ? 529 : 503, 200]);
    const stages = r.evs.filter((e) => e.type === 'compaction_progress').map((e) => (e as { stage?: string }).stage ?? '');
    expect(stages.some((s) => /summarizer's request failed \(overloaded\): retrying in/.test(s))).toBe(true);
  });

  it("summarizes with a compaction.model of the other provider, with that provider's key", async () => {
    const other: ProviderKind = provider === 'anthropic' ? 'openai' : 'anthropic';
    const summarizerModel = other === 'openai' ? 'gpt-4o-mini' : 'claude-haiku-4-5';
    const ws = workspace({ compaction: { model: summarizerModel } });
    const otherEnv =
      other === 'openai'
        ? { OPENAI_API_KEY: KEY.openai, OPENAI_BASE_URL: server.openaiBaseURL }
        : { ANTHROPIC_API_KEY: KEY.anthropic, ANTHROPIC_BASE_URL: server.anthropicBaseURL };
    server.respondWith((req) => (isSummarizer(req.view) ? { text: SUMMARY } : undefined));
    const model = provider === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-4o';
    for (let t = 0; t < 4; t++) {
      server.enqueue({ text: `answer ${t}. ${LONG}` });
      const r = await runAgent(['-p', `question ${t}`, '--model', model, ...(t ? ['--continue'] : [])], { ws, server, provider, env: otherEnv });
      expect(r.code).toBe(0);
    }
    const r = await runAgent(['-p', '/compact', '--output-format', 'events', '--model', model, '--continue'], { ws, server, provider, env: otherEnv });
    expect(r.code).toBe(0);
    expect(records(events(r.stdout))).toMatchObject([{ trigger: 'manual', status: 'applied', model: summarizerModel }]);
    const summaries = server.requests.filter((q) => q.view && isSummarizer(q.view));
    expect(summaries.map((q) => [q.provider, q.view!.model])).toEqual([[other, summarizerModel]]);
    expect(server.requests.filter((q) => q.view && !isSummarizer(q.view)).every((q) => q.provider === provider)).toBe(true);

    // without that provider's key the session does not start, and says which setting needs it
    const keyVar = other === 'openai' ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY';
    const missing = await runAgent(['-p', 'more', '--model', model, '--continue'], { ws, server, provider });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`compaction.model "${summarizerModel}" is served by ${other}, and there is no API key for ${other}: set ${keyVar}`);
  });

  itRegimeFree(
    'trips the circuit breaker after three failed auto compactions and stops trying',
    async () => {
      // big buffers (scaled to 40% of the window) bring auto compaction early: three failures and two more turns fit before the window fills
      const model = 'breaker-64k';
      const ws = workspace({
        models: { [model]: { contextWindow: 65_536, maxOutputTokens: 1024, provider } },
        compaction: { autoBufferTokens: 40_000, warningBufferTokens: 45_000, microBufferTokens: 45_000 },
      });
      server.respondWith((req) => (isSummarizer(req.view) ? { type: 'error', error: 'invalid_request', message: 'summaries are broken today' } : undefined));
      const failures: CompactionRecord[] = [];
      const notices: string[] = [];
      let summarizerCallsAfterBreaker = -1;
      for (let t = 0; t < 11; t++) {
        server.enqueue({ text: `answer ${t}. ${LONG.repeat(12)}` });
        const r = await turn(ws, provider, `question ${t}`, t === 0, model);
        expect(r.code).toBe(0);
        failures.push(...records(r.evs).filter((c) => c.trigger === 'auto' && c.status === 'failed'));
        notices.push(...r.evs.filter((e) => e.type === 'compaction_skipped' || e.type === 'notice').map((e) => `${e.type}: ${e.text ?? JSON.stringify(e)}`));
        if (failures.length >= 3 && summarizerCallsAfterBreaker < 0)
          summarizerCallsAfterBreaker = server.requests.filter((q) => q.view && isSummarizer(q.view)).length;
      }
      expect(failures).toHaveLength(3);
      expect(failures[0]!.reason).toContain('summaries are broken today');
      expect(notices.join('\n')).toMatch(/circuit breaker|stopped|failed 3 times/i);
      // no summarizer request after the breaker opened
      expect(server.requests.filter((q) => q.view && isSummarizer(q.view)).length).toBe(summarizerCallsAfterBreaker);
    },
    120_000,
  ); // eleven runs of the CLI, on a loaded 2-core machine

  it('falls back down the chain to a metadata-only checkpoint when every summary request overflows', async () => {
    const ws = workspace();
    const model = provider === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-4o';
    bigFile(ws, 'a.txt', 80);
    server.enqueue({ toolCalls: [{ name: 'FileRead', input: { path: 'a.txt' } }] }, { text: `read it. ${LONG}` });
    expect((await turn(ws, provider, 'read a.txt', true, model)).code).toBe(0);
    for (let t = 0; t < 4; t++) {
      server.enqueue({ text: `answer ${t}. ${LONG}` });
      expect((await turn(ws, provider, `question ${t}`, false, model)).code).toBe(0);
    }
    const overflow: Reply = { type: 'error', error: 'overflow', promptTokens: 900_000, limit: 200_000 };
    server.respondWith((req) => (isSummarizer(req.view) ? overflow : undefined));
    const r = await turn(ws, provider, '/compact', false, model);
    expect(r.code).toBe(0);
    const [rec] = records(r.evs);
    expect(rec).toMatchObject({ trigger: 'manual', status: 'applied', method: 'metadata' });
    const attempts = server.requests.filter((q) => q.view && isSummarizer(q.view)).map((q) => q.view!.promptTokens);
    expect(attempts.length).toBeGreaterThanOrEqual(5);
    expect(attempts.at(-1)!).toBeLessThan(attempts[0]!);
    // the session goes on from the metadata checkpoint
    server.respondWith(undefined);
    server.enqueue({ text: 'still here' });
    const next = await turn(ws, provider, 'and now?', false, model);
    expect(next.evs.at(-1)).toMatchObject({ result: 'still here', isError: false });
  });
}
