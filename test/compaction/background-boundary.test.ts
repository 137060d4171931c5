// Background compaction's boundary decisions (compaction/background.ts BackgroundCompaction): the
// summary's deadline to the millisecond, the hard limit's fallback naming the summary that failed
// before it, and a summary in flight that holds the synchronous compaction back from the auto
// threshold itself on.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CompactionConfig } from '../../src/config/schema.js';
import type { CompactionOutcome, CompactionEngine, EngineDeps } from '../../src/compaction/engine.js';
import { loadTokenizer, TokenCounter } from '../../src/compaction/tokens.js';
import type { CompactionEvent } from '../../src/protocol/events.js';
import {
  assistant,
  backgroundEngine,
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
afterEach(() => {
  vi.useRealTimers();
});

const signal = () => new AbortController().signal;

const engine = (
  provider: ScriptedProvider,
  over: Partial<CompactionConfig> = {},
  limits = LIMITS,
  state?: unknown,
  more: Partial<EngineDeps> = {},
): CompactionEngine => backgroundEngine(counter, provider, over, { limits, state, more });

/** Waits (real turns of the event loop, not the fake clock) until the summarizer has its request. */
async function requested(provider: ScriptedProvider, n: number): Promise<void> {
  for (let turns = 0; provider.requests.length < n && turns < 10_000; turns++) await new Promise((r) => setImmediate(r));
  expect(provider.requests).toHaveLength(n);
}

describe('background compaction at its boundaries', () => {
  it('cancels a summary that has not answered at summaryDeadlineSeconds, to the millisecond, and says so', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const provider = new ScriptedProvider(untilAborted);
    const e = engine(provider, { summaryDeadlineSeconds: 600 });
    const history = historyUpTo(e, 20_000);
    const events: CompactionEvent[] = [];
    expect(await e.startManual(ctx(history), undefined, (ev) => void events.push(ev))).toBe(true);
    await requested(provider, 1);
    await vi.advanceTimersByTimeAsync(599_999);
    expect(await e.atRest(ctx(history), (ev) => void events.push(ev))).toEqual([]);
    expect(e.pending()).toEqual(expect.objectContaining({ trigger: 'manual', ready: false }));
    expect(provider.requests[0]?.signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(provider.requests[0]?.signal?.aborted).toBe(true);
    expect(await e.settleBackground()).toBe(true);
    const [outcome] = await e.atRest(ctx(history), (ev) => void events.push(ev));
    expect(outcome?.record).toEqual(
      expect.objectContaining({ status: 'failed', reason: 'the summarizer did not answer within 600 s: cancelled, tried again later' }),
    );
    expect(e.pending()).toBeUndefined();
  });

  it('at the hard limit with no summary ready, the compaction without one names the summary that failed before', async () => {
    const provider = new ScriptedProvider(() => new Error('the summarizer is down'));
    const e = engine(provider);
    const events: CompactionEvent[] = [];
    const emit = (ev: CompactionEvent): void => void events.push(ev);
    const { auto, blocking } = e.thresholds();
    const history = historyUpTo(e, auto);
    // past the auto threshold: the summary starts in the background, and fails
    expect(await e.beforeCall(ctx(history), signal(), emit)).toEqual([]);
    expect(await e.settleBackground()).toBe(true);
    const [failed] = await e.beforeCall(ctx(history), signal(), emit);
    expect(failed?.record).toEqual(expect.objectContaining({ status: 'failed', reason: expect.stringContaining('the summarizer is down') }));
    expect(e.pending()).toBeUndefined();

    history.push(user('and the rest'), assistant(tokensText(blocking - auto + 2_000, 'big')));
    expect(e.tokens(ctx(history))).toBeGreaterThanOrEqual(blocking);
    const [fallback] = await e.beforeCall(ctx(history), signal(), emit);
    expect(fallback?.record).toEqual(expect.objectContaining({ status: 'applied', method: 'ledger' }));
    expect(fallback?.record.summary).toContain('the context reached its hard limit with no summary ready (the last summary failed: ');
    expect(fallback?.record.summary).toContain('the summarizer is down');
    // the record says why it holds no summary (a summary's record has no reason: the -p /compact test below)
    expect(fallback?.record.reason).toMatch(
      /^no summary: the context reached its hard limit with no summary ready \(the last summary failed: .*the summarizer is down/,
    );
  });

  it('a summary that fails again for the same reason is recorded, not shown again: its live row closes quietly', async () => {
    const provider = new ScriptedProvider(() => new Error('the summarizer is down'));
    const e = engine(provider, { maxFailures: 5 });
    const events: CompactionEvent[] = [];
    const emit = (ev: CompactionEvent): void => void events.push(ev);
    const history = historyUpTo(e, e.thresholds().auto);
    const failure = async (): Promise<CompactionOutcome | undefined> => {
      expect(await e.beforeCall(ctx(history), signal(), emit)).toEqual([]);
      expect(await e.settleBackground()).toBe(true);
      const [o] = await e.beforeCall(ctx(history), signal(), emit);
      return o;
    };
    const first = await failure();
    expect(first?.record).toEqual(expect.objectContaining({ status: 'failed', reason: expect.stringContaining('the summarizer is down') }));
    expect(first?.skipped).toBeUndefined();
    expect(events.filter((ev) => ev.type === 'compaction_skipped')).toEqual([]);
    const second = await failure();
    expect(second?.record.reason).toBe(first?.record.reason);
    expect(second?.skipped).toBe(true);
    expect(events.filter((ev) => ev.type === 'compaction_skipped')).toEqual([{ type: 'compaction_skipped', trigger: 'auto', reason: first?.record.reason }]);
    expect(provider.requests).toHaveLength(2);
  });

  it('while the cooldown holds, an automatic summary ready below the hard limit waits for it; once the cooldown is over it swaps at the auto threshold', async () => {
    const provider = new ScriptedProvider(() => ({ text: SUMMARY }));
    const probe = engine(provider);
    const { auto, blocking } = probe.thresholds();
    // above the auto threshold, a step below the hard limit: a summary starts ahead, cooling down or not
    const history = historyUpTo(probe, blocking - 3_000);
    const tokens = probe.tokens(ctx(history));
    expect(tokens).toBeGreaterThan(auto);
    expect(tokens).toBeLessThan(blocking);
    const e = engine(provider, { cooldownTurns: 2 }, LIMITS);
    const cooling = engine(provider, { cooldownTurns: 2 }, LIMITS, { cooldownTurnsLeft: 2 });
    for (const [engineUnder, swapsNow] of [
      [cooling, false],
      [e, true],
    ] as const) {
      const before = provider.requests.length;
      expect(await engineUnder.beforeCall(ctx(history), signal(), () => undefined)).toEqual([]);
      await requested(provider, before + 1);
      await vi.waitFor(() => expect(engineUnder.pending()).toEqual(expect.objectContaining({ trigger: 'auto', ready: true })));
      // mutation: an automatic job's swap due at the auto threshold whatever the cooldown swaps here while cooling down
      const outcomes = await engineUnder.beforeCall(ctx(history), signal(), () => undefined);
      expect(outcomes.map((o) => o.record.status)).toEqual(swapsNow ? ['applied'] : []);
      engineUnder.cancelBackground();
    }
  });

  it('a summary in flight holds the synchronous compaction back from the auto threshold itself on', async () => {
    // a window whose auto threshold is this history's size exactly
    const provider = new ScriptedProvider((req, i) => (i === 0 ? untilAborted(req) : { text: SUMMARY }));
    const probe = engine(provider);
    const history = historyUpTo(probe, 60_000);
    const tokens = probe.tokens(ctx(history));
    const e = engine(provider, {}, windowWithAutoAt(tokens));
    expect(e.thresholds().auto).toBe(tokens);
    expect(e.tokens(ctx(history))).toBe(tokens);
    expect(await e.startManual(ctx(history), undefined, () => undefined)).toBe(true);
    await requested(provider, 1);

    expect(await e.beforeCall(ctx(history), signal(), () => undefined)).toEqual([]);
    expect(provider.requests).toHaveLength(1);
    expect(e.pending()).toEqual(expect.objectContaining({ trigger: 'manual', ready: false }));
    e.cancelBackground();
  });

  it('-p /compact with the background summary on waits for its summary and applies it, focus and all', async () => {
    const provider = new ScriptedProvider(() => ({ text: SUMMARY }), 100);
    const e = engine(provider);
    const history = historyUpTo(e, 20_000);
    const outcome = await e.manual(ctx(history), '  the parser  ', signal(), () => undefined);
    expect(outcome.record).toEqual(expect.objectContaining({ status: 'applied', trigger: 'manual' }));
    expect(outcome.record.method).not.toBe('ledger');
    expect(outcome.record.reason).toBeUndefined();
    expect(outcome.record.summary).toContain('- finish the task');
    expect(provider.requests).toHaveLength(1);
    expect(provider.prompt(0)).toContain('the parser');
    expect(e.pending()).toBeUndefined();
  });

  it('-p /compact whose summarizer does not answer by the deadline compacts without a summary, saying why', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const provider = new ScriptedProvider(untilAborted);
    const e = engine(provider, { summaryDeadlineSeconds: 30 });
    const history = historyUpTo(e, 20_000);
    const compacted = e.manual(ctx(history), undefined, signal(), () => undefined);
    await requested(provider, 1);
    await vi.advanceTimersByTimeAsync(30_000);
    const outcome = await compacted;
    expect(outcome.record).toEqual(expect.objectContaining({ status: 'applied', trigger: 'manual', method: 'ledger' }));
    expect(outcome.record.summary).toContain('the summarizer did not answer within 30 s');
    expect(outcome.record.reason).toBe('no summary: the summarizer did not answer within 30 s');
    expect(e.pending()).toBeUndefined();
  });

  it('a /compact while a summary is in flight replaces it: the first request is cancelled', async () => {
    const provider = new ScriptedProvider(untilAborted);
    const e = engine(provider);
    const history = historyUpTo(e, 20_000);
    expect(await e.startManual(ctx(history), 'first', () => undefined)).toBe(true);
    await requested(provider, 1);
    expect(await e.startManual(ctx(history), 'second', () => undefined)).toBe(true);
    await requested(provider, 2);
    expect(provider.requests.map((r) => r.signal?.aborted)).toEqual([true, false]);
    expect(e.cancelBackground()).toBe(true);
    expect(provider.requests[1]?.signal?.aborted).toBe(true);
  });
});

describe('background compaction between boundaries', () => {
  it('at the hard limit with the summary still in flight after its grace, the compaction without a summary cancels that summary', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const provider = new ScriptedProvider(untilAborted);
    const e = engine(provider);
    const { auto, blocking } = e.thresholds();
    const history = historyUpTo(e, auto);
    expect(await e.beforeCall(ctx(history), signal(), () => undefined)).toEqual([]);
    await requested(provider, 1);
    expect(e.pending()).toEqual(expect.objectContaining({ trigger: 'auto', ready: false }));
    history.push(user('and the rest'), assistant(tokensText(blocking - auto + 2_000, 'big')));
    const boundary = e.beforeCall(ctx(history), signal(), () => undefined);
    await vi.advanceTimersByTimeAsync(500);
    const [fallback] = await boundary;
    expect(fallback?.record).toEqual(expect.objectContaining({ status: 'applied', method: 'ledger' }));
    expect(fallback?.record.summary).toContain('had not arrived when the context reached its hard limit');
    // mutation: the job's cancel() before the fallback dropped: its request goes on, the gauge still shows it
    expect(provider.requests[0]?.signal?.aborted).toBe(true);
    expect(e.pending()).toBeUndefined();
  });

  it('the warm-up goes out one step before the auto threshold, at the growth of the last steps, so the swap at the threshold waits for nothing', async () => {
    const warmed: number[] = [];
    let tokens = 0;
    const e = engine(new ScriptedProvider(() => ({ text: SUMMARY })), {}, LIMITS, undefined, { warm: async () => void warmed.push(tokens) });
    const { auto } = e.thresholds();
    const history = historyUpTo(e, 40_000);
    let applied: number | undefined;
    for (let i = 0; applied === undefined && i < 40; i++) {
      history.push(user(`step ${i}`), assistant(tokensText(2_000, `s${i}`)));
      tokens = e.tokens(ctx(history));
      const outcomes = await e.beforeCall(ctx(history), signal(), () => undefined);
      if (outcomes.some((o) => o.record.status === 'applied')) applied = tokens;
      await e.settleBackground();
    }
    // mutation: the growth guessed as 0 (`a === undefined` flipped in grown()): the warm-up waits for
    // the threshold, and the swap for the boundary after it
    expect(warmed).toHaveLength(1);
    expect(warmed[0]).toBeLessThan(auto);
    expect(applied).toBeGreaterThanOrEqual(auto);
    // one step apart (a step here is ~2,700 tokens)
    expect(applied! - warmed[0]!).toBeLessThan(4_000);
  });

  it('the warm-up guesses the next step from the last two steps only: a jump three steps back no longer sends it early', async () => {
    let warmed = 0;
    const e = engine(new ScriptedProvider(() => ({ text: SUMMARY })), { prefire: 0.75 }, LIMITS, undefined, { warm: async () => void warmed++ });
    const { auto } = e.thresholds();
    const history = historyUpTo(e, 0.75 * auto - 3_000);
    /** Small turns until the engine counts `target`, then the boundary before a model call. */
    const boundaryAt = async (target: number): Promise<number> => {
      for (let i = 0; e.tokens(ctx(history)) < target; i++) history.push(user(`at ${target} ${i}`), assistant(tokensText(60, `t${target}x${i}`)));
      expect(await e.beforeCall(ctx(history), signal(), () => undefined)).toEqual([]);
      await e.settleBackground();
      return e.tokens(ctx(history));
    };
    // the summary starts past the prefire point and is written
    await boundaryAt(0.75 * auto + 200);
    expect(e.pending()).toMatchObject({ trigger: 'auto', ready: true });
    // steps of ~1,700, ~8,000 (a large tool output), ~300, ~1,300 tokens, the last ending ~7,400 below the threshold
    const s0 = await boundaryAt(auto - 17_000);
    const s1 = await boundaryAt(auto - 9_000);
    const s2 = await boundaryAt(auto - 8_700);
    expect(s2 + (s1 - s0)).toBeLessThan(auto);
    expect(warmed).toBe(0);
    const s3 = await boundaryAt(auto - 7_400);
    expect(s3 + (s1 - s0)).toBeGreaterThanOrEqual(auto);
    // mutation: grown() keeping three steps back (`slice(-3)`) guesses ~8,000 here and warms a step early
    expect(warmed).toBe(0);
    // ~6,400 more: now the next step may reach the threshold
    await boundaryAt(auto - 1_000);
    expect(warmed).toBe(1);
  });

  it('/compact in the TUI with a focus: the summary request and the record name it trimmed; a blank focus is none', async () => {
    const provider = new ScriptedProvider(() => ({ text: SUMMARY }));
    const applied = async (focus: string): Promise<CompactionOutcome | undefined> => {
      const e = engine(provider);
      const history = historyUpTo(e, 20_000);
      expect(await e.startManual(ctx(history), focus, () => undefined)).toBe(true);
      expect(await e.settleBackground()).toBe(true);
      const [o] = await e.atRest(ctx(history), () => undefined);
      expect(o?.record.status).toBe('applied');
      return o;
    };
    // mutation: startManual passing `focus` untrimmed: the record says '  the parser  '
    expect((await applied('  the parser  '))?.record.focus).toBe('the parser');
    expect(provider.prompt(0)).toContain('the parser');
    expect((await applied('   '))?.record.focus).toBeUndefined();
  });

  it('compaction.prefire starts the summary at its share of the auto threshold, not before; by default none starts there', async () => {
    const provider = new ScriptedProvider(untilAborted);
    const probe = engine(provider);
    const { auto } = probe.thresholds();
    // auto 77,000: prefire 0.5 is 38,500; the default point is auto less the tail (58,520)
    const below = historyUpTo(probe, 0.5 * auto - 2_500);
    const past = historyUpTo(probe, 0.5 * auto + 500);
    expect(probe.tokens(ctx(past))).toBeLessThan(50_000);
    const set = engine(provider, { prefire: 0.5 });
    expect(await set.beforeCall(ctx(below), signal(), () => undefined)).toEqual([]);
    expect(set.pending()).toBeUndefined();
    expect(await set.beforeCall(ctx(past), signal(), () => undefined)).toEqual([]);
    expect(set.pending()).toEqual(expect.objectContaining({ trigger: 'auto', ready: false }));
    set.cancelBackground();
    const byDefault = engine(provider);
    expect(await byDefault.beforeCall(ctx(past), signal(), () => undefined)).toEqual([]);
    expect(byDefault.pending()).toBeUndefined();
  });
});
