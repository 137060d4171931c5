import { describe, expect, it } from 'vitest';
import { LONG, records, turnWith } from './compaction-cases.js';
import { isSummarizer, MODEL, runAgent, useFakeServer, type ProviderKind } from './inprocess.js';
import { FACTS, FORGETFUL_SUMMARY, runScenario, scenarioWorkspace } from './ledger-scenario.js';

// Both regimes: the ledger rides after a compaction of a thinking model's turns.
// Issue 37's scenario end to end (the built CLI, the real SDKs, the fake server): with a
// summarizer that keeps nothing, every planted fact is in the first request after /compact,
// because the ledger beside the checkpoint is derived from the log, not from the summary.
// 16 runs of the CLI per case: the time-out is generous for a loaded machine, and a hang
// still fails (each run has its own 60 s time-out).

const server = useFakeServer();

const cases: Array<{ provider: ProviderKind; model: string }> = [
  { provider: 'anthropic', model: MODEL.anthropic },
  { provider: 'openai', model: 'gpt-5.4' },
];

describe('the working-state ledger after /compact with a summarizer that keeps nothing', () => {
  for (const { provider, model } of cases) {
    it(`carries all ${FACTS.length} facts into the first request, under 14,000 tokens (${provider}, ${model})`, async () => {
      const ws = scenarioWorkspace();
      const r = await runScenario(server, provider, model, ws, () => FORGETFUL_SUMMARY);
      expect(r.codes.every((c) => c === 0)).toBe(true);
      // mutation: compaction.ledger false (or no ledger block in the checkpoint) loses the rules, the error and the older requests
      expect(r.carried.map((f) => f.name)).toEqual(FACTS.map((f) => f.name));
      expect(r.first.promptTokens).toBeLessThan(14_000);
      console.log(`${provider} ${model}: ${r.carried.length}/${FACTS.length} facts, first request ${r.first.promptTokens} tokens`);
    }, 300_000);
  }

  it('without the ledger (compaction.ledger false) the same summary loses facts: the probe can fail', async () => {
    const ws = scenarioWorkspace({ compaction: { ledger: false } });
    const r = await runScenario(server, 'anthropic', MODEL.anthropic, ws, () => FORGETFUL_SUMMARY);
    expect(r.codes.every((c) => c === 0)).toBe(true);
    expect(r.carried.length).toBeLessThan(FACTS.length);
    console.log(
      `without the ledger: ${r.carried.length}/${FACTS.length} facts (${r.carried.map((f) => f.name).join('; ')}), first request ${r.first.promptTokens} tokens`,
    );
  }, 300_000);
});

describe("the summary's probes end to end", () => {
  it('a summary that omits a modified file gets one retry naming it, then the appendix restores it; the probes are stored with the record', async () => {
    const ws = scenarioWorkspace();
    const model = MODEL.anthropic;
    // the summarizer never names the file, however often it is asked
    server.respondWith((req) => (req.view && isSummarizer(req.view) ? { text: '## Goal\nThe payments client.\n\n## Next Steps\nGo on.' } : undefined));
    server.enqueue({ toolCalls: [{ name: 'Write', input: { path: 'src/retry-client.ts', content: 'export const retries = 3;\n' } }] }, { text: 'Written.' });
    expect((await turnWith(server, ws, 'anthropic', 'Write the retry client.', true, model)).code).toBe(0);
    for (let t = 0; t < 4; t++) {
      server.enqueue({ text: `answer ${t}. ${LONG}` });
      expect((await turnWith(server, ws, 'anthropic', `question ${t}`, false, model)).code).toBe(0);
    }
    const before = server.requests.length;
    const r = await turnWith(server, ws, 'anthropic', '/compact', false, model);
    expect(r.code).toBe(0);
    const asked = server.requests.slice(before).filter((q) => q.view && isSummarizer(q.view));
    // mutation: no retry (or a retry that does not say what is missing) fails here
    expect(asked).toHaveLength(2);
    expect(JSON.stringify(asked[1]!.view!.messages)).toContain('the modified file: src/retry-client.ts');
    const [record] = records(r.evs).filter((c) => c.status === 'applied');
    expect(record!.summary).toContain('## Omitted by the summary');
    expect(record!.summary).toContain('- Modified file: src/retry-client.ts');
    expect(record!.report?.probes).toMatchObject({
      retried: true,
      missed: [{ kind: 'modified', fact: 'src/retry-client.ts' }],
      omitted: [{ kind: 'modified', fact: 'src/retry-client.ts' }],
    });
    // the events stream carries the report, `agent sessions show` prints it
    const report = r.evs.find((e) => e.type === 'compaction_report') as { report?: string[] } | undefined;
    expect(report?.report?.join('\n')).toContain('Omitted by the summary, restored from the log by its appendix: src/retry-client.ts');
    const sessionId = String((r.evs.at(-1) as { sessionId?: string }).sessionId);
    const show = await runAgent(['sessions', 'show', sessionId], { ws });
    expect(show.stdout).toContain('## Compactions (1)');
    expect(show.stdout).toContain("The summary's check: 1 fact probed".replace('1 fact', `${record!.report!.probes!.probed} facts`));
    expect(show.stdout).toContain('Undo: /uncompact');
    // the next request carries the appendix in the checkpoint
    server.enqueue({ text: 'ok' });
    expect((await turnWith(server, ws, 'anthropic', 'go on', false, model)).code).toBe(0);
    const next = server.requests.at(-1)!.view!;
    expect(JSON.stringify(next.messages[0])).toContain('Modified file: src/retry-client.ts');
  }, 300_000);
});
