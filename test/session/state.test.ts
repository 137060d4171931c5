import { describe, expect, it } from 'vitest';
import { readState, stateMeta, STATE_VERSION } from '../../src/session/state.js';

describe('the saved session state', () => {
  it('reads what an older build wrote (no version) and writes it back versioned', () => {
    const old = {
      compaction: { version: 1, calibration: {} },
      cost: { 'claude-x': { inputTokens: 10, outputTokens: 2, cacheReadTokens: 1, cacheWriteTokens: 0 } },
      permissions: { tools: ['Bash'] },
    };
    const state = readState(old, 's_1');
    expect(state.version).toBe(STATE_VERSION);
    expect(state.cost['claude-x']).toEqual({ inputTokens: 10, outputTokens: 2, cacheReadTokens: 1, cacheWriteTokens: 0 });
    expect(stateMeta(state)).toEqual({ version: STATE_VERSION, ...old });
  });

  it('drops malformed fields instead of failing, keeping the good ones', () => {
    const state = readState(
      {
        cost: { good: { inputTokens: 5, outputTokens: 1 }, bad: { inputTokens: 'many' }, worse: 7 },
        providerWindow: { model: 'm', tokens: -3 },
        pendingOverflow: { promptTokens: 'x' },
      },
      's_2',
    );
    expect(state.cost).toEqual({ good: { inputTokens: 5, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } });
    expect(state.providerWindow).toBeUndefined();
    expect(state.pendingOverflow).toBeUndefined();
    expect(readState({ providerWindow: { model: 'm', tokens: 8192 }, pendingOverflow: { promptTokens: 9000, limit: 8192 } }, 's_3')).toMatchObject({
      providerWindow: { model: 'm', tokens: 8192 },
      pendingOverflow: { promptTokens: 9000, limit: 8192 },
    });
  });
});
