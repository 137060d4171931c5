import { describe, expect, it } from 'vitest';
import type { Reply } from '../fake-server/server.js';
import { bigFile, records, SUMMARY, turnWith } from './compaction-cases.js';
import { isSummarizer, useFakeServer, workspace } from './inprocess.js';
import { itRegimeFree } from './regime.js';

// Both regimes: the window and output caps the models endpoint gives are the family's.
// What the models endpoint says of a model, applied through the real SDK: its max_input_tokens
// is the context window (compaction fires before the provider's window refuses a request, where
// the built-in table's 200K would let it grow into a 400), its max_tokens caps the replies (a
// configured maxOutputTokens above it is warned about, not sent), and a deprecated model is
// told once at each start, with its dates.

const server = useFakeServer();
const MODEL = 'claude-sonnet-4-5';
const DEPRECATION = `${MODEL} is deprecated since 2026-09-01 (anthropic): it retires on 2027-03-01`;

function reads(t: number): Reply[] {
  return [
    { text: `Reading part ${t}.`, toolCalls: [{ name: 'FileRead', input: { path: `big${t * 3}.txt` } }] },
    { toolCalls: [{ name: 'FileRead', input: { path: `big${t * 3 + 1}.txt` } }] },
    { toolCalls: [{ name: 'FileRead', input: { path: `big${t * 3 + 2}.txt` } }] },
    { text: `Done with part ${t}.` },
  ];
}

const occurrences = (text: string, part: string): number => text.split(part).length - 1;

describe('the limits and lifecycle the models endpoint states', () => {
  itRegimeFree(
    'sizes the window and the replies by them, warns of maxOutputTokens over the limit, and tells a deprecated model at each start',
    async () => {
      server.settings.models = {
        [MODEL]: { maxInput: 24_000, maxOutput: 8_000, lifecycle: 'deprecated', deprecatedAt: '2026-09-01T00:00:00Z', retiresAt: '2027-03-01T00:00:00Z' },
      };
      // no models entry for the model, not even the suite's: the limits must come from the endpoint
      const ws = workspace({ permissions: { mode: 'allow' }, maxOutputTokens: 20_000 }, { suiteThinking: false });
      for (let i = 0; i < 15; i++) bigFile(ws, `big${i}.txt`, 90);
      server.respondWith((req) => (isSummarizer(req.view) ? { text: SUMMARY } : undefined));
      const compactions = [];
      for (let t = 0; t < 5; t++) {
        server.enqueue(...reads(t));
        const r = await turnWith(server, ws, 'anthropic', `part ${t}: read the next files`, t === 0, MODEL);
        expect(r.code).toBe(0);
        expect(occurrences(r.stderr, DEPRECATION)).toBe(1);
        expect(r.stderr).toContain(`maxOutputTokens: 20,000 is above ${MODEL}'s output limit of 8,000 tokens (as its provider describes it)`);
        compactions.push(...records(r.evs));
      }
      // asked once, on the first start; read from the database after
      expect(server.modelLookups.map((q) => q.path)).toEqual([`/v1/models/${MODEL}`]);
      const refused = server.requests.filter((q) => q.response?.status !== 200).map((q) => `${q.response?.status}: ${q.response?.errorMessage ?? ''}`);
      expect(refused).toEqual([]);
      const sizes = server.requests.filter((q) => q.view && !isSummarizer(q.view)).map((q) => q.view!.maxTokens);
      expect(sizes.every((n) => n !== undefined && n <= 8_000)).toBe(true);
      expect(Math.max(...server.requests.map((q) => q.view?.promptTokens ?? 0))).toBeLessThan(24_000);
      expect(compactions.filter((c) => c.status === 'applied').length).toBeGreaterThan(0);
    },
    240_000,
  );

  it('keeps a window set in .agentrc over the stated one', async () => {
    server.settings.models = { [MODEL]: { maxInput: 24_000, maxOutput: 8_000 } };
    server.settings.contextWindow = { [MODEL]: 200_000, '*': 1_000_000 };
    server.settings.outputCaps = { [MODEL]: 64_000 };
    const ws = workspace({ permissions: { mode: 'allow' }, models: { [MODEL]: { contextWindow: 200_000, maxOutputTokens: 16_000 } } });
    for (let i = 0; i < 15; i++) bigFile(ws, `big${i}.txt`, 90);
    server.respondWith((req) => (isSummarizer(req.view) ? { text: SUMMARY } : undefined));
    const compactions = [];
    try {
      for (let t = 0; t < 5; t++) {
        server.enqueue(...reads(t));
        const r = await turnWith(server, ws, 'anthropic', `part ${t}: read the next files`, t === 0, MODEL);
        expect(r.code).toBe(0);
        expect(r.stderr).toBe('');
        compactions.push(...records(r.evs));
      }
    } finally {
      server.settings.outputCaps = {};
    }
    // the person's 200K: nothing to compact, and the replies sized by .agentrc
    expect(compactions).toEqual([]);
    expect(server.requests.filter((q) => q.view && !isSummarizer(q.view)).every((q) => q.view!.maxTokens === 16_000)).toBe(true);
  }, 240_000);
});
