// The background summary's boundaries to the token (compaction/background.ts): at the auto
// threshold itself a summary starts and the synchronous compaction holds back; at the hard limit
// itself the compaction without a summary is applied, its checkpoint restoring the person's
// requests as every checkpoint does (and a background swap's too). And -p /compact's signal: it
// cancels the summary while it runs, and nothing after it returns.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { CompactionEngine } from '../../src/compaction/engine.js';
import { CANCELLED } from '../../src/compaction/outcome.js';
import { loadTokenizer, TokenCounter } from '../../src/compaction/tokens.js';
import type { CompactionConfig } from '../../src/config/schema.js';
import { textOf, type Message } from '../../src/llm/messages.js';
import {
  assistant,
  backgroundEngine,
  cfg,
  ctx,
  historyUpTo,
  LIMITS,
  ScriptedProvider,
  SUMMARY,
  tokensText,
  untilAborted,
  user,
  windowWithAutoAt,
} from './helpers.js';

let counter: TokenCounter;
beforeAll(async () => {
  await loadTokenizer();
  counter = new TokenCounter();
});

const signal = () => new AbortController().signal;

const engine = (provider: ScriptedProvider, over: Partial<CompactionConfig> = {}, limits = LIMITS): CompactionEngine =>
  backgroundEngine(counter, provider, over, { limits });

/** The checkpoint's restored section of the person's requests, '' when it has none. */
const requestsSection = (added: readonly Message[] | undefined): string =>
  textOf(added?.[0] ?? user('')).split('## Recent requests of the person (verbatim)')[1] ?? '';

describe('the background summary at its thresholds exactly', () => {
  it('at the auto threshold itself a summary starts in the background and the synchronous compaction holds back', async () => {
    const provider = new ScriptedProvider(untilAborted);
    const probe = engine(provider);
    const history = historyUpTo(probe, 60_000);
    const tokens = probe.tokens(ctx(history));
    const e = engine(provider, {}, windowWithAutoAt(tokens));
    expect(e.thresholds().auto).toBe(tokens);
    expect(e.tokens(ctx(history))).toBe(tokens);
    expect(await e.beforeCall(ctx(history), signal(), () => undefined)).toEqual([]);
    expect(e.pending()).toEqual(expect.objectContaining({ trigger: 'auto', ready: false }));
    await vi.waitFor(() => expect(provider.requests).toHaveLength(1));
    e.cancelBackground();
  });

  it('a ready automatic summary swaps in at the auto threshold itself: one summary request, the background one', async () => {
    const provider = new ScriptedProvider(() => ({ text: SUMMARY }));
    const probe = engine(provider);
    const history = historyUpTo(probe, 60_000);
    history.push(user('one more'), assistant(tokensText(2_000, 'last')));
    const tokens = probe.tokens(ctx(history));
    const e = engine(provider, {}, windowWithAutoAt(tokens));
    expect(e.thresholds().auto).toBe(tokens);
    // a turn before the threshold: the summary starts and is written
    expect(await e.beforeCall(ctx(history.slice(0, -2)), signal(), () => undefined)).toEqual([]);
    expect(await e.settleBackground()).toBe(true);
    expect(e.pending()).toEqual(expect.objectContaining({ trigger: 'auto', ready: true }));
    const [o] = await e.beforeCall(ctx(history), signal(), () => undefined);
    expect(o?.record).toEqual(expect.objectContaining({ status: 'applied', trigger: 'auto', tokensBefore: tokens }));
    // mutation: the swap due only past the threshold: the synchronous compaction runs instead, a second request
    expect(provider.requests).toHaveLength(1);
  });

  it('compaction.prefire starts the summary at its share of the auto threshold itself', async () => {
    const provider = new ScriptedProvider(untilAborted);
    const probe = engine(provider);
    const history = historyUpTo(probe, 30_000);
    const tokens = probe.tokens(ctx(history));
    const e = engine(provider, { prefire: 0.5 }, windowWithAutoAt(2 * tokens));
    expect(e.thresholds().auto).toBe(2 * tokens);
    expect(await e.beforeCall(ctx(history), signal(), () => undefined)).toEqual([]);
    expect(e.pending()).toEqual(expect.objectContaining({ trigger: 'auto', ready: false }));
    e.cancelBackground();
  });

  it('at the hard limit itself, with no summary on its way, the compaction without one is applied, restoring the requests', async () => {
    const provider = new ScriptedProvider(untilAborted);
    const probe = engine(provider);
    const history = historyUpTo(probe, 60_000);
    const tokens = probe.tokens(ctx(history));
    const c = cfg({ background: true });
    const e = engine(provider, {}, { contextWindow: tokens + c.reserveTokens + c.blockingBufferTokens, maxOutputTokens: 100_000 });
    expect(e.thresholds().blocking).toBe(tokens);
    const [fallback] = await e.beforeCall(ctx(history), signal(), () => undefined);
    expect(fallback?.record).toEqual(expect.objectContaining({ status: 'applied', method: 'ledger' }));
    expect(fallback?.record.summary).toContain('the context reached its hard limit with no summary ready');
    expect(provider.requests).toHaveLength(0);
    // mutation: the fallback planned without restore: its checkpoint quotes none of the person's requests
    expect(requestsSection(fallback?.commit?.added)).toMatch(/question \d+/);
  });

  it("a background swap's checkpoint restores the person's requests too", async () => {
    const e = engine(new ScriptedProvider(() => ({ text: SUMMARY })));
    const history = historyUpTo(e, 30_000);
    expect(await e.startManual(ctx(history), undefined, () => undefined)).toBe(true);
    expect(await e.settleBackground()).toBe(true);
    const [o] = await e.atRest(ctx(history), () => undefined);
    expect(o?.record.status).toBe('applied');
    expect(requestsSection(o?.commit?.added)).toMatch(/question \d+/);
  });
});

describe('the hard limit and the warm-up', () => {
  it('a ready summary whose warm-up has not ended swaps in at once at the hard limit, warming nothing more', async () => {
    const warmed: number[] = [];
    const e = backgroundEngine(
      counter,
      new ScriptedProvider(() => ({ text: SUMMARY })),
      {},
      // a warm-up that never ends
      { more: { warm: (messages) => new Promise<void>(() => void warmed.push(messages.length)) } },
    );
    const history = historyUpTo(e, 20_000);
    expect(await e.startManual(ctx(history), undefined, () => undefined)).toBe(true);
    expect(await e.settleBackground()).toBe(true);
    expect(await e.atRest(ctx(history), () => undefined)).toEqual([]);
    expect(warmed).toHaveLength(1);
    const { blocking } = e.thresholds();
    history.push(user('and the rest'), assistant(tokensText(blocking - 18_000, 'big')));
    expect(e.tokens(ctx(history))).toBeGreaterThanOrEqual(blocking);
    const [o] = await e.beforeCall(ctx(history), signal(), () => undefined);
    // mutations: the swap held for the warm-up in flight, or a second warm-up sent at the hard limit
    expect(o?.record).toEqual(expect.objectContaining({ status: 'applied', trigger: 'manual' }));
    expect(o?.record.method).not.toBe('ledger');
    expect(warmed).toHaveLength(1);
  });
});

describe("-p /compact's signal", () => {
  it('cancels the summary while it runs; once /compact has returned it cancels nothing', async () => {
    const provider = new ScriptedProvider((req, i) => (i === 1 ? { text: SUMMARY } : untilAborted(req)));
    const e = engine(provider);
    const history = historyUpTo(e, 20_000);
    const first = new AbortController();
    const compacting = e.manual(ctx(history), undefined, first.signal, () => undefined);
    await vi.waitFor(() => expect(provider.requests).toHaveLength(1));
    first.abort();
    expect((await compacting).record).toEqual(expect.objectContaining({ status: 'failed', reason: CANCELLED }));
    expect(provider.requests[0]?.signal?.aborted).toBe(true);

    const second = new AbortController();
    expect((await e.manual(ctx(history), undefined, second.signal, () => undefined)).record.status).toBe('applied');
    // a summary started afterwards is no business of that /compact's signal
    expect(await e.startManual(ctx(history), undefined, () => undefined)).toBe(true);
    await vi.waitFor(() => expect(provider.requests).toHaveLength(3));
    second.abort();
    expect(e.pending()).toEqual(expect.objectContaining({ trigger: 'manual', ready: false }));
    expect(provider.requests[2]?.signal?.aborted).toBe(false);
    e.cancelBackground();
  });
});
