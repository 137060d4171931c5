// Background compaction at the hard limit (compaction/background.ts): a summary started at the
// boundary before the one that reaches the hard limit, and a moment from done there, is swapped
// in, not thrown away for a compaction without a summary. On a small window a step can cross the
// auto threshold and the hard limit in two boundaries: the job starts at the first and is still
// in flight at the second. The fidelity bench's auto×3 (a 9K window) lost the summary's facts
// and the appendix that way (keeps nothing: 6/10 against the synchronous path's 7/10).
import { beforeAll, describe, expect, it } from 'vitest';
import { loadTokenizer, TokenCounter } from '../../src/compaction/tokens.js';
import type { CompactionEvent } from '../../src/protocol/events.js';
import { assistant, backgroundEngine, ctx, historyUpTo, ScriptedProvider, SUMMARY, tokensText, user } from './helpers.js';

let counter: TokenCounter;
beforeAll(async () => {
  await loadTokenizer();
  counter = new TokenCounter();
});

describe('background compaction at the hard limit', () => {
  it('waits a moment for the summary in flight instead of compacting without one', async () => {
    // the summarizer answers when the test says so: after the boundary at the hard limit has begun
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const provider = new ScriptedProvider(async () => {
      await gate;
      return { text: SUMMARY };
    });
    const e = backgroundEngine(counter, provider);
    const events: CompactionEvent[] = [];
    const emit = (ev: CompactionEvent): void => void events.push(ev);
    const { auto, blocking } = e.thresholds();
    const history = historyUpTo(e, auto);
    expect(e.tokens(ctx(history))).toBeLessThan(blocking);

    // past the auto threshold with nothing prefired: the summary starts in the background, the call goes out
    expect(await e.beforeCall(ctx(history), new AbortController().signal, emit)).toEqual([]);
    expect(e.pending()).toEqual(expect.objectContaining({ trigger: 'auto', ready: false }));

    // one large step later the context is at the hard limit, the summary still in flight
    history.push(user('and the rest'), assistant(tokensText(blocking - auto + 2_000, 'big')));
    expect(e.tokens(ctx(history))).toBeGreaterThanOrEqual(blocking);
    const boundary = e.beforeCall(ctx(history), new AbortController().signal, emit);
    release();
    const outcomes = await boundary;

    expect(outcomes).toHaveLength(1);
    const record = outcomes[0]!.record;
    expect(record.status).toBe('applied');
    // the summary, not the fallback's "No summary was written"
    expect(record.method).not.toBe('ledger');
    expect(record.summary).toContain('- finish the task');
    expect(provider.requests.length).toBeGreaterThanOrEqual(1);
    e.cancelBackground();
  });
});

// Mutation: the wait at the hard limit (`job.within(HARD_LIMIT_GRACE_MS)` in
// BackgroundCompaction.step) left out: the boundary cancels the job in flight and applies a
// compaction without a summary (method 'ledger', "the summary started 0 s earlier had not arrived").
