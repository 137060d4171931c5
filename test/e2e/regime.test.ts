import { describe, expect, it } from 'vitest';
import { anthropicModelsAsked } from '../fake-server/server.js';
import { MODEL, runAgent, useFakeServer, workspace } from './inprocess.js';
import { checkedRegimeBound, checkedRegimeFree, itRegimeFree, regimeMark, SECOND_REGIME, SECOND_REGIME_MODEL } from './regime.js';

// Both regimes: it tests the regime mark itself, which means something only where both regimes run.
// The regime-free mark is checked, not trusted: a test it lets run once must not have used what
// the second regime changes (MODEL.anthropic; claude-sonnet-4-5 in a suite workspace).

const server = useFakeServer();

describe('the regime-free check', () => {
  itRegimeFree('passes a test that used only models of its own, even claude-sonnet-5-5 by name', async () => {
    const ws = workspace();
    const mark = regimeMark();
    server.enqueue({ text: 'pong' });
    const r = await runAgent(['-p', 'ping', '--model', 'claude-sonnet-5-5'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    // mutation: the fake server no longer records the models asked for (test/fake-server/server.ts)
    expect(anthropicModelsAsked.slice(mark.asked)).toEqual(['claude-sonnet-5-5']);
    expect(() => checkedRegimeFree('a test', mark)).not.toThrow();
  });

  it('fails a test that ran the suite’s model (runAgent reads MODEL.anthropic when no model is named), naming it', async () => {
    const ws = workspace();
    const mark = regimeMark();
    server.enqueue({ text: 'pong' });
    expect((await runAgent(['-p', 'ping'], { ws, server })).code).toBe(0);
    // mutation: MODEL.anthropic a plain value again (harness.ts) → the read goes unnoticed
    expect(() => checkedRegimeFree('a test', mark)).toThrow(`"a test" is marked regime-free`);
    expect(() => checkedRegimeFree('a test', mark)).toThrow(`MODEL.anthropic (${MODEL.anthropic})`);
  });

  it('fails a test that asked for claude-sonnet-4-5 after making a workspace with the suite’s thinking', () => {
    const mark = regimeMark();
    workspace({ thinking: { mode: 'enabled', budgetTokens: 4_000 } }); // a thinking setting of its own: no suite thinking
    anthropicModelsAsked.push(SECOND_REGIME_MODEL);
    expect(() => checkedRegimeFree('a test', mark)).not.toThrow();
    workspace(); // the suite's thinking (for claude-sonnet-4-5 in the second regime)
    // mutation: the suite workspace not noted (harness.ts workspace) → passes
    expect(() => checkedRegimeFree('a test', mark)).toThrow(SECOND_REGIME_MODEL);
  });
});

describe("the second regime's check", () => {
  it("fails a test that ran again in the second regime but used nothing the regime changes, and passes one that read the suite's model", () => {
    const mark = regimeMark();
    // mutation: checkedRegimeBound never throws (regime.ts) → the second regime's run of this test fails
    if (SECOND_REGIME) expect(() => checkedRegimeBound('a test', mark)).toThrow(`"a test" ran again in the second regime`);
    else expect(() => checkedRegimeBound('a test', mark)).not.toThrow();
    expect(MODEL.anthropic).toBe(SECOND_REGIME ? SECOND_REGIME_MODEL : 'claude-sonnet-5-5');
    expect(() => checkedRegimeBound('a test', mark)).not.toThrow();
  });
});
