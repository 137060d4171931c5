// The warm-up before a background summary's swap (compaction/background.ts swap): the compacted
// history is written to the provider's cache first, the session is told when that ends (it may be
// at rest, waiting for it), and the swap then sends the checkpoint the warm-up sent, byte for byte,
// with whatever the history gained since.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Warm } from '../../src/compaction/engineDeps.js';
import { loadTokenizer, TokenCounter } from '../../src/compaction/tokens.js';
import type { Message } from '../../src/llm/messages.js';
import { assistant, backgroundEngine, ctx, historyAfter, historyUpTo, ScriptedProvider, SUMMARY, user } from './helpers.js';

let counter: TokenCounter;
beforeAll(async () => {
  await loadTokenizer();
  counter = new TokenCounter();
});

describe('the warm-up before a swap', () => {
  it('goes out once the summary is ready, holds the swap until it ends, tells the session then, and the swap reuses its checkpoint', async () => {
    const warmed: Message[][] = [];
    let release: () => void = () => undefined;
    const warm: Warm = async (messages) => {
      warmed.push([...messages]);
      await new Promise<void>((r) => (release = r));
    };
    let settled = 0;
    const e = backgroundEngine(counter, new ScriptedProvider(() => ({ text: SUMMARY })), {}, { more: { warm, backgroundSettled: () => settled++ } });
    const history = historyUpTo(e, 20_000);
    const emit = (): void => undefined;

    expect(await e.startManual(ctx(history), undefined, emit)).toBe(true);
    expect(await e.settleBackground()).toBe(true);
    expect(settled).toBe(1);
    // ready: at rest the warm-up goes out, and the swap waits for it
    expect(await e.atRest(ctx(history), emit)).toEqual([]);
    expect(warmed).toHaveLength(1);
    expect(await e.atRest(ctx(history), emit)).toEqual([]);
    expect(warmed).toHaveLength(1);
    expect(e.pending()).toEqual(expect.objectContaining({ trigger: 'manual', ready: true }));
    // the warm-up ends: the session at rest is told (mutation: told only when it was cancelled)
    release();
    expect(await e.settleBackground()).toBe(true);
    expect(settled).toBe(2);
    // the history gained a turn meanwhile: the swap keeps it after the warmed messages
    const later = [...history, user('one more'), assistant('done')];
    const [outcome] = await e.atRest(ctx(later), emit);
    expect(outcome?.record).toEqual(expect.objectContaining({ status: 'applied', trigger: 'manual' }));
    expect(historyAfter(later, outcome!)).toEqual([...warmed[0]!, ...later.slice(-2)]);
    expect(warmed).toHaveLength(1);
  });
});
