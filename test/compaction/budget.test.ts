import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactionBudgets, contextUsage, thresholds } from '../../src/compaction/budget.js';
import type { ContextUsageView } from '../../src/protocol/views.js';
import { cfg } from './helpers.js';

describe('thresholds', () => {
  it('200K window, 64K output: reserve capped at 20K, defaults unscaled', () => {
    const t = thresholds({ contextWindow: 200_000, maxOutputTokens: 64_000 }, cfg());
    expect(t).toMatchObject({ reserve: 20_000, effective: 180_000, auto: 167_000, warning: 160_000, blocking: 177_000, micro: 160_000, bufferScale: 1 });
  });

  it('micro compaction is weighed from a working set set (60K) when that comes before its buffer; 0, the default, leaves only the buffer', () => {
    const window = { contextWindow: 200_000, maxOutputTokens: 64_000 };
    expect(thresholds(window, cfg({ microWorkingSetTokens: 60_000 })).micro).toBe(60_000);
    expect(thresholds(window, cfg()).micro).toBe(160_000);
    expect(thresholds(window, cfg({ microWorkingSetTokens: 170_000 })).micro).toBe(160_000);
    // a small window keeps its scaled buffer: the working set lies past it
    expect(thresholds({ contextWindow: 32_768, maxOutputTokens: 4_096 }, cfg({ microWorkingSetTokens: 60_000 })).micro).toBe(28_672 - 11_468);
    // fails when budget.ts leaves the working set out of the micro threshold, or reads 0 as a threshold of 0
  });

  it('128K window with 16K output reserves the max output', () => {
    const t = thresholds({ contextWindow: 128_000, maxOutputTokens: 16_384 }, cfg());
    expect(t.effective).toBe(111_616);
    expect(t.auto).toBe(98_616);
  });

  it('1M window', () => {
    const t = thresholds({ contextWindow: 1_047_576, maxOutputTokens: 32_768 }, cfg());
    expect(t.effective).toBe(1_027_576);
    expect(t.auto).toBe(1_014_576);
    expect(t.blocking).toBe(1_024_576);
  });

  it('32K window: buffers scale down so the largest takes 40% of the effective window', () => {
    const t = thresholds({ contextWindow: 32_768, maxOutputTokens: 4_096 }, cfg());
    expect(t.effective).toBe(28_672);
    expect(t.bufferScale).toBeCloseTo(0.57344, 5);
    expect(t.micro).toBe(28_672 - 11_468);
    expect(t.auto).toBe(28_672 - 7_454);
    expect(t.blocking).toBe(28_672 - 1_720);
  });

  it('8K local model: positive, ordered thresholds', () => {
    const t = thresholds({ contextWindow: 8_192, maxOutputTokens: 4_096 }, cfg());
    expect(t.effective).toBe(4_096);
    expect(t).toMatchObject({ micro: 2_458, warning: 2_458, auto: 3_032, blocking: 3_851 });
  });

  it('a max output as large as the window still leaves half the window for input', () => {
    const t = thresholds({ contextWindow: 4_096, maxOutputTokens: 8_192 }, cfg());
    expect(t.reserve).toBe(2_048);
    expect(t.effective).toBe(2_048);
    expect(t.micro).toBeGreaterThan(0);
  });

  it('takes every number from the config', () => {
    const t = thresholds(
      { contextWindow: 200_000, maxOutputTokens: 64_000 },
      cfg({
        reserveTokens: 10_000,
        autoBufferTokens: 5_000,
        warningBufferTokens: 30_000,
        blockingBufferTokens: 1_000,
        microBufferTokens: 40_000,
        microWorkingSetTokens: 0,
      }),
    );
    expect(t).toMatchObject({ effective: 190_000, auto: 185_000, warning: 160_000, blocking: 189_000, micro: 150_000 });
  });

  it('clamps a config that would invert the order (micro after auto)', () => {
    const t = thresholds(
      { contextWindow: 200_000, maxOutputTokens: 64_000 },
      cfg({ microBufferTokens: 1_000, autoBufferTokens: 13_000, microWorkingSetTokens: 0 }),
    );
    expect(t.micro).toBe(t.auto);
  });

  it('property: any window and config give positive, ordered thresholds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2_000, max: 2_000_000 }),
        fc.integer({ min: 1, max: 300_000 }),
        fc.record({
          reserveTokens: fc.integer({ min: 0, max: 100_000 }),
          autoBufferTokens: fc.integer({ min: 0, max: 100_000 }),
          warningBufferTokens: fc.integer({ min: 0, max: 100_000 }),
          blockingBufferTokens: fc.integer({ min: 0, max: 100_000 }),
          microBufferTokens: fc.integer({ min: 0, max: 100_000 }),
        }),
        (window, out, over) => {
          const t = thresholds({ contextWindow: window, maxOutputTokens: out }, cfg(over));
          expect(t.micro).toBeGreaterThan(0);
          expect(t.warning).toBeGreaterThan(0);
          expect(t.micro).toBeLessThanOrEqual(t.auto);
          expect(t.warning).toBeLessThanOrEqual(t.auto);
          expect(t.auto).toBeLessThanOrEqual(t.blocking);
          expect(t.blocking).toBeLessThanOrEqual(t.effective);
          expect(t.effective).toBeLessThanOrEqual(window);
          if (t.bufferScale === 1) expect(t.auto).toBe(Math.min(t.effective - over.autoBufferTokens, t.blocking));
        },
      ),
    );
  });
});

describe('contextUsage', () => {
  const t = thresholds({ contextWindow: 200_000, maxOutputTokens: 64_000 }, cfg());

  it('states at the boundaries', () => {
    expect(contextUsage(t.warning - 1, t).state).toBe('ok');
    expect(contextUsage(t.warning, t).state).toBe('warning');
    expect(contextUsage(t.auto - 1, t).state).toBe('warning');
    expect(contextUsage(t.auto, t).state).toBe('compact-soon');
    expect(contextUsage(t.blocking - 1, t).state).toBe('compact-soon');
    expect(contextUsage(t.blocking, t).state).toBe('blocking');
  });

  it('percent of the effective window left, and where auto compaction fires', () => {
    expect(contextUsage(0, t).percentLeft).toBe(100);
    expect(contextUsage(90_000, t).percentLeft).toBe(50);
    expect(contextUsage(400_000, t).percentLeft).toBe(0);
    expect(contextUsage(0, t).autoCompactAtPercent).toBe(93);
    // auto compaction is on unless the caller says otherwise
    expect(contextUsage(0, t).autoCompactEnabled).toBe(true);
  });

  it('is what the TUI gauge renders', () => {
    const u = contextUsage(1_000, t, { autoCompactEnabled: false, notice: 'paused' });
    const view: ContextUsageView = u;
    expect(view).toMatchObject({ tokens: 1_000, contextWindow: 200_000, effectiveWindow: 180_000, autoCompactEnabled: false, notice: 'paused' });
  });
});

describe('compactionBudgets', () => {
  it('keeps the configured budgets on a large window', () => {
    const t = thresholds({ contextWindow: 200_000, maxOutputTokens: 64_000 }, cfg());
    expect(compactionBudgets(t, cfg(), 15_000, 64_000)).toEqual({
      tailTokens: 20_000,
      summaryMaxTokens: 8_000,
      restoreTokens: 20_000,
      restoreFileTokens: 5_000,
    });
  });

  it('shrinks them on a small window so the compacted context sits well under the threshold', () => {
    const t = thresholds({ contextWindow: 32_768, maxOutputTokens: 4_096 }, cfg());
    const b = compactionBudgets(t, cfg(), 3_000, 4_096);
    const room = Math.floor(t.auto * 0.6) - 3_000;
    expect(b.tailTokens).toBe(Math.floor(room * 0.4));
    expect(b.summaryMaxTokens).toBe(Math.floor(room * 0.3));
    expect(b.tailTokens + b.summaryMaxTokens + b.restoreTokens + 3_000).toBeLessThanOrEqual(t.auto * 0.6 + 1);
  });

  it('never asks the summarizer for more than its max output, and keeps a minimum summary', () => {
    const t = thresholds({ contextWindow: 200_000, maxOutputTokens: 64_000 }, cfg());
    expect(compactionBudgets(t, cfg(), 0, 2_000).summaryMaxTokens).toBe(2_000);
    const tiny = thresholds({ contextWindow: 4_096, maxOutputTokens: 1_024 }, cfg());
    expect(compactionBudgets(tiny, cfg(), 5_000, 1_024).summaryMaxTokens).toBe(256);
  });
});
