import { describe, expect, it } from 'vitest';
import { thresholds } from '../../src/compaction/budget.js';
import { Guards, normalizeState } from '../../src/compaction/guards.js';
import { cfg } from './helpers.js';

// The cooldown after an automatic compaction (compaction/guards.ts) holds the next one back below
// the hard limit, and from the hard limit itself on lets it run: the synchronous path (mayRunAuto)
// and a background swap (coolingDown, background.ts dueAt) agree at the limit's exact token count.

describe('the cooldown after a compaction', () => {
  it('holds below the blocking limit and not at it, for the synchronous compaction and the background swap alike', () => {
    const config = cfg({ cooldownTurns: 2 });
    const t = thresholds({ contextWindow: 100_000, maxOutputTokens: 10_000 }, config);
    const st = normalizeState(undefined);
    const g = new Guards(st, config, t);
    expect(g.coolingDown(t.blocking - 1)).toBe(false);
    g.applied(t.auto / 2, { automatic: true, cooldown: true });
    expect(st.cooldownTurnsLeft).toBe(2);
    expect(g.coolingDown(t.blocking - 1)).toBe(true);
    expect(g.mayRunAuto(t.blocking - 1)).toEqual({ run: false, tell: 'cooldown after the last compaction (2 more turns)' });
    expect(g.coolingDown(t.blocking)).toBe(false);
    expect(g.mayRunAuto(t.blocking)).toEqual({ run: true });
  });
});
