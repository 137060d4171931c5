import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/llm/errors.js';
import { nextRetryDelayMs } from '../../src/llm/retry.js';

const policy = { maxAttempts: 4, baseDelayMs: 1_000, maxDelayMs: 30_000 };
const rateLimited = (retryAfterMs?: number): ProviderError =>
  new ProviderError({ kind: 'rate_limit', provider: 'anthropic', message: '429', status: 429, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });

describe('retry delays', () => {
  it("follows the server's retry-after, capped by maxDelayMs (a bogus header cannot stall a turn for an hour)", () => {
    expect(nextRetryDelayMs(rateLimited(7_000), 1, policy)).toBe(7_000);
    expect(nextRetryDelayMs(rateLimited(3_600_000), 1, policy)).toBe(30_000);
    expect(nextRetryDelayMs(rateLimited(3_600_000), 1, { ...policy, maxDelayMs: 5_000 })).toBe(5_000);
  });

  it('backs off exponentially within maxDelayMs without a header, and stops when the attempts are spent', () => {
    const first = nextRetryDelayMs(rateLimited(), 1, policy)!;
    expect(first).toBeGreaterThanOrEqual(750);
    expect(first).toBeLessThanOrEqual(1_000);
    expect(nextRetryDelayMs(rateLimited(), 3, { ...policy, maxDelayMs: 2_500 })).toBeLessThanOrEqual(2_500);
    expect(nextRetryDelayMs(rateLimited(5), 4, policy)).toBeUndefined();
  });
});
