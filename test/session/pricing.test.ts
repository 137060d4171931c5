import { describe, expect, it } from 'vitest';
import { costBreakdown } from '../../src/session/pricing.js';

const M = 1_000_000;

describe('pricing with the prompt cache', () => {
  it('prices Anthropic cache writes at 1.25× input (5m) or 2× (1h) and reads at 0.1×', () => {
    const c = costBreakdown('claude-sonnet-4-5', { inputTokens: M, outputTokens: 0, cacheReadTokens: M, cacheWriteTokens: 2 * M, cacheWrite1hTokens: M })!;
    expect(c.input).toBeCloseTo(3);
    expect(c.cacheRead).toBeCloseTo(0.3);
    expect(c.cacheWrite).toBeCloseTo(3 * 1.25 + 3 * 2);
    expect(c.total).toBeCloseTo(3 + 0.3 + 3.75 + 6);
  });

  it('prices OpenAI cached input at the model’s own cached rate, and knows no price for local models', () => {
    expect(costBreakdown('gpt-4o', { inputTokens: 0, outputTokens: 0, cacheReadTokens: M, cacheWriteTokens: 0 })!.cacheRead).toBeCloseTo(1.25);
    expect(costBreakdown('gpt-5', { inputTokens: 0, outputTokens: 0, cacheReadTokens: M, cacheWriteTokens: 0 })!.cacheRead).toBeCloseTo(0.125);
    expect(costBreakdown('qwen2.5-coder:7b', { inputTokens: M, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 })).toBeUndefined();
  });
});
