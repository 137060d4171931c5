import { describe, expect, it } from 'vitest';
import { anthropicModelsAsked } from '../fake-server/server.js';
import { MODEL, runAgent, useFakeServer, workspace } from './harness.js';
import { checkedRegimeFree, FIRST_REGIME_MODEL, SECOND_REGIME_MODEL } from './regime.js';

// The regime-free mark is checked, not trusted: a test it lets run once must not have asked the
// fake server for a model the second regime changes.

const server = useFakeServer();

describe('the regime-free check', () => {
  it('the fake server records the Anthropic model each request asked for', async () => {
    const ws = workspace();
    const from = anthropicModelsAsked.length;
    server.enqueue({ text: 'pong' });
    const r = await runAgent(['-p', 'ping'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    // mutation: the server no longer records (test/fake-server/server.ts) → nothing asked
    expect(anthropicModelsAsked.slice(from)).toEqual([MODEL.anthropic]);
  });

  it('fails a test that asked for the first regime’s model, naming it', () => {
    const from = anthropicModelsAsked.length;
    anthropicModelsAsked.push('tiny-16k', FIRST_REGIME_MODEL);
    expect(() => checkedRegimeFree('a test', from)).toThrow(`"a test" is marked regime-free`);
    expect(() => checkedRegimeFree('a test', from)).toThrow(FIRST_REGIME_MODEL);
  });

  it('passes a test that asked only for models of its own', () => {
    const from = anthropicModelsAsked.length;
    anthropicModelsAsked.push('tiny-16k', 'breaker-64k');
    expect(() => checkedRegimeFree('a test', from)).not.toThrow();
  });

  it('counts claude-sonnet-4-5 once a workspace got the suite’s thinking for it (the workspace above did)', () => {
    const from = anthropicModelsAsked.length;
    anthropicModelsAsked.push(SECOND_REGIME_MODEL);
    expect(() => checkedRegimeFree('a test', from)).toThrow(SECOND_REGIME_MODEL);
  });
});
