import { describe, expect, it } from 'vitest';
import { thresholds } from '../../src/compaction/budget.js';
import { updateCalibration } from '../../src/compaction/meter.js';
import { detectSilentOverflow, reactiveTailBudget } from '../../src/compaction/overflow.js';
import { cfg } from './helpers.js';

const t = thresholds({ contextWindow: 200_000, maxOutputTokens: 64_000 }, cfg()); // auto 167,000

describe('reactiveTailBudget', () => {
  const base = { estimatedTokens: 180_000, thresholds: t, fixedTokens: 30_000, tailTokens: 20_000, attempt: 1 };

  it('closes the reported gap with a margin, in our estimate scale', () => {
    // the provider counted 240K where we estimated 180K: its tokens are 4/3 of ours
    const b = reactiveTailBudget({ ...base, overflow: { promptTokens: 240_000, limit: 200_000 }, tailTokens: 200_000 });
    const target = (200_000 * 0.85) / (240_000 / 180_000); // 127,500 of our tokens
    expect(b).toBe(Math.floor(target - 30_000));
  });

  it('never exceeds the normal tail budget, and halves per further attempt', () => {
    const o = { promptTokens: 210_000, limit: 200_000 };
    expect(reactiveTailBudget({ ...base, overflow: o })).toBe(20_000);
    const wide = { ...base, overflow: o, tailTokens: 1_000_000 };
    const first = reactiveTailBudget(wide);
    expect(reactiveTailBudget({ ...wide, attempt: 2 })).toBe(Math.floor(first / 2));
  });

  it('takes the requested output off both figures when the provider counted it in', () => {
    const withOut = reactiveTailBudget({ ...base, tailTokens: 1e6, overflow: { promptTokens: 190_000, limit: 200_000, requestedOutputTokens: 32_000 } });
    // input 158,000 against an input limit of 168,000
    expect(withOut).toBe(Math.floor(Math.min(t.auto, (168_000 * 0.85) / (158_000 / 180_000)) - 30_000));
  });

  it('without figures: half the normal budget on the first attempt, a quarter on the second', () => {
    expect(reactiveTailBudget({ ...base, overflow: undefined })).toBe(10_000);
    expect(reactiveTailBudget({ ...base, overflow: {}, attempt: 2 })).toBe(5_000);
  });

  it('is zero (keep only the current step) when the fixed part alone fills the target', () => {
    expect(reactiveTailBudget({ ...base, fixedTokens: 190_000, overflow: { promptTokens: 250_000, limit: 200_000 } })).toBe(0);
  });
});

describe('detectSilentOverflow', () => {
  it('a report above the window', () => {
    const s = detectSilentOverflow({ reported: 33_000, estimated: 30_000, contextWindow: 32_768 });
    expect(s?.overflow).toEqual({ promptTokens: 33_000, limit: 32_768 });
    expect(s?.message).toMatch(/more than the model's 32,768-token window/);
  });

  it('a report far below a large estimate (a server that truncated to num_ctx)', () => {
    const s = detectSilentOverflow({ reported: 4_096, estimated: 12_000, contextWindow: 32_768 });
    expect(s?.overflow).toEqual({ promptTokens: 12_000, limit: 4_096 });
    expect(s?.message).toMatch(/dropped the start/);
  });

  it('a count that stops growing while the prompt grows (truncation at a window smaller than configured)', () => {
    const previous = { reported: 6_000, estimated: 6_100 };
    const s = detectSilentOverflow({ reported: 6_000, estimated: 7_400, contextWindow: 32_768, previous });
    expect(s?.overflow).toEqual({ promptTokens: 7_400, limit: 6_000 });
    expect(s?.message).toMatch(/counted 6,000 input tokens again/);
    // a growing count, or a prompt that barely grew, is fine
    expect(detectSilentOverflow({ reported: 7_300, estimated: 7_400, contextWindow: 32_768, previous })).toBeUndefined();
    expect(detectSilentOverflow({ reported: 6_000, estimated: 6_300, contextWindow: 32_768, previous })).toBeUndefined();
  });

  it('no alarm for small requests, normal tokenizer drift, or a matching report', () => {
    expect(detectSilentOverflow({ reported: 500, estimated: 2_000, contextWindow: 32_768 })).toBeUndefined();
    expect(detectSilentOverflow({ reported: 80_000, estimated: 100_000, contextWindow: 200_000 })).toBeUndefined();
    expect(detectSilentOverflow({ reported: 100_000, estimated: 100_000, contextWindow: 200_000 })).toBeUndefined();
  });
});

describe('updateCalibration', () => {
  it('converges on a steady ratio and follows drift', () => {
    let c = updateCalibration(undefined, 1.3);
    expect(c).toEqual({ ratio: 1.3, samples: 1 });
    for (let i = 0; i < 30; i++) c = updateCalibration(c, 1.1);
    expect(c.ratio).toBeCloseTo(1.1, 2);
  });

  it('clamps absurd observations', () => {
    expect(updateCalibration(undefined, 40).ratio).toBe(3);
    expect(updateCalibration(undefined, 0.01).ratio).toBe(0.5);
  });
});
