import { beforeAll, describe, expect, it } from 'vitest';
import { mayTruncateSilently } from '../../src/llm/cache.js';
import { CompactionEngine, type EngineDeps, type Outcome } from '../../src/compaction/engine.js';
import { THRASH_LIMIT } from '../../src/compaction/guards.js';
import { loadTokenizer, TokenCounter } from '../../src/compaction/tokens.js';
import { OMITTED_OUTPUT } from '../../src/compaction/transcript.js';
import type { CompactionConfig } from '../../src/config/schema.js';
import type { CompactionEvent } from '../../src/protocol/events.js';
import { ProviderError } from '../../src/llm/errors.js';
import { textOf, type Message } from '../../src/llm/messages.js';
import { historyProblems } from '../../src/llm/validate.js';
import {
  archivedIds,
  assistant,
  cfg,
  ctx,
  historyAfter,
  LIMITS,
  overflowError,
  type Reply,
  results,
  ScriptedProvider,
  serverError,
  step,
  SUMMARY,
  tokensText,
  user,
} from './helpers.js';

let counter: TokenCounter;
beforeAll(async () => {
  await loadTokenizer();
  counter = new TokenCounter();
});

const COMPACTABLE = ['FileRead', 'Bash', 'Grep', 'Glob', 'Recall'];
/** effective 90,000; micro 70,000; auto 77,000; blocking 87,000 */
const SUMMARIZER_LIMITS = { contextWindow: 400_000, maxOutputTokens: 32_000 };

/**
 * The engine plans; the session commits and then announces each attempt with compaction_end
 * (session/compactor.ts). This stands in for that last step, so the tests read the events
 * a person sees.
 */
class AnnouncingEngine extends CompactionEngine {
  override async beforeCall(...a: Parameters<CompactionEngine['beforeCall']>): Promise<Outcome[]> {
    return announce(await super.beforeCall(...a), a[2]);
  }
  override async reactive(...a: Parameters<CompactionEngine['reactive']>): Promise<Outcome> {
    return announce([await super.reactive(...a)], a[4])[0]!;
  }
  override async manual(...a: Parameters<CompactionEngine['manual']>): Promise<Outcome> {
    return announce([await super.manual(...a)], a[3])[0]!;
  }
}

function announce(outcomes: Outcome[], emit: (e: CompactionEvent) => void): Outcome[] {
  for (const o of outcomes) if (!o.skipped) emit({ type: 'compaction_end', record: o.record });
  return outcomes;
}

function makeEngine(provider: ScriptedProvider, over: Partial<CompactionConfig> = {}, extra: Partial<EngineDeps> = {}, state?: unknown): CompactionEngine {
  return new AnnouncingEngine(
    {
      config: cfg(over),
      limits: LIMITS,
      model: 'test-model',
      summarizer: { provider, model: 'sum-model', limits: SUMMARIZER_LIMITS },
      counter,
      compactableTools: COMPACTABLE,
      ...extra,
    },
    state,
  );
}

const summaryProvider = (text = SUMMARY, delayMs = 0): ScriptedProvider => new ScriptedProvider(() => ({ text }), delayMs);

/** Turns of talk: each answer ~answerTokens, no tool output (micro cannot help). */
function talk(turns: number, answerTokens: number): Message[] {
  const h: Message[] = [];
  for (let i = 0; i < turns; i++) h.push(user(`question ${i}: explain part ${i}`), assistant(tokensText(answerTokens, `a${i}`)));
  return h;
}

/** Talk until the engine's estimate reaches `tokens` (each turn adds ~2,700). */
function talkTo(e: CompactionEngine, tokens: number): Message[] {
  const h: Message[] = [];
  for (let i = 0; e.tokens(ctx(h)) < tokens; i++) h.push(user(`question ${i}`), assistant(tokensText(2_000, `b${i}`)));
  return h;
}

/** Tool-heavy turns: each a Bash step with ~outputTokens of output. */
function toolWork(steps: number, outputTokens: number): Message[] {
  const h: Message[] = [user('run everything')];
  for (let i = 0; i < steps; i++) h.push(...step('Bash', { command: `job ${i}` }, tokensText(outputTokens, `o${i}`)));
  h.push(assistant('all done'));
  return h;
}

function collect(): { events: CompactionEvent[]; emit: (e: CompactionEvent) => void } {
  const events: CompactionEvent[] = [];
  return { events, emit: (e) => events.push(e) };
}

const signal = (): AbortSignal => new AbortController().signal;

function applyAll(engine: CompactionEngine, history: Message[], outcomes: Outcome[]): Message[] {
  let h = history;
  for (const o of outcomes) {
    if (!o.commit) continue;
    h = historyAfter(h, o);
    engine.committed(o.record, h, ctx(h));
  }
  return h;
}

describe('beforeCall', () => {
  it('does nothing below the micro threshold', async () => {
    const p = summaryProvider();
    const e = makeEngine(p);
    const { events, emit } = collect();
    expect(await e.beforeCall(ctx(talk(5, 500)), signal(), emit)).toEqual([]);
    expect(p.requests).toHaveLength(0);
    expect(events).toEqual([]);
  });

  it('with compaction.auto off, the history micro would clear is left whole: no clearing, no summary', async () => {
    const p = summaryProvider();
    const e = makeEngine(p, { auto: false });
    const h = toolWork(40, 2_000);
    expect(e.tokens(ctx(h))).toBeGreaterThan(e.thresholds().auto);
    const { events, emit } = collect();
    expect(await e.beforeCall(ctx(h), signal(), emit)).toEqual([]);
    expect(events).toEqual([]);
    expect(p.requests).toHaveLength(0);
  });

  it('micro: clears old tool outputs without the LLM when that suffices', async () => {
    const p = summaryProvider();
    const e = makeEngine(p);
    const h = toolWork(40, 2_000);
    const before = structuredClone(h);
    const tokens = e.tokens(ctx(h));
    expect(tokens).toBeGreaterThan(e.thresholds().auto);
    const { events, emit } = collect();
    const outcomes = await e.beforeCall(ctx(h), signal(), emit);
    expect(outcomes).toHaveLength(1);
    const [o] = outcomes;
    expect(o!.record).toMatchObject({ trigger: 'micro', status: 'applied', archivedCount: 35, method: 'none' });
    expect(o!.record.tokensAfter).toBeLessThan(e.thresholds().auto);
    expect(o!.commit!.cleared).toHaveLength(35);
    expect(o!.commit!.body.revisions).toHaveLength(35);
    expect(p.requests).toHaveLength(0);
    expect(h).toEqual(before);
    expect(events.map((x) => x.type)).toEqual(['compaction_start', 'compaction_end']);
    const next = applyAll(e, h, outcomes);
    expect(historyProblems(next)).toEqual([]);
    // the accounting re-anchors on the applied change
    expect(e.tokens(ctx(next))).toBe(o!.record.tokensAfter);
    expect(Math.abs(o!.record.tokensAfter - counter.countMessages(next) - counter.countSystem('You are a test agent.'))).toBeLessThan(5);
  });

  it('auto: summarizes the head, keeps the tail, and shrinks the context', async () => {
    const p = summaryProvider();
    const e = makeEngine(p);
    const h = talk(40, 2_200);
    const { events, emit } = collect();
    const outcomes = await e.beforeCall(ctx(h), signal(), emit);
    expect(outcomes.map((o) => o.record.trigger)).toEqual(['auto']);
    const { record } = outcomes[0]!;
    const messages = historyAfter(h, outcomes[0]!);
    expect(record).toMatchObject({ status: 'applied', method: 'single', model: 'sum-model', summary: SUMMARY });
    expect(record.tokensAfter).toBeLessThan(e.thresholds().auto);
    expect(messages[0]!.kind).toBe('checkpoint');
    expect(textOf(messages[0]!)).toContain(SUMMARY);
    expect(outcomes[0]!.commit!.added[0]).toBe(messages[0]);
    expect(archivedIds(h, outcomes[0]!).length + record.preservedCount).toBe(h.length);
    // the tail is the end of the history, unchanged
    const tail = messages.slice(1);
    expect(tail).toEqual(h.slice(h.length - tail.length));
    expect(historyProblems(messages)).toEqual([]);
    expect(events.map((x) => x.type)).toContain('compaction_progress');
    expect(events.at(-1)).toEqual({ type: 'compaction_end', record });
    expect(p.requests[0]!.maxTokens).toBe(8_000);
    expect(p.requests[0]!.tools).toEqual([]);
  });

  it('below the auto threshold, micro clears in batches of at least microKeepRecent outputs', async () => {
    const e = makeEngine(summaryProvider(), { microKeepRecent: 5 });
    const base = talkTo(e, e.thresholds().micro + 500);
    const few = [...base, ...toolWork(8, 300)]; // 3 clearable outputs
    const enough = [...base, ...toolWork(10, 300)]; // 5 clearable outputs
    for (const h of [few, enough]) {
      expect(e.tokens(ctx(h))).toBeGreaterThanOrEqual(e.thresholds().micro);
      expect(e.tokens(ctx(h))).toBeLessThan(e.thresholds().auto);
    }
    expect(await e.beforeCall(ctx(few), signal(), collect().emit)).toEqual([]);
    const [o] = await e.beforeCall(ctx(enough), signal(), collect().emit);
    expect(o!.record).toMatchObject({ trigger: 'micro', archivedCount: 5 });
  });

  it('with a warm prompt cache, a clear too small to last gives way to auto compaction; a cold cache or a failed summary clears', async () => {
    let now = 1_000_000;
    const warm = (provider: ScriptedProvider) => makeEngine(provider, {}, { cacheTtlMs: 300_000, now: () => now });
    // over the auto threshold by a little, with ~2 small clearable outputs: clearing would just put it under
    const base = [...toolWork(8, 600), ...talk(1, 10)];
    const probe = warm(summaryProvider());
    let h = base;
    for (let i = 0; probe.tokens(ctx(h)) < probe.thresholds().auto + 200; i++) h = [...h, user(`q ${i}`), assistant(tokensText(1_500, `w${i}`))];
    const e = warm(summaryProvider());
    e.observeResponse({ system: 'You are a test agent.', tools: [], messages: h.slice(0, -2) }, e.tokens(ctx(h.slice(0, -2))));
    const outcomes = await e.beforeCall(ctx(h), signal(), collect().emit);
    expect(outcomes.map((o) => o.record.trigger)).toEqual(['auto']);
    // the same history once the cache has gone cold: clearing is free, micro suffices
    const cold = warm(summaryProvider());
    cold.observeResponse({ system: 'You are a test agent.', tools: [], messages: h.slice(0, -2) }, cold.tokens(ctx(h.slice(0, -2))));
    now += 300_000;
    expect((await cold.beforeCall(ctx(h), signal(), collect().emit)).map((o) => o.record.trigger)).toEqual(['micro']);
    // warm, and the summary fails: whatever is clearable is cleared all the same
    now = 1_000_000;
    const failing = makeEngine(new ScriptedProvider(() => serverError()), {}, { cacheTtlMs: 300_000, now: () => now });
    failing.observeResponse({ system: 'You are a test agent.', tools: [], messages: h.slice(0, -2) }, failing.tokens(ctx(h.slice(0, -2))));
    expect((await failing.beforeCall(ctx(h), signal(), collect().emit)).map((o) => `${o.record.trigger}:${o.record.status}`)).toEqual([
      'auto:failed',
      'micro:applied',
    ]);
  });

  it('when clearing would not be enough, auto compaction runs instead and summarizes the full outputs', async () => {
    const p = summaryProvider();
    const e = makeEngine(p);
    const h = [...toolWork(12, 2_000), ...talk(30, 2_500)];
    const outcomes = await e.beforeCall(ctx(h), signal(), collect().emit);
    expect(outcomes.map((o) => o.record.trigger)).toEqual(['auto']);
    expect(p.prompt(0)).toContain(tokensText(2_000, 'o3').slice(0, 200));
    expect(p.prompt(0)).not.toMatch(/cleared to save context/);
    expect(historyProblems(applyAll(e, h, outcomes))).toEqual([]);
  });

  it('when the summary fails, clearing old outputs is the fallback', async () => {
    const e = makeEngine(new ScriptedProvider(() => serverError()));
    const h = [...toolWork(12, 2_000), ...talk(30, 2_500)];
    const outcomes = await e.beforeCall(ctx(h), signal(), collect().emit);
    expect(outcomes.map((o) => [o.record.trigger, o.record.status])).toEqual([
      ['auto', 'failed'],
      ['micro', 'applied'],
    ]);
    expect(outcomes[1]!.commit!.cleared).toHaveLength(7);
    expect(historyProblems(applyAll(e, h, outcomes))).toEqual([]);
  });
});

describe('guards', () => {
  it('the breaker opens after maxFailures failed auto compactions; reactive still works and closes it', async () => {
    let fail = true;
    const p = new ScriptedProvider(() => (fail ? serverError() : { text: SUMMARY }));
    const e = makeEngine(p);
    const h = talk(40, 2_200);
    const before = structuredClone(h);
    const { events, emit } = collect();
    for (let i = 0; i < 3; i++) {
      const [o] = await e.beforeCall(ctx(h), signal(), emit);
      expect(o!.record.status).toBe('failed');
      expect(o!.commit).toBeUndefined();
      expect(o!.record.reason).toMatch(/overloaded/);
    }
    expect(e.state()).toMatchObject({ consecutiveFailures: 3, breakerOpen: true });
    const skipped = events.filter((x) => x.type === 'compaction_skipped');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatchObject({ trigger: 'auto', reason: expect.stringMatching(/failed 3 times in a row/) });
    expect(e.usage(ctx(h))).toMatchObject({ autoCompactEnabled: false, notice: expect.stringMatching(/paused/) });
    const requests = p.requests.length;
    expect(await e.beforeCall(ctx(h), signal(), emit)).toEqual([]);
    expect(p.requests.length).toBe(requests);
    expect(events.filter((x) => x.type === 'compaction_skipped')).toHaveLength(1); // told once
    expect(h).toEqual(before);
    fail = false;
    const r = await e.reactive(ctx(h), { promptTokens: 120_000, limit: 100_000 }, 1, signal(), emit);
    expect(r.record).toMatchObject({ trigger: 'reactive', status: 'applied' });
    expect(e.state()).toMatchObject({ consecutiveFailures: 0, breakerOpen: false });
  });

  it('a /compact that works proves the summarizer: auto compaction, paused by failures, is on again', async () => {
    let fail = true;
    const p = new ScriptedProvider(() => (fail ? serverError() : { text: SUMMARY }));
    const e = makeEngine(p);
    const h = talk(40, 2_200);
    for (let i = 0; i < 3; i++) await e.beforeCall(ctx(h), signal(), collect().emit);
    expect(e.usage(ctx(h))).toMatchObject({ autoCompactEnabled: false, notice: expect.stringMatching(/paused/) });
    fail = false;
    const o = await e.manual(ctx(h), undefined, signal(), collect().emit);
    expect(o.record).toMatchObject({ trigger: 'manual', status: 'applied' });
    expect(e.usage(ctx(historyAfter(h, o)))).toMatchObject({ autoCompactEnabled: true });
    expect(e.usage(ctx(historyAfter(h, o))).notice).toBeUndefined();
  });

  it('a cancelled compaction is not a failure', async () => {
    const p = summaryProvider();
    const e = makeEngine(p);
    const ac = new AbortController();
    ac.abort();
    const [o] = await e.beforeCall(ctx(talk(40, 2_200)), ac.signal, collect().emit);
    expect(o!.record).toMatchObject({ status: 'failed', reason: 'cancelled' });
    expect(e.state().consecutiveFailures).toBe(0);
  });

  it('cooldown holds auto compaction back for cooldownTurns turns, unless the context is blocking', async () => {
    const p = summaryProvider();
    const e = makeEngine(p, { cooldownTurns: 2 });
    const first = await e.beforeCall(ctx(talk(40, 2_200)), signal(), collect().emit);
    expect(first[0]!.record.status).toBe('applied');
    const h2 = talkTo(e, e.thresholds().auto + 1_000); // above auto, below blocking
    const t2 = e.tokens(ctx(h2));
    expect(t2).toBeGreaterThanOrEqual(e.thresholds().auto);
    expect(t2).toBeLessThan(e.thresholds().blocking);
    const { events, emit } = collect();
    expect(await e.beforeCall(ctx(h2), signal(), emit)).toEqual([]);
    expect(events).toEqual([{ type: 'compaction_skipped', trigger: 'auto', reason: 'cooldown after the last compaction (2 more turns)' }]);
    e.turnCompleted();
    expect(await e.beforeCall(ctx(h2), signal(), emit)).toEqual([]);
    e.turnCompleted();
    expect((await e.beforeCall(ctx(h2), signal(), emit))[0]!.record.status).toBe('applied');
    // in cooldown again, but at the blocking threshold compaction goes ahead
    const h3 = talk(42, 2_200);
    expect(e.tokens(ctx(h3))).toBeGreaterThanOrEqual(e.thresholds().blocking);
    expect((await e.beforeCall(ctx(h3), signal(), emit))[0]!.record.status).toBe('applied');
  });

  it('thrash: three compactions in a row without progress stop auto compaction until a turn completes', async () => {
    const p = summaryProvider();
    const e = makeEngine(p, { maxReactiveAttempts: 10 });
    for (let i = 1; i <= THRASH_LIMIT; i++) {
      const r = await e.reactive(ctx(talk(40, 2_200)), undefined, i, signal(), collect().emit);
      expect(r.record.status).toBe('applied');
    }
    expect(e.state().thrashStopped).toBe(true);
    const { events, emit } = collect();
    expect(await e.beforeCall(ctx(talk(40, 2_200)), signal(), emit)).toEqual([]);
    expect(events).toEqual([
      { type: 'compaction_skipped', trigger: 'auto', reason: expect.stringMatching(/3 times in a row without the model making progress/) },
    ]);
    e.turnCompleted();
    expect(e.state()).toMatchObject({ thrashStopped: false, compactionsWithoutProgress: 0 });
  });

  it('a model response between compactions is progress: no thrash', async () => {
    const p = summaryProvider();
    const e = makeEngine(p, { maxReactiveAttempts: 10 });
    for (let i = 1; i <= 4; i++) {
      await e.reactive(ctx(talk(40, 2_200)), undefined, 1, signal(), collect().emit);
      e.observeResponse({ system: '', tools: [], messages: [user('x')] }, 10);
    }
    expect(e.state().thrashStopped).toBe(false);
  });

  it('exhausted: when compaction cannot get under the threshold, auto stops and the user is told once', async () => {
    const p = summaryProvider();
    const e = makeEngine(p);
    const pinned = user(tokensText(80_000, 'pin'), { pinned: true });
    const h = [pinned, assistant('noted'), ...talk(10, 1_500)];
    const [o] = await e.beforeCall(ctx(h), signal(), collect().emit);
    expect(o!.record.status).toBe('applied'); // it did shrink...
    expect(o!.record.tokensAfter).toBeGreaterThanOrEqual(e.thresholds().auto); // ...but not enough
    expect(historyAfter(h, o!)).toContain(pinned);
    const next = applyAll(e, h, [o!]);
    const { events, emit } = collect();
    await e.beforeCall(ctx([...next, user('more')]), signal(), emit);
    await e.beforeCall(ctx([...next, user('more'), assistant('ok')]), signal(), emit);
    const skipped = events.filter((x) => x.type === 'compaction_skipped');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatchObject({ reason: expect.stringMatching(/\/clear/) });
    expect(p.requests).toHaveLength(1);
    // the context shrinks by other means (e.g. /clear): the state lifts
    await e.beforeCall(ctx([user('fresh start')]), signal(), emit);
    expect(e.state().exhausted).toBe(false);
  });

  it('exhausted: a context that grows again past blocking is compacted once more (Ollama-sized windows where the tools alone fill half)', async () => {
    // mutation: `regrownPastBlocking` returning false (exhaustion holding back for good) fails the last expect
    const p = summaryProvider();
    const e = makeEngine(p);
    const pinned = user(tokensText(80_000, 'pin'), { pinned: true });
    const h = [pinned, assistant('noted'), ...talk(10, 1_500)];
    const [o] = await e.beforeCall(ctx(h), signal(), collect().emit);
    expect(o!.record.tokensAfter).toBeGreaterThanOrEqual(e.thresholds().auto);
    expect(e.state().exhausted).toBe(true);
    const next = applyAll(e, h, [o!]);
    // a little growth below blocking: still held back
    const small = await e.beforeCall(ctx([...next, user('more'), assistant('ok')]), signal(), collect().emit);
    expect(small.filter((x) => x.record.status === 'applied')).toHaveLength(0);
    expect(p.requests).toHaveLength(1);
    // the conversation grows well past blocking: compacting has new turns to summarize
    const grown = [...next, ...talk(12, 2_000)];
    const t = e.thresholds();
    expect(e.usage(ctx(grown)).tokens).toBeGreaterThanOrEqual(t.blocking);
    const again = await e.beforeCall(ctx(grown), signal(), collect().emit);
    expect(again.some((x) => x.record.status === 'applied')).toBe(true);
  });

  it('the guard state survives a JSON round trip (a resumed session keeps its cadence)', async () => {
    const p = new ScriptedProvider(() => serverError());
    const e = makeEngine(p, { maxFailures: 2 });
    await e.beforeCall(ctx(talk(40, 2_200)), signal(), collect().emit);
    await e.beforeCall(ctx(talk(40, 2_200)), signal(), collect().emit);
    e.observeResponse({ system: 'sys', tools: [], messages: talk(3, 1_000) }, 4_000);
    const stored = JSON.parse(JSON.stringify(e.state())) as unknown;
    const resumed = makeEngine(summaryProvider(), { maxFailures: 2 }, {}, stored);
    expect(resumed.state()).toEqual(e.state());
    expect(resumed.usage(ctx(talk(40, 2_200))).autoCompactEnabled).toBe(false);
    expect(resumed.ratio()).toBe(e.ratio());
  });
});

describe('summary validation', () => {
  const failWith = async (reply: Reply): Promise<Outcome> => {
    const e = makeEngine(new ScriptedProvider(() => reply));
    const h = talk(40, 2_200);
    const before = structuredClone(h);
    const [o] = await e.beforeCall(ctx(h), signal(), collect().emit);
    expect(h).toEqual(before);
    return o!;
  };

  it('an empty summary is a failure', async () => {
    const o = await failWith({ text: '   ' });
    expect(o.record).toMatchObject({ status: 'failed', reason: expect.stringMatching(/empty summary/) });
    expect(o.commit).toBeUndefined();
  });

  it('a summary cut off at max_tokens is a failure', async () => {
    const o = await failWith({ text: '## Goal\n- half a summ', stopReason: 'max_tokens' });
    expect(o.record).toMatchObject({ status: 'failed', reason: expect.stringMatching(/cut off at its 8,000-token limit/) });
  });

  it('a refused compaction whose tail is already the least there is asks no second summary', async () => {
    const p = summaryProvider(`## Goal\n${tokensText(6_000, 'huge')}`);
    const e = makeEngine(p);
    // the last turn alone is past the tail budget: the kept tail is the current step already
    const h = [user('hi'), assistant('hello'), user('now this'), assistant(tokensText(30_000, 'big'))];
    const { events, emit } = collect();
    const o = await e.manual(ctx(h), undefined, signal(), emit);
    expect(o.record).toMatchObject({ status: 'ineffective', reason: expect.stringMatching(/would not be smaller/) });
    // mutation: `least.index < split.index` in planHead: the same tail summarized again, for nothing
    expect(p.requests).toHaveLength(1);
    expect(events.some((ev) => ev.type === 'compaction_progress' && /keeping less/.test(ev.stage))).toBe(false);
  });

  it('a refused compaction closing a thinking tool loop says it keeps only the current step, of 0 tokens', async () => {
    const e = makeEngine(summaryProvider(`## Goal\n${tokensText(6_000, 'huge')}`));
    const [call, result] = step('Bash', { command: 'ls' }, 'a b');
    call.blocks.unshift({ type: 'thinking', thinking: 'which files are there?', signature: 'sig-loop' });
    const h = [user('hi'), assistant('hello'), user('list the files'), call, result];
    const o = await e.manual(ctx(h), undefined, signal(), collect().emit);
    expect(o.record.status).toBe('ineffective');
    // mutation: chooseSplit's loop split with a tail of 1 token
    expect(o.record.reason).toMatch(/: it keeps the current step \(0 tokens\) and a [\d,]+-token summary\)$/);
  });

  it('a compaction that would not shrink the context is not applied', async () => {
    const e = makeEngine(summaryProvider(`## Goal\n${tokensText(6_000, 'huge')}`));
    const h = talk(4, 300);
    const { events, emit } = collect();
    const o = await e.manual(ctx(h), undefined, signal(), emit);
    expect(o.record).toMatchObject({ status: 'ineffective', reason: expect.stringMatching(/would not be smaller/) });
    expect(o.commit).toBeUndefined();
    expect(events.at(-1)).toEqual({ type: 'compaction_end', record: o.record });
  });

  it('/compact of a short session whose large recent turns fill the kept tail keeps less of them instead of refusing', async () => {
    const e = makeEngine(summaryProvider());
    // the three kept turns (tailTurns 3, 20,000 tokens) are everything but a greeting: summarizing
    // the greeting alone made a checkpoint larger than it, and /compact said "would not be smaller"
    const h = [user('hi'), assistant('hello'), ...talk(2, 6_000)];
    const { events, emit } = collect();
    const o = await e.manual(ctx(h), undefined, signal(), emit);
    expect(o.record).toMatchObject({ status: 'applied' });
    expect(o.record.tokensAfter).toBeLessThan(o.record.tokensBefore * 0.75);
    const after = historyAfter(h, o);
    expect(historyProblems(after)).toEqual([]);
    // the last turn is kept whole; the one before it went into the summary
    expect(after.slice(-2)).toEqual(h.slice(-2));
    expect(archivedIds(h, o)).toEqual(h.slice(0, 4).map((m) => m.id));
    expect(events.some((ev) => ev.type === 'compaction_progress' && /keeping less/.test(ev.stage))).toBe(true);
    // mutation: summarizeHead returning its first plan (no second one with the least tail) refuses with "would not be smaller"
  });

  it('a refusal says what the compacted context would keep', async () => {
    const e = makeEngine(summaryProvider(`## Goal\n${tokensText(6_000, 'huge')}`));
    const o = await e.manual(ctx(talk(4, 300)), undefined, signal(), collect().emit);
    expect(o.record.reason).toMatch(
      /would not be smaller than the current one \([\d,]+ vs [\d,]+ tokens: it keeps the last turn \([\d,]+ tokens\) and a [\d,]+-token summary\)/,
    );
    // mutation: the bare reason of before (no figures, nothing on what it keeps) fails the match
  });

  it('nothing to compact in a single turn', async () => {
    const e = makeEngine(summaryProvider());
    const o = await e.manual(ctx([user('hi'), assistant('hello')]), undefined, signal(), collect().emit);
    expect(o.record).toMatchObject({ status: 'ineffective', reason: expect.stringMatching(/nothing to compact/) });
  });
});

describe('summarizer fallbacks', () => {
  it('on a context overflow it retries without tool outputs, middle-out', async () => {
    const p = new ScriptedProvider((_req, i) => (i === 0 ? overflowError() : { text: SUMMARY }));
    const e = makeEngine(p);
    const h = [...toolWork(10, 500), ...talk(40, 2_200)];
    const o = await e.manual(ctx(h), undefined, signal(), collect().emit);
    expect(o.record).toMatchObject({ status: 'applied', method: 'trimmed' });
    expect(p.prompt(0)).not.toContain(OMITTED_OUTPUT);
    expect(p.prompt(1).split(OMITTED_OUTPUT).length - 1).toBe(1); // 10% of 10 outputs
  });

  it('falls through 10%, 20%, 50%, 100% to a metadata-only checkpoint, and the session goes on', async () => {
    // an overflow that states no figures (e.g. LM Studio's older wording): nothing to learn the window from
    const p = new ScriptedProvider(
      () => new ProviderError({ kind: 'context_overflow', provider: 'openai', status: 400, message: 'context overflow', overflow: {} }),
    );
    const e = makeEngine(p);
    const h = [...toolWork(10, 500), ...talk(40, 2_200)];
    const { events, emit } = collect();
    const o = await e.manual(ctx(h), undefined, signal(), emit);
    expect(o.record).toMatchObject({ status: 'applied', method: 'metadata' });
    expect(o.record.summary).toMatch(/built without a summarizer/);
    expect(o.record.summary).toContain('`job 3`');
    const omitted = p.requests.map((_, i) => p.prompt(i).split(OMITTED_OUTPUT).length - 1);
    expect(omitted).toEqual([0, 1, 2, 5, 10]);
    const stages = events.flatMap((x) => (x.type === 'compaction_progress' ? [x.stage] : []));
    expect(stages.filter((s) => /retrying without/.test(s))).toHaveLength(4);
    expect(historyProblems(historyAfter(h, o))).toEqual([]);
  });

  it('sizes its retries to the limit an overflow error states, chunking instead of giving up', async () => {
    // the table says 400K, the provider really holds 6,000 tokens (prompt and summary output together)
    const counter = new TokenCounter();
    const p = new ScriptedProvider((req) => {
      const size = counter.countText(req.system) + counter.countText(textOf(req.messages[0]!)) + req.maxTokens;
      if (size > 6_000) {
        return new ProviderError({
          kind: 'context_overflow',
          provider: 'openai',
          status: 400,
          message: `maximum context length is 6000 tokens; you requested ${size}`,
          overflow: { promptTokens: size, limit: 6_000 },
        });
      }
      return { text: SUMMARY };
    });
    const e = makeEngine(p);
    const o = await e.manual(ctx(talk(12, 1_500)), undefined, signal(), collect().emit);
    expect(o.record).toMatchObject({ status: 'applied' });
    expect(o.record.method).not.toBe('metadata');
    const accepted = p.requests.slice(1);
    expect(accepted.every((r) => r.maxTokens <= 1_500)).toBe(true);
  });

  it('a failure other than an overflow fails the compaction', async () => {
    const e = makeEngine(new ScriptedProvider(() => serverError()));
    const o = await e.manual(ctx(talk(40, 2_200)), undefined, signal(), collect().emit);
    expect(o.record.status).toBe('failed');
  });

  it("retries a transient failure (overload, 5xx) with the session's backoff, and says so", async () => {
    const overloaded = (): ProviderError => new ProviderError({ kind: 'overloaded', provider: 'anthropic', status: 529, message: 'Overloaded' });
    const p = new ScriptedProvider((_req, i) => (i < 2 ? (i === 0 ? overloaded() : serverError()) : { text: SUMMARY }));
    const retry = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 };
    const e = makeEngine(p, {}, { summarizer: { provider: p, model: 'sum-model', limits: SUMMARIZER_LIMITS, retry } });
    const { events, emit } = collect();
    const o = await e.manual(ctx(talk(40, 2_200)), undefined, signal(), emit);
    expect(o.record.status).toBe('applied');
    expect(p.requests).toHaveLength(3);
    const stages = events.flatMap((x) => (x.type === 'compaction_progress' ? [x.stage] : []));
    expect(stages.filter((s) => /retrying in/.test(s))).toEqual([
      expect.stringMatching(/failed \(overloaded\): retrying in 0\.0s \(2\/3\)/),
      expect.stringMatching(/retrying in .* \(3\/3\)/),
    ]);
  });

  it('gives up after maxAttempts, and never retries what retrying cannot fix', async () => {
    const retry = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 };
    const down = new ScriptedProvider(() => serverError());
    const o1 = await makeEngine(down, {}, { summarizer: { provider: down, model: 's', limits: SUMMARIZER_LIMITS, retry } }).manual(
      ctx(talk(40, 2_200)),
      undefined,
      signal(),
      collect().emit,
    );
    expect(o1.record.status).toBe('failed');
    expect(down.requests).toHaveLength(2);
    const invalid = new ScriptedProvider(() => new ProviderError({ kind: 'bad_request', provider: 'anthropic', status: 400, message: 'bad request' }));
    const o2 = await makeEngine(invalid, {}, { summarizer: { provider: invalid, model: 's', limits: SUMMARIZER_LIMITS, retry } }).manual(
      ctx(talk(40, 2_200)),
      undefined,
      signal(),
      collect().emit,
    );
    expect(o2.record).toMatchObject({ status: 'failed', reason: expect.stringContaining('bad request') });
    expect(invalid.requests).toHaveLength(1);
  });

  it('an interrupt while waiting to retry cancels the compaction at once', async () => {
    const p = new ScriptedProvider(
      () => new ProviderError({ kind: 'rate_limit', provider: 'anthropic', status: 429, message: 'slow down', retryAfterMs: 60_000 }),
    );
    const e = makeEngine(
      p,
      {},
      { summarizer: { provider: p, model: 's', limits: SUMMARIZER_LIMITS, retry: { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 60_000 } } },
    );
    const ac = new AbortController();
    const { events, emit } = collect();
    const running = e.manual(ctx(talk(40, 2_200)), undefined, ac.signal, (ev) => {
      emit(ev);
      if (ev.type === 'compaction_progress' && /retrying in 60\.0s/.test(ev.stage)) ac.abort();
    });
    const o = await running;
    expect(o.record).toMatchObject({ status: 'failed', reason: 'cancelled' });
    expect(e.state().consecutiveFailures).toBe(0);
    expect(p.requests).toHaveLength(1);
    expect(events.some((x) => x.type === 'compaction_progress' && /retrying in 60\.0s \(2\/5\)/.test(x.stage))).toBe(true);
  });

  it('chunks a head larger than the summarizer budget, with bounded concurrency, then consolidates', async () => {
    const p = new ScriptedProvider(
      (req) => ({ text: textOf(req.messages[0]!).includes('<partial_summary') ? SUMMARY : `## Goal\n- partial ${Math.random()}` }),
      5,
    );
    const e = makeEngine(p, { summaryInputTokens: 8_000, chunkConcurrency: 2 });
    const { events, emit } = collect();
    const o = await e.manual(ctx(talk(40, 2_200)), undefined, signal(), emit);
    expect(o.record).toMatchObject({ status: 'applied', method: 'chunked', summary: SUMMARY });
    const chunks = p.requests.filter((r) => /part \d+ of \d+/.test(textOf(r.messages[0]!)));
    expect(chunks.length).toBeGreaterThanOrEqual(8);
    expect(p.maxInFlight).toBe(2);
    expect(textOf(p.requests.at(-1)!.messages[0]!)).toContain('<partial_summary part="1">');
    expect(o.record.usage.outputTokens).toBe(50 * p.requests.length);
    expect(events.some((x) => x.type === 'compaction_progress' && /summarized part 3 of/.test(x.stage))).toBe(true);
    // no request exceeded the budget (prompt text included, with some slack for framing)
    for (const r of p.requests) expect(counter.countText(textOf(r.messages[0]!))).toBeLessThan(8_000 + 2_500);
  });

  it('concurrency is a bound, not a fixed figure', async () => {
    const p = new ScriptedProvider(() => ({ text: SUMMARY }), 5);
    const e = makeEngine(p, { summaryInputTokens: 8_000, chunkConcurrency: 3 });
    await e.manual(ctx(talk(40, 2_200)), undefined, signal(), collect().emit);
    expect(p.maxInFlight).toBe(3);
  });

  it('the verification pass amends the draft', async () => {
    const p = new ScriptedProvider((_r, i) => ({ text: i === 0 ? SUMMARY : `${SUMMARY}\n- also: fix src/auth.ts` }));
    const e = makeEngine(p, { verify: true });
    const o = await e.manual(ctx(talk(40, 2_200)), undefined, signal(), collect().emit);
    expect(p.requests).toHaveLength(2);
    expect(p.prompt(1)).toContain(`<draft_checkpoint>\n${SUMMARY}\n</draft_checkpoint>`);
    expect(o.record.summary).toContain('fix src/auth.ts');
  });

  it('a failed verification keeps the draft', async () => {
    const p = new ScriptedProvider((_r, i) => (i === 0 ? { text: SUMMARY } : { text: '' }));
    const e = makeEngine(p, { verify: true });
    const o = await e.manual(ctx(talk(40, 2_200)), undefined, signal(), collect().emit);
    expect(o.record).toMatchObject({ status: 'applied', summary: SUMMARY });
  });
});

describe('manual and reactive', () => {
  it('the focus text reaches the summary request and the record', async () => {
    const p = summaryProvider();
    const e = makeEngine(p);
    const { events, emit } = collect();
    const o = await e.manual(ctx(talk(6, 300)), '  keep the auth refactor details ', signal(), emit);
    expect(o.record).toMatchObject({ status: 'applied', trigger: 'manual', focus: 'keep the auth refactor details' });
    expect(p.prompt(0)).toContain('<focus_instructions>\nkeep the auth refactor details\n</focus_instructions>');
    expect(events[0]).toMatchObject({ type: 'compaction_start', trigger: 'manual', focus: 'keep the auth refactor details' });
  });

  it('a previous checkpoint is updated, not summarized again', async () => {
    const p = new ScriptedProvider((_r, i) => ({ text: i === 0 ? SUMMARY : '## Goal\n- v2' }));
    const e = makeEngine(p);
    const h0 = talk(6, 300);
    const first = await e.manual(ctx(h0), undefined, signal(), collect().emit);
    const h = [...historyAfter(h0, first), ...talk(6, 300)];
    const second = await e.manual(ctx(h), undefined, signal(), collect().emit);
    expect(second.record.status).toBe('applied');
    expect(p.prompt(1)).toContain(`<previous_checkpoint>\n${SUMMARY.trim()}\n</previous_checkpoint>`);
    expect(p.prompt(1)).not.toContain('Context checkpoint — compaction');
    expect(archivedIds(h, second)).toContain(historyAfter(h0, first)[0]!.id);
  });

  it('reactive sizes the tail from the overflow figures', async () => {
    const p = summaryProvider();
    const e = makeEngine(p, { tailTurns: 50, tailTokens: 100_000 });
    const h = talk(40, 2_200);
    const estimate = e.tokens(ctx(h));
    const loose = await makeEngine(summaryProvider(), { tailTurns: 50, tailTokens: 100_000 }).reactive(
      ctx(h),
      { promptTokens: estimate + 1_000, limit: estimate },
      1,
      signal(),
      collect().emit,
    );
    const tight = await e.reactive(ctx(h), { promptTokens: Math.round(estimate * 3.5), limit: 90_000 }, 1, signal(), collect().emit);
    expect(loose.record.status).toBe('applied');
    expect(tight.record.status).toBe('applied');
    expect(tight.record.tokensAfter).toBeLessThan(loose.record.tokensAfter - 3_000);
    // the provider counts 3.5 times our estimate: the retry must fit 90,000 of its tokens
    expect(tight.record.tokensAfter * 3.5).toBeLessThan(90_000);
  });

  it('reactive runs with auto compaction disabled, and stops with advice past maxReactiveAttempts', async () => {
    const e = makeEngine(summaryProvider(), { auto: false, maxReactiveAttempts: 2 });
    const h = talk(40, 2_200);
    expect(await e.beforeCall(ctx(h), signal(), collect().emit)).toEqual([]);
    expect((await e.reactive(ctx(h), undefined, 1, signal(), collect().emit)).record.status).toBe('applied');
    const { events, emit } = collect();
    const o = await e.reactive(ctx(h), undefined, 3, signal(), emit);
    expect(o.record).toMatchObject({ status: 'failed', reason: expect.stringMatching(/after 2 compactions.*\/clear/s) });
    expect(events).toEqual([{ type: 'compaction_skipped', trigger: 'reactive', reason: o.record.reason }]);
  });

  it('reactive compaction still runs at exactly maxReactiveAttempts, and stops at one more', async () => {
    const e = makeEngine(summaryProvider(), { maxReactiveAttempts: 3 });
    const h = talk(40, 2_200);
    expect((await e.reactive(ctx(h), undefined, 3, signal(), collect().emit)).record.status).toBe('applied');
    const o = await e.reactive(ctx(h), undefined, 4, signal(), collect().emit);
    expect(o).toMatchObject({ skipped: true, record: { status: 'failed', reason: expect.stringContaining('after 3 compactions') } });
  });
});

describe('restoration', () => {
  it("with compaction.ledger off, the files read before an earlier compaction are not re-read: that archive is the ledger's", async () => {
    const reads: string[] = [];
    const ledger = { archived: () => [user('q0'), ...step('FileRead', { path: 'config/app.env' }, 'x')], sections: () => [] };
    const e = makeEngine(
      summaryProvider(),
      { ledger: false },
      {
        ledger,
        readFile: async (path) => {
          reads.push(path);
          return `contents of ${path}`;
        },
      },
    );
    const h = [user('refactor a.ts'), ...step('FileRead', { path: 'a.ts' }, 'old a'), assistant(tokensText(30_000, 'x')), ...talk(3, 200)];
    const o = await e.manual(ctx(h), undefined, signal(), collect().emit);
    expect(o.record.status).toBe('applied');
    // mutation: `ledger || d.deps.ledger` in restoreStep: the earlier archive's file comes back too
    expect(reads).toEqual(['a.ts']);
  });

  it('re-reads the most recently read files within budget and quotes the person’s requests verbatim', async () => {
    const reads: string[] = [];
    const files: Record<string, string> = { 'a.ts': 'export const a = 1;', 'b.ts': tokensText(20_000, 'bbb'), 'c.ts': 'export const c = 3;' };
    const e = makeEngine(
      summaryProvider(),
      { restoreFiles: 2, restoreFileTokens: 1_000, restoreTokens: 5_000 },
      {
        readFile: async (path) => {
          reads.push(path);
          return files[path];
        },
      },
    );
    const h = [
      user('Please refactor a.ts, b.ts and c.ts — keep the public API EXACTLY as is.'),
      ...step('FileRead', { path: 'a.ts' }, 'old a'),
      ...step('FileRead', { path: 'b.ts' }, 'old b'),
      ...step('FileRead', { path: 'c.ts' }, 'old c'),
      assistant(tokensText(30_000, 'x')),
      ...talk(3, 200),
    ];
    const o = await e.manual(ctx(h), undefined, signal(), collect().emit);
    expect(o.record.status).toBe('applied');
    expect(reads).toEqual(['c.ts', 'b.ts']);
    const cp = historyAfter(h, o)[0]!;
    const text = textOf(cp);
    expect(text).toContain('> Please refactor a.ts, b.ts and c.ts — keep the public API EXACTLY as is.');
    expect(text).toContain('### c.ts\n```\nexport const c = 3;\n```');
    expect(text).toContain('### b.ts');
    expect(text).not.toContain('### a.ts');
    expect(text).toMatch(/characters omitted/); // b.ts cut to its per-file budget
    const restored = cp.blocks
      .slice(1)
      .map((b) => (b.type === 'text' ? b.text : ''))
      .join('');
    expect(counter.countText(restored)).toBeLessThanOrEqual(5_000 + 10);
  });

  it('skips files whose read is still visible in the tail, and does not restore after reactive compaction', async () => {
    const reads: string[] = [];
    const e = makeEngine(summaryProvider(), {}, { readFile: async (p) => (reads.push(p), 'content') });
    const h = [
      user('q'),
      ...step('FileRead', { path: 'x.ts' }, 'x'),
      assistant(tokensText(5_000, 'y')),
      ...talk(2, 100),
      user('again'),
      ...step('FileRead', { path: 'x.ts' }, 'x'),
      assistant('ok'),
    ];
    await e.manual(ctx(h), undefined, signal(), collect().emit);
    expect(reads).toEqual([]);
    await e.reactive(ctx(h), undefined, 1, signal(), collect().emit);
    expect(reads).toEqual([]);
  });
});

describe('token accounting', () => {
  it('measures another history (what /uncompact would bring back) without moving the anchor of the real one', () => {
    const e = makeEngine(summaryProvider());
    const h = talk(6, 400);
    e.observeResponse({ system: 'You are a test agent.', tools: [], messages: h }, 12_345);
    const real = e.tokens(ctx(h));
    expect(real).toBe(12_345);
    const other = e.tokensIf(ctx([...talk(3, 900), ...h]));
    expect(other).toBeGreaterThan(0);
    expect(other).not.toBe(real);
    expect(e.tokens(ctx(h))).toBe(real);
  });

  it('anchors on the reported figure and estimates only what was appended since', () => {
    const calls: string[] = [];
    const spyCounter = new TokenCounter((t) => (calls.push(t), Math.ceil(t.length / 4)));
    const e = new CompactionEngine({
      config: cfg(),
      limits: LIMITS,
      model: 'm',
      summarizer: { provider: summaryProvider(), model: 's', limits: SUMMARIZER_LIMITS },
      counter: spyCounter,
      compactableTools: COMPACTABLE,
    });
    const h = talk(200, 50);
    e.observeResponse({ system: 'sys', tools: [], messages: h }, 12_345);
    const reply = assistant('a fresh reply of some length');
    const after = [...h, reply];
    calls.length = 0;
    const tokens = e.tokens({ system: 'sys', tools: [], history: after });
    expect(calls).toEqual(['a fresh reply of some length']); // only the new message was tokenized
    expect(tokens).toBe(12_345 + Math.round(e.ratio() * spyCounter.countMessage(reply)));
  });

  it('calibration converges on the provider’s count', () => {
    const e = makeEngine(summaryProvider());
    const h = talk(10, 300);
    const raw = counter.countMessages(h) + counter.countSystem('s');
    for (let i = 0; i < 25; i++) e.observeResponse({ system: 's', tools: [], messages: h }, Math.round(raw * 1.25));
    expect(e.ratio()).toBeCloseTo(1.25, 2);
    // estimates of new messages are scaled by it
    const extra = user(tokensText(1_000, 'new'));
    const anchored = e.tokens({ system: 's', tools: [], history: [...h, extra] });
    expect(anchored).toBe(Math.round(raw * 1.25) + Math.round(e.ratio() * counter.countMessage(extra)));
  });

  it('a silent overflow (a server that truncated) is reported and does not calibrate', () => {
    const e = new CompactionEngine({
      config: cfg(),
      limits: { contextWindow: 32_768, maxOutputTokens: 4_096 },
      model: 'local',
      summarizer: { provider: summaryProvider(), model: 's', limits: SUMMARIZER_LIMITS },
      counter,
      compactableTools: COMPACTABLE,
    });
    const h = talk(10, 1_200);
    const obs = e.observeResponse({ system: 's', tools: [], messages: h }, 2_048);
    expect(obs.silentOverflow).toMatch(/dropped the start of the conversation/);
    expect(obs.overflow).toEqual({ promptTokens: obs.estimated, limit: 2_048 });
    expect(e.ratio()).toBe(1);
    expect(e.state().anchor).toBeUndefined();
    expect(e.observeResponse({ system: 's', tools: [], messages: h }, 40_000).silentOverflow).toMatch(/more than the model's 32,768-token window/);
  });

  it('for Anthropic and OpenAI proper a low count recalibrates and never shrinks the window', () => {
    const e = new CompactionEngine({
      config: cfg(),
      limits: { contextWindow: 200_000, maxOutputTokens: 4_096 },
      model: 'claude',
      summarizer: { provider: summaryProvider(), model: 's', limits: SUMMARIZER_LIMITS },
      counter,
      compactableTools: COMPACTABLE,
      silentOverflowDetection: false,
    });
    const h = talk(40, 1_200);
    const obs = e.observeResponse({ system: 's', tools: [], messages: h }, 27_000);
    expect(obs.silentOverflow).toBeUndefined();
    expect(obs.overflow).toBeUndefined();
    expect(e.ratio()).toBeLessThan(1);
    expect(e.thresholds().contextWindow).toBe(200_000);
    expect(e.state().anchor).toMatchObject({ tokens: 27_000, source: 'reported' });
    expect(mayTruncateSilently({ name: 'anthropic', baseURL: 'http://127.0.0.1:1234' })).toBe(false);
    expect(mayTruncateSilently({ name: 'openai' })).toBe(false);
    expect(mayTruncateSilently({ name: 'openai', baseURL: 'https://api.openai.com/v1' })).toBe(false);
    expect(mayTruncateSilently({ name: 'openai', baseURL: 'http://localhost:11434/v1' })).toBe(true);
  });

  it('usage(): the gauge figures, with a notice when a guard stopped auto compaction', () => {
    const e = makeEngine(summaryProvider());
    const u = e.usage(ctx(talk(2, 100)));
    expect(u).toMatchObject({ contextWindow: 100_000, effectiveWindow: 90_000, state: 'ok', autoCompactEnabled: true, autoCompactAtPercent: 86 });
    expect(u.notice).toBeUndefined();
    const e2 = makeEngine(summaryProvider());
    expect(e2.usage(ctx(talkTo(e2, e2.thresholds().auto))).state).toBe('compact-soon');
    expect(makeEngine(summaryProvider()).usage(ctx(talk(40, 2_200))).state).toBe('blocking');
  });
});

describe('a long session, simulated', () => {
  it('one autonomous turn of 150 steps stays inside the window, valid, with the request kept verbatim', async () => {
    const request = 'Migrate every module to the new logger API; keep the old exports as deprecated aliases.';
    const p = new ScriptedProvider((req) => ({ text: `${SUMMARY}\n- covered ${textOf(req.messages[0]!).length} chars` }));
    const e = makeEngine(p);
    let history: Message[] = [user(request)];
    const seenTokens: number[] = [];
    const triggers: string[] = [];
    for (let i = 0; i < 150; i++) {
      const outcomes = await e.beforeCall(ctx(history), signal(), () => {});
      for (const o of outcomes) triggers.push(`${o.record.trigger}:${o.record.status}`);
      history = applyAll(e, history, outcomes);
      expect(historyProblems(history)).toEqual([]);
      const before = e.tokens(ctx(history));
      seenTokens.push(before);
      expect(before).toBeLessThan(e.thresholds().effective);
      // the request is visible: in the tail, or quoted verbatim in the checkpoint
      expect(history.some((m) => textOf(m).includes(request))).toBe(true);
      // the model answers with a tool call; the provider counts 10% more than the tokenizer
      const raw = counter.countMessages(history) + counter.countSystem('You are a test agent.');
      e.observeResponse({ system: 'You are a test agent.', tools: [], messages: history }, Math.round(raw * 1.1));
      const tool = i % 4 === 0 ? 'FileRead' : 'Bash';
      const id = `long${i}`;
      const input = tool === 'FileRead' ? { path: `src/m${i}.ts` } : { command: `npm test -- ${i}` };
      history = [
        ...history,
        assistant(tokensText(500, `r${i}`), [{ id, name: tool, input }]),
        results([{ id, content: tokensText(1_500 + (i % 5) * 400, `s${i}`) }]),
      ];
    }
    expect(triggers.filter((t) => t === 'micro:applied').length).toBeGreaterThan(3);
    expect(triggers.filter((t) => t === 'auto:applied').length).toBeGreaterThan(0);
    expect(triggers.every((t) => t.endsWith(':applied'))).toBe(true);
    expect(e.ratio()).toBeCloseTo(1.1, 1);
  });
});

describe('a small local model, simulated', () => {
  it('an 8K window: 40 turns stay inside the window with every compaction applied', async () => {
    const small = { contextWindow: 8_192, maxOutputTokens: 2_048 };
    const p = new ScriptedProvider((req) => {
      expect(req.maxTokens).toBeLessThanOrEqual(2_048);
      return { text: SUMMARY };
    });
    const e = new CompactionEngine({
      config: cfg(),
      limits: small,
      model: 'llama',
      summarizer: { provider: p, model: 'llama', limits: small },
      counter,
      compactableTools: COMPACTABLE,
    });
    const t = e.thresholds();
    expect(0 < t.micro && t.micro <= t.auto && t.auto < t.blocking && t.blocking < t.effective).toBe(true);
    let history: Message[] = [];
    const statuses: string[] = [];
    for (let i = 0; i < 40; i++) {
      history = [...history, user(`turn ${i}: ${tokensText(90, `q${i}`)}`)];
      const outcomes = await e.beforeCall(ctx(history), signal(), () => {});
      statuses.push(...outcomes.map((o) => `${o.record.trigger}:${o.record.status}`));
      history = applyAll(e, history, outcomes);
      expect(e.tokens(ctx(history))).toBeLessThan(t.effective);
      history = [...history, ...step('Bash', { command: `make ${i}` }, tokensText(600, `b${i}`)), assistant(tokensText(200, `f${i}`))];
      e.turnCompleted();
    }
    expect(historyProblems(history)).toEqual([]);
    expect(statuses.filter((s) => s === 'auto:applied').length).toBeGreaterThan(3);
    expect(statuses.every((s) => s.endsWith(':applied'))).toBe(true);
    expect(e.state()).toMatchObject({ exhausted: false, breakerOpen: false, thrashStopped: false });
  });
});

describe("a summary's stages as the live row shows them", () => {
  it('the first is choosing what to keep, before anything is summarized', async () => {
    const p = summaryProvider();
    const e = makeEngine(p);
    const { events, emit } = collect();
    const o = await e.manual(ctx(talk(20, 1_000)), undefined, signal(), emit);
    expect(o.record.status).toBe('applied');
    const stages = events.flatMap((x) => (x.type === 'compaction_progress' ? [x.stage] : []));
    // mutation: planHead's progress('choosing what to keep') dropped
    expect(stages[0]).toBe('choosing what to keep');
    expect(events[0]?.type).toBe('compaction_start');
  });
});

describe('micro compaction of a single output', () => {
  it('clears one old output alone when it is the only one past the recent ones (a batch of one is a batch)', async () => {
    const p = summaryProvider();
    const e = makeEngine(p, { microKeepRecent: 2 }, { microPolicy: 'every-call' });
    const h = talkTo(e, 66_000);
    for (let i = 0; i < 3; i++) h.push(...step('Bash', { command: `job ${i}` }, tokensText(1_500, `one${i}`)));
    h.push(assistant('done'));
    const tokens = e.tokens(ctx(h));
    expect(tokens).toBeGreaterThanOrEqual(e.thresholds().micro);
    expect(tokens).toBeLessThan(e.thresholds().auto);
    const { emit } = collect();
    // mutation: planMicro's `candidates.length <= minBatch` leaves a lone candidate where it is
    const outcomes = await e.beforeCall(ctx(h), signal(), emit);
    expect(outcomes.map((o) => o.record)).toMatchObject([{ trigger: 'micro', status: 'applied', archivedCount: 1 }]);
    expect(p.requests).toHaveLength(0);
  });
});
