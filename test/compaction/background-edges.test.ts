// The edges of the background summary (compaction/background.ts) the other background files leave
// out: the job's deadline timer cleared when it settles or is cancelled (a timer left behind marks
// a finished job timed out), the deadline's own words, where a summary starts by default, the
// breaker counting an automatic summary's failure and not a manual one's, the job ending at the
// commit that names its draft, and the answers with no job at all.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BackgroundJob, type JobStart, prefirePoint } from '../../src/compaction/background.js';
import type { CompactionOutcome, CompactionEngine } from '../../src/compaction/engine.js';
import type { HeadDraft } from '../../src/compaction/headSummary.js';
import { bareRecord, CANCELLED, type Outcome } from '../../src/compaction/outcome.js';
import { loadTokenizer, TokenCounter } from '../../src/compaction/tokens.js';
import type { CompactionConfig } from '../../src/config/schema.js';
import type { CompactionEvent } from '../../src/protocol/events.js';
import { assistant, backgroundEngine, cfg, ctx, historyAfter, historyUpTo, results, ScriptedProvider, SUMMARY, tokensText, user } from './helpers.js';

let counter: TokenCounter;
beforeAll(async () => {
  await loadTokenizer();
  counter = new TokenCounter();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A run that ends only when its signal aborts. */
const hanging: JobStart['run'] = (signal) =>
  new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

const job = (run: JobStart['run'], deadlineMs: number): BackgroundJob =>
  new BackgroundJob({ trigger: 'auto', startedAt: 0, deadlineMs, run, emit: () => undefined, settled: () => undefined }, deadlineMs);

describe("a background job's deadline", () => {
  it('is cleared when the job settles: a draft written in time is never marked timed out, nor its signal aborted', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const j = job(async () => ({ snapshot: [] }) as unknown as HeadDraft, 1_000);
    await j.done;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(j.timedOut).toBe(false);
    expect(j.signal.aborted).toBe(false);
    expect(j.draft()).toBeDefined();
  });

  it('is cleared when the session cancels the job: a run slow to stop is still a cancel, not the deadline', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let finish: (o: Outcome) => void = () => undefined;
    let settled = 0;
    // a run that does not heed its signal: it ends when it ends
    const run: JobStart['run'] = () => new Promise<Outcome>((r) => (finish = r));
    const j = new BackgroundJob({ trigger: 'auto', startedAt: 0, deadlineMs: 1_000, run, emit: () => undefined, settled: () => settled++ }, 1_000);
    await vi.advanceTimersByTimeAsync(0);
    j.cancel();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(j.timedOut).toBe(false);
    finish({ record: bareRecord(0, 'auto', 0, 0, { status: 'failed', reason: CANCELLED }) });
    await j.done;
    expect(j.ended()?.record.reason).toBe(CANCELLED);
    expect(settled).toBe(0);
  });

  it('aborts the request with its length in seconds, and names it so in the outcome', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const j = job(hanging, 600_000);
    await vi.advanceTimersByTimeAsync(599_999);
    expect(j.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await j.done;
    expect((j.signal.reason as Error).message).toBe('the summarizer did not answer within 600 s');
    expect(j.ended()?.record.reason).toBe('the summarizer did not answer within 600 s: cancelled, tried again later');
  });

  it('a run that throws something not an Error fails with its text', async () => {
    const j = job(() => Promise.reject('the socket closed'), 60_000);
    await j.done;
    expect(j.ended()?.record).toEqual(expect.objectContaining({ status: 'failed', reason: 'the socket closed' }));
  });
});

describe('where an automatic summary starts', () => {
  it('compaction.prefire: its share of the auto threshold, rounded; by default the auto threshold less the tail, never below 0', () => {
    expect(prefirePoint(cfg({ prefire: 0.5 }), 77_001, 10_000)).toBe(38_501);
    expect(prefirePoint(cfg(), 77_000, 18_480)).toBe(58_520);
    expect(prefirePoint(cfg(), 10_000, 18_480)).toBe(0);
    expect(prefirePoint(cfg(), 10_000, 10_000)).toBe(0);
  });
});

const signal = () => new AbortController().signal;

const engine = (provider: ScriptedProvider, over: Partial<CompactionConfig> = {}): CompactionEngine => backgroundEngine(counter, provider, over);

describe('the background summary and the rest of the engine', () => {
  it('with no job: nothing to cancel, nothing to wait for, nothing pending; with the background summary off, no /compact in the background and nothing at rest', async () => {
    const e = engine(new ScriptedProvider(() => ({ text: SUMMARY })));
    expect(e.cancelBackground()).toBe(false);
    expect(await e.settleBackground()).toBe(false);
    expect(e.pending()).toBeUndefined();
    const off = engine(new ScriptedProvider(() => ({ text: SUMMARY })), { background: false });
    const history = historyUpTo(off, 20_000);
    expect(off.cancelBackground()).toBe(false);
    expect(await off.settleBackground()).toBe(false);
    expect(await off.startManual(ctx(history), undefined, () => undefined)).toBe(false);
    expect(await off.atRest(ctx(history), () => undefined)).toEqual([]);
    expect(off.pending()).toBeUndefined();
  });

  it('a summary written in the background says so where it starts (the live row reads it); a synchronous one does not', async () => {
    const e = engine(new ScriptedProvider(() => ({ text: SUMMARY })));
    const history = historyUpTo(e, 20_000);
    const tokensBefore = e.tokens(ctx(history));
    const events: CompactionEvent[] = [];
    expect(await e.startManual(ctx(history), 'the parser', (ev) => void events.push(ev))).toBe(true);
    expect(await e.settleBackground()).toBe(true);
    expect(events[0]).toEqual({ type: 'compaction_start', trigger: 'manual', focus: 'the parser', tokensBefore, background: true });
    const sync = engine(new ScriptedProvider(() => ({ text: SUMMARY })), { background: false });
    const syncEvents: CompactionEvent[] = [];
    await sync.manual(ctx(history), undefined, signal(), (ev) => void syncEvents.push(ev));
    expect(syncEvents[0]).toEqual({ type: 'compaction_start', trigger: 'manual', tokensBefore });
  });

  it('an automatic summary started early keeps of its snapshot only the least tail: what came after it is the tail at the swap', async () => {
    const e = engine(new ScriptedProvider(() => ({ text: SUMMARY })), { prefire: 0.5 });
    const { auto } = e.thresholds();
    const history = historyUpTo(e, 30_000);
    let snapshotLength: number | undefined;
    let swapped: CompactionOutcome | undefined;
    for (let i = 0; swapped === undefined && i < 40; i++) {
      history.push(user(`step ${i}`), assistant(tokensText(2_000, `s${i}`)));
      [swapped] = await e.beforeCall(ctx(history), signal(), () => undefined);
      if (snapshotLength === undefined && e.pending()) snapshotLength = history.length;
      await e.settleBackground();
    }
    expect(snapshotLength).toBeDefined();
    expect(swapped?.record).toEqual(expect.objectContaining({ status: 'applied', trigger: 'auto', tokensBefore: expect.any(Number) }));
    expect(swapped!.record.tokensBefore).toBeGreaterThanOrEqual(auto);
    // the snapshot's tail budget is what the synchronous path keeps less the growth to come (none
    // left here: the least tail, its last turn); mutation: the budget not passed, the snapshot keeps its full tail
    expect(swapped!.record.preservedCount).toBe(history.length - snapshotLength! + 2);
  });

  it('/compact in the background keeps the tail the synchronous /compact keeps', async () => {
    const e = engine(new ScriptedProvider(() => ({ text: SUMMARY })));
    const history = historyUpTo(e, 30_000);
    expect(await e.startManual(ctx(history), undefined, () => undefined)).toBe(true);
    expect(await e.settleBackground()).toBe(true);
    const [o] = await e.atRest(ctx(history), () => undefined);
    const sync = engine(new ScriptedProvider(() => ({ text: SUMMARY })), { background: false });
    const s = await sync.manual(ctx(history), undefined, signal(), () => undefined);
    expect(o?.record.status).toBe('applied');
    expect(s.record.status).toBe('applied');
    expect(o?.record.preservedCount).toBe(s.record.preservedCount);
    expect(s.record.preservedCount).toBeGreaterThan(2);
  });

  it('the guards hear a background compaction: an automatic swap starts the cooldown and counts toward thrash; a manual one does neither', async () => {
    const e = engine(new ScriptedProvider(() => ({ text: SUMMARY })), { cooldownTurns: 2 });
    const history = historyUpTo(e, e.thresholds().auto);
    expect(await e.beforeCall(ctx(history), signal(), () => undefined)).toEqual([]);
    expect(await e.settleBackground()).toBe(true);
    const [swapped] = await e.beforeCall(ctx(history), signal(), () => undefined);
    expect(swapped?.record).toEqual(expect.objectContaining({ status: 'applied', trigger: 'auto' }));
    expect(e.state()).toMatchObject({ cooldownTurnsLeft: 2, compactionsWithoutProgress: 1 });
    const m = engine(new ScriptedProvider(() => ({ text: SUMMARY })), { cooldownTurns: 2 });
    const o = await m.manual(ctx(history), undefined, signal(), () => undefined);
    expect(o.record).toEqual(expect.objectContaining({ status: 'applied', trigger: 'manual' }));
    expect(m.state()).toMatchObject({ cooldownTurnsLeft: 0, compactionsWithoutProgress: 0 });
  });

  it("an automatic summary's failure counts against the breaker and says when it opens it; a manual one's does not", async () => {
    const down = () => new ScriptedProvider(() => new Error('the summarizer is down'));
    const auto = engine(down(), { maxFailures: 1 });
    const history = historyUpTo(auto, auto.thresholds().auto);
    const events: CompactionEvent[] = [];
    const emit = (ev: CompactionEvent): void => void events.push(ev);
    expect(await auto.beforeCall(ctx(history), signal(), emit)).toEqual([]);
    expect(await auto.settleBackground()).toBe(true);
    const [failed] = await auto.beforeCall(ctx(history), signal(), emit);
    expect(failed?.record).toEqual(expect.objectContaining({ status: 'failed', trigger: 'auto' }));
    expect(auto.state()).toMatchObject({ consecutiveFailures: 1, breakerOpen: true });
    const skipped = events.filter((ev) => ev.type === 'compaction_skipped');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatchObject({ trigger: 'auto', reason: expect.stringMatching(/^Automatic compaction failed 1 times in a row and is paused/) });
    // the breaker open, no summary starts in the background either (mutation: mayPrefire's `auto && !stopped()` made `||`)
    await auto.beforeCall(ctx(history), signal(), emit);
    expect(auto.pending()).toBeUndefined();

    const manual = engine(down(), { maxFailures: 1 });
    const quiet: CompactionEvent[] = [];
    expect(await manual.startManual(ctx(history), undefined, (ev) => void quiet.push(ev))).toBe(true);
    expect(await manual.settleBackground()).toBe(true);
    const [manualFailed] = await manual.atRest(ctx(history), (ev) => void quiet.push(ev));
    expect(manualFailed?.record).toEqual(expect.objectContaining({ status: 'failed', trigger: 'manual' }));
    expect(manual.state()).toMatchObject({ consecutiveFailures: 0, breakerOpen: false });
    expect(quiet.filter((ev) => ev.type === 'compaction_skipped')).toEqual([]);
  });

  it('a swapped-in draft stays pending until the session commits the compaction that names it; another commit leaves it', async () => {
    const e = engine(new ScriptedProvider(() => ({ text: SUMMARY })));
    const history = historyUpTo(e, 20_000);
    expect(await e.startManual(ctx(history), undefined, () => undefined)).toBe(true);
    expect(await e.settleBackground()).toBe(true);
    const [o] = await e.atRest(ctx(history), () => undefined);
    expect(o?.record.status).toBe('applied');
    expect(e.pending()).toEqual(expect.objectContaining({ trigger: 'manual', ready: true }));
    const after = historyAfter(history, o!);
    e.committed({ ...o!.record, id: 'another compaction' }, after, ctx(after));
    expect(e.pending()).toEqual(expect.objectContaining({ ready: true }));
    e.committed(o!.record, after, ctx(after));
    expect(e.pending()).toBeUndefined();
  });

  it('with auto compaction off, no summary starts in the background past the auto threshold, nor at the hard limit', async () => {
    const provider = new ScriptedProvider(() => ({ text: SUMMARY }));
    const e = engine(provider, { auto: false });
    const history = historyUpTo(e, e.thresholds().blocking + 1_000);
    expect(await e.beforeCall(ctx(history), signal(), () => undefined)).toEqual([]);
    expect(e.pending()).toBeUndefined();
    expect(provider.requests).toHaveLength(0);
  });

  it('a /compact in the background that would not make the context smaller ends its job: recorded once, not tried again at the next boundary', async () => {
    const e = engine(new ScriptedProvider(() => ({ text: `${SUMMARY}\n${tokensText(6_000, 'huge')}` })));
    // the last turn alone fills the kept tail: the draft (written, not refused at once) would only add its summary
    const history = [user('hi'), assistant('hello'), user('now this'), assistant(tokensText(30_000, 'big'))];
    expect(await e.startManual(ctx(history), undefined, () => undefined)).toBe(true);
    expect(await e.settleBackground()).toBe(true);
    expect(e.pending()).toMatchObject({ trigger: 'manual', ready: true });
    const [o] = await e.atRest(ctx(history), () => undefined);
    expect(o?.record.status).toBe('ineffective');
    // mutation: the swap keeping the job after an outcome it did not apply: it would be tried at every boundary
    expect(e.pending()).toBeUndefined();
    expect(await e.atRest(ctx(history), () => undefined)).toEqual([]);
  });

  it('/compact in the background of a short session whose large recent turns fill the kept tail keeps less of them instead of refusing', async () => {
    const e = engine(new ScriptedProvider(() => ({ text: SUMMARY })));
    const history = [
      user('hi'),
      assistant('hello'),
      user('explain part 0'),
      assistant(tokensText(6_000, 'a0')),
      user('explain part 1'),
      assistant(tokensText(6_000, 'a1')),
    ];
    expect(await e.startManual(ctx(history), undefined, () => undefined)).toBe(true);
    expect(await e.settleBackground()).toBe(true);
    const [o] = await e.atRest(ctx(history), () => undefined);
    // mutation: every background draft returned as first written (`run.background || trigger === 'auto'`): "would not be smaller"
    expect(o?.record.status).toBe('applied');
    expect(historyAfter(history, o!).slice(-2)).toEqual(history.slice(-2));
  });

  it('a /compact in the background of a one-message history is answered at rest like any other', async () => {
    const e = engine(new ScriptedProvider(() => ({ text: SUMMARY })));
    const history = [user(tokensText(30_000, 'pasted'))];
    expect(await e.startManual(ctx(history), undefined, () => undefined)).toBe(true);
    expect(await e.settleBackground()).toBe(true);
    // mutation: atRest skipping a history of one message (`length === 1` for `=== 0`): the job would wait for ever
    const [o] = await e.atRest(ctx(history), () => undefined);
    expect(o?.record.trigger).toBe('manual');
    expect(e.pending()).toBeUndefined();
  });

  it('a draft written before a tool loop whose replies think began waits for the loop to end before it swaps in', async () => {
    const e = engine(new ScriptedProvider(() => ({ text: SUMMARY })));
    const history = historyUpTo(e, 20_000);
    expect(await e.startManual(ctx(history), undefined, () => undefined)).toBe(true);
    expect(await e.settleBackground()).toBe(true);
    const call = assistant('', [{ id: 'loop1', name: 'Bash', input: { command: 'ls' } }]);
    call.blocks.unshift({ type: 'thinking', thinking: 'which files are there?', signature: 'sig-loop' });
    const looping = [...history, user('list the files'), call, results([{ id: 'loop1', content: 'a b' }])];
    // mutation: assembleHead's `sameLoop` made `loopNow !== undefined || …`: the new loop is closed into the checkpoint at once
    expect(await e.atRest(ctx(looping), () => undefined)).toEqual([]);
    expect(e.pending()).toMatchObject({ trigger: 'manual', ready: true });
    const ended = [...looping, assistant('two files')];
    const [o] = await e.atRest(ctx(ended), () => undefined);
    expect(o?.record.status).toBe('applied');
    expect(historyAfter(ended, o!).slice(-4)).toEqual(ended.slice(-4));
  });
});
