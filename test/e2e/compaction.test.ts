import { describe, expect, it } from 'vitest';
import type { CompactionRecord } from '../../src/history/compaction.js';
import { compactionCases, LONG, records, SUMMARY, turnWith } from './compaction-cases.js';
import { workspace, type ProviderKind, type Workspace, useFakeServer, isSummarizer } from './inprocess.js';
import { describeRegimeFree } from './regime.js';

// Both regimes: a summary and the history it replaces carry thinking blocks of the family's form.
// Compaction end to end: the built CLI, the real SDKs, the fake server enforcing a small
// context window with the real overflow errors. The OpenAI cases: compaction-openai.test.ts.

const server = useFakeServer();
const turn = (ws: Workspace, provider: ProviderKind, prompt: string, first: boolean, model: string) => turnWith(server, ws, provider, prompt, first, model);

describe('compaction with anthropic', () => compactionCases(server, 'anthropic'));

describeRegimeFree('silent truncation by an OpenAI-compatible server (Ollama)', () => {
  it('notices a server that truncates instead of failing, tells the user, adopts its window and compacts', async () => {
    const model = 'llama-local';
    // the person believes the model has 32K; the server (num_ctx) keeps 7,000 and says nothing (the
    // system prompt and the tools alone take about 4,100 tokens)
    const ws = workspace({ models: { [model]: { contextWindow: 32_768, maxOutputTokens: 2_048, provider: 'openai' } } });
    server.settings.contextWindow = { [model]: 7_000 };
    server.settings.overflow = 'ollama_silent';
    server.respondWith((req) => (isSummarizer(req.view) ? { text: SUMMARY } : undefined));
    const notices: string[] = [];
    let compacted: CompactionRecord[] = [];
    try {
      for (let t = 0; t < 8; t++) {
        server.enqueue({ text: `answer ${t}. ${LONG.repeat(3)}` });
        const r = await turn(ws, 'openai', `question ${t}`, t === 0, model);
        expect(r.code).toBe(0);
        notices.push(...r.evs.filter((e) => e.type === 'notice').map((e) => e.text ?? ''));
        compacted = compacted.concat(records(r.evs).filter((c) => c.status === 'applied'));
      }
    } finally {
      server.settings.overflow = 'openai';
    }
    expect(notices.join('\n')).toMatch(/truncating the prompt|dropped the start/);
    expect(notices.join('\n')).toMatch(/7,000-token context window/);
    expect(compacted.length).toBeGreaterThan(0);
    // after adapting, requests fit the server's real window again
    const last = server.requests.filter((q) => q.view && !isSummarizer(q.view)).at(-1)!;
    expect(last.view!.truncated ?? false).toBe(false);
    expect(last.view!.promptTokens).toBeLessThanOrEqual(7_000);
  }, 120_000); // eight runs of the CLI
});
