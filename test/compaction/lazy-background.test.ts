import { describe, expect, it } from 'vitest';
import { CompactionEngine } from '../../src/compaction/engine.js';
import { TokenCounter, tokenizerLoaded } from '../../src/compaction/tokens.js';
import { assistant, cfg, ctx, LIMITS, ScriptedProvider, SUMMARY, user } from './helpers.js';

// Fresh modules: it watches the tokenizer stay unloaded, then load (vitest.config.ts), as lazy-count.test.ts
// does for the synchronous tiers: here with the background summary on and off. Its tests run in order;
// the last one loads the tokenizer.
// (engine.ts beforeCall: only a background summary is judged on the rough figure against its
// prefire point; startManual loads the tokenizer before it measures.)

/** effective 90,000; micro 70,000; auto 77,000; tail 18,480, so the default prefire point is 58,520 */
const noEmit = (): void => undefined;

function makeEngine(background: boolean, state?: unknown): CompactionEngine {
  return new CompactionEngine(
    {
      config: cfg({ background }),
      limits: LIMITS,
      model: 'test-model',
      summarizer: { provider: new ScriptedProvider(() => ({ text: SUMMARY })), model: 'sum-model', limits: LIMITS },
      counter: new TokenCounter(),
      compactableTools: [],
      silentOverflowDetection: false,
    },
    state,
  );
}

describe('the background summary and the tokenizer', () => {
  const short = [user('hi there'), assistant('Hello! How can I help?'), user('list the files')];

  it('with the background summary on, a short conversation goes through beforeCall without the tokenizer and starts nothing', async () => {
    const e = makeEngine(true);
    expect(await e.beforeCall(ctx(short), new AbortController().signal, noEmit)).toEqual([]);
    // mutation: `this.bg && rough >= prefire` made `||`: any engine with the background summary loads the tokenizer
    expect(tokenizerLoaded()).toBe(false);
    expect(e.pending()).toBeUndefined();
  });

  it('with it off, a rough figure past the prefire point (below micro) leaves the tokenizer unloaded: only a background summary starts there', async () => {
    // the provider counted the conversation at 62,000 tokens: past 58,520, below micro (70,000)
    const first = makeEngine(false);
    first.observeResponse({ system: ctx(short).system, tools: [], messages: short }, 62_000);
    const next = [...short, assistant('a.txt b.txt'), user('and now?')];
    const e = makeEngine(false, JSON.parse(JSON.stringify(first.state())));
    expect(e.usage(ctx(next)).tokens).toBeGreaterThan(58_520);
    expect(e.usage(ctx(next)).tokens).toBeLessThan(70_000);
    expect(await e.beforeCall(ctx(next), new AbortController().signal, noEmit)).toEqual([]);
    expect(tokenizerLoaded()).toBe(false);
  });

  it('/compact in the TUI loads the tokenizer before it measures the history it summarizes', async () => {
    expect(tokenizerLoaded()).toBe(false);
    const e = makeEngine(true);
    // mutation: startManual's `await counter.load()` dropped: measuring throws "the tokenizer is not loaded"
    expect(await e.startManual(ctx(short), undefined, noEmit)).toBe(true);
    expect(tokenizerLoaded()).toBe(true);
    expect(e.pending()).toEqual(expect.objectContaining({ trigger: 'manual' }));
    expect(e.cancelBackground()).toBe(true);
  });
});
