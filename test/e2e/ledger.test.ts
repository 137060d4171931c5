import { describe, expect, it } from 'vitest';
import { MODEL, useFakeServer, type ProviderKind } from './harness.js';
import { FACTS, FORGETFUL_SUMMARY, runScenario, scenarioWorkspace } from './ledger-scenario.js';

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
