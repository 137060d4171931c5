import { describe, expect, it } from 'vitest';
import { microWorthIt, WARM_MIN_SHARE, type MicroDecision } from '../../src/compaction/microPolicy.js';

const base: MicroDecision = {
  tokens: 100_000,
  auto: 150_000,
  savedTokens: 5_000,
  cleared: 2,
  keepRecent: 5,
  cacheTtlMs: 300_000,
  lastResponseAt: 1_000_000,
  now: 1_000_000 + 10_000,
};

describe('micro compaction and the prompt cache', () => {
  it('leaves a warm cache alone for a small clear, and takes a batch worth the rewrite', () => {
    expect(microWorthIt(base)).toBe(false);
    expect(microWorthIt({ ...base, savedTokens: WARM_MIN_SHARE * base.tokens })).toBe(true);
  });

  it('clears whatever there is once the cache is cold anyway (idle past the TTL)', () => {
    expect(microWorthIt({ ...base, now: base.lastResponseAt! + 300_000 })).toBe(true);
    expect(microWorthIt({ ...base, lastResponseAt: undefined })).toBe(true);
    expect(microWorthIt({ ...base, cacheTtlMs: 3_600_000, now: base.lastResponseAt! + 300_000 })).toBe(false);
  });

  it('keeps the warm rule at the auto threshold; without caching clears anything there, or batches of keepRecent; every-call clears everything', () => {
    expect(microWorthIt({ ...base, tokens: 150_000 })).toBe(false);
    expect(microWorthIt({ ...base, tokens: 150_000, savedTokens: 50_000 })).toBe(true);
    expect(microWorthIt({ ...base, tokens: 150_000, cacheTtlMs: undefined })).toBe(true);
    expect(microWorthIt({ ...base, cacheTtlMs: undefined })).toBe(false);
    expect(microWorthIt({ ...base, cacheTtlMs: undefined, cleared: 5 })).toBe(true);
    expect(microWorthIt({ ...base, policy: 'every-call' })).toBe(true);
    expect(microWorthIt({ ...base, cleared: 0, policy: 'every-call' })).toBe(false);
  });
});
