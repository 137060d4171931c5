// The background summary at rest (compaction/background.ts): a boundary at rest records or swaps
// in the job that settled, and never starts one. A summary written for a history the person
// rewound is dropped there, and the next summary waits for the next model call: none is billed
// while the session sits at the prompt.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadTokenizer, TokenCounter } from '../../src/compaction/tokens.js';
import type { CompactionEvent } from '../../src/protocol/events.js';
import { backgroundEngine, ctx, historyUpTo, ScriptedProvider, SUMMARY } from './helpers.js';

let counter: TokenCounter;
beforeAll(async () => {
  await loadTokenizer();
  counter = new TokenCounter();
});

/** effective 90,000; auto 77,000; the background summary's prefire at 0.7 of auto (53,900) */

describe('background compaction at rest', () => {
  it('drops at rest a summary the history moved away from (a /rewind), and starts the next one only at a model call', async () => {
    const provider = new ScriptedProvider(() => ({ text: SUMMARY }));
    const e = backgroundEngine(counter, provider);
    const events: CompactionEvent[] = [];
    const emit = (ev: CompactionEvent): void => void events.push(ev);
    const auto = e.thresholds().auto;
    const history = historyUpTo(e, auto - 4_000);

    // /compact in the TUI: the summary is written in the background and settles while the session is at rest
    expect(await e.startManual(ctx(history), undefined, emit)).toBe(true);
    expect(await e.settleBackground()).toBe(true);
    expect(e.pending()).toEqual(expect.objectContaining({ trigger: 'manual', ready: true }));
    expect(provider.requests).toHaveLength(1);

    // meanwhile the person rewound one turn: the draft's snapshot is no longer the history's start
    const rewound = history.slice(0, -2);
    const prefire = 0.7 * auto;
    expect(e.tokens(ctx(rewound))).toBeGreaterThan(prefire + 1_000);
    expect(await e.atRest(ctx(rewound), emit)).toEqual([]);
    expect(e.pending()).toBeUndefined();
    await e.settleBackground();
    expect(provider.requests).toHaveLength(1);
    expect(events.filter((ev) => ev.type === 'compaction_start')).toHaveLength(1);

    // the next model call is where a summary of the rewound history starts (it is past the prefire threshold)
    expect(await e.beforeCall(ctx(rewound), new AbortController().signal, emit)).toEqual([]);
    expect(e.pending()).toEqual(expect.objectContaining({ trigger: 'auto' }));
    expect(await e.settleBackground()).toBe(true);
    expect(provider.requests).toHaveLength(2);
    e.cancelBackground();
  });
});

// Mutation: the `at.idle` guard of BackgroundCompaction.step dropped (a summary starts at rest
// after the one dropped there): pending() is an automatic job at rest and a second summary request
// is sent before any model call (the lead's sample of 6 Dec, mutant 1).
