import { describe, expect, it } from 'vitest';
import { TokenCounter } from '../../src/compaction/tokens.js';
import { contextBreakdown } from '../../src/commands/contextBreakdown.js';
import type { ContextUsageView } from '../../src/protocol/views.js';

// /context shows the gauge's own figure (issue 49 item 18: /context said 100% while the footer
// said 99%): its rows add up to the gauge's tokens and its percentage is the gauge's percentLeft.

const usage: ContextUsageView = {
  tokens: 1_000,
  contextWindow: 200_000,
  effectiveWindow: 180_000,
  percentLeft: 99,
  state: 'ok',
  autoCompactAtPercent: 92,
  autoCompactEnabled: true,
};

describe('contextBreakdown', () => {
  it("carries the gauge's percentage and scales its rows to the gauge's tokens", () => {
    const counter = new TokenCounter((text) => Math.ceil(text.length / 4));
    const out = contextBreakdown(counter, 'You are an agent.'.repeat(40), [], [], usage);
    if (out.kind !== 'context') throw new Error(`not a context view: ${out.kind}`);
    // mutation: the percentage computed again from the rows and the whole window says 100 here
    expect(out.percentLeft).toBe(99);
    expect(out.rows.reduce((n, r) => n + r.tokens, 0)).toBe(1_000);
    expect([out.contextWindow, out.effectiveWindow]).toEqual([200_000, 180_000]);
  });
});
