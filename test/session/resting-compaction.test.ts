import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { PendingCompaction } from '../../src/compaction/background.js';
import { CompactionEngine, type CompactionOutcome } from '../../src/compaction/engine.js';
import { loadTokenizer, TokenCounter } from '../../src/compaction/tokens.js';
import type { Message } from '../../src/llm/messages.js';
import type { CompactionEvent } from '../../src/protocol/events.js';
import type { ContextUsageView } from '../../src/protocol/views.js';
import { RestingCompaction } from '../../src/session/restingCompaction.js';
import { assistant, cfg, historyAfter, ScriptedProvider, SUMMARY, tokensText, user } from '../compaction/helpers.js';

// The gauge and the status line hear of a background compaction when what they show of it
// changes (started, its summary ready), and not again for a step that changed nothing. The
// summary's own path is test/compaction/background-rest.test.ts's; the TUI's, e2e.

type Compacting = ContextUsageView['compacting'];

function resting(): { r: RestingCompaction; shown: Array<Compacting | null>; set: (c: Compacting | undefined) => void } {
  let compacting: Compacting | undefined;
  const shown: Array<Compacting | null> = [];
  const engine = { startManual: async () => ((compacting = { trigger: 'manual', startedAt: 1, ready: false }), true) } as unknown as CompactionEngine;
  const r = new RestingCompaction({
    engine: () => engine,
    ctx: () => ({ system: '', tools: [], history: [] }),
    compaction: async () => [],
    messages: () => [],
    busy: () => true,
    emit: (e) => void (e.type === 'context' && shown.push(e.usage.compacting ?? null)),
    usage: () => ({ tokens: 10, ...(compacting ? { compacting } : {}) }) as ContextUsageView,
  });
  return { r, shown, set: (c) => void (compacting = c) };
}

describe('a background compaction on the gauge', () => {
  it('is shown when /compact starts it and when its summary is ready, once each', async () => {
    const { r, shown, set } = resting();
    expect(await r.start(undefined)).toBe(true);
    expect(shown).toEqual([{ trigger: 'manual', startedAt: 1, ready: false }]);
    // a warm-up settled: nothing the gauge shows changed
    r.settled();
    expect(shown).toHaveLength(1);
    set({ trigger: 'manual', startedAt: 1, ready: true });
    r.settled();
    r.settled();
    expect(shown).toEqual([
      { trigger: 'manual', startedAt: 1, ready: false },
      { trigger: 'manual', startedAt: 1, ready: true },
    ]);
  });
});

describe('a background compaction at rest', () => {
  it('a job that settled during a turn is taken up once when the session comes to rest, not at every rest after', async () => {
    let busy = true;
    let steps = 0;
    const engine = { atRest: async () => (steps++, []), pending: () => undefined } as unknown as CompactionEngine;
    const r = new RestingCompaction({
      engine: () => engine,
      ctx: () => ({ system: '', tools: [], history: [] }),
      compaction: async (run) => {
        await run(() => undefined);
        return [];
      },
      messages: () => [],
      busy: () => busy,
      emit: () => undefined,
      usage: () => ({ tokens: 10 }) as ContextUsageView,
    });
    r.settled();
    await r.quiet();
    expect(steps).toBe(0);
    busy = false;
    r.rested();
    await r.quiet();
    expect(steps).toBe(1);
    r.rested();
    await r.quiet();
    expect(steps).toBe(1);
    // at rest already, a job that settles is taken up at once
    r.settled();
    await r.quiet();
    expect(steps).toBe(2);
  });

  describe("at a print run's end", () => {
    let counter: TokenCounter;
    beforeAll(async () => {
      await loadTokenizer();
      counter = new TokenCounter();
    });

    it('waits for a /compact whose summary is still being written and swaps it in', async () => {
      const provider = new ScriptedProvider(() => ({ text: SUMMARY }), 200);
      const e = new CompactionEngine({
        config: cfg({ background: true }),
        limits: { contextWindow: 100_000, maxOutputTokens: 10_000 },
        model: 'test-model',
        summarizer: { provider, model: 'sum-model', limits: { contextWindow: 400_000, maxOutputTokens: 32_000 } },
        counter,
        compactableTools: [],
      });
      let history: Message[] = [];
      for (let i = 0; i < 12; i++) history.push(user(`question ${i}`), assistant(tokensText(2_000, `b${i}`)));
      const ctx = () => ({ system: 'You are a test agent.', tools: [], history });
      const committed: CompactionOutcome[] = [];
      const events: string[] = [];
      const r = new RestingCompaction({
        engine: () => e,
        ctx,
        compaction: async (run) => {
          const got = await run((ev: CompactionEvent) => void events.push(ev.type));
          for (const o of [got].flat()) {
            committed.push(o);
            if (!o.commit) continue;
            history = historyAfter(history, o);
            e.committed(o.record, history, { system: 'You are a test agent.', tools: [] });
          }
          return [];
        },
        messages: () => history,
        busy: () => false,
        emit: (ev) => void events.push(ev.type),
        usage: () => e.usage(ctx()) as ContextUsageView,
      });
      expect(await r.start(undefined)).toBe(true);
      expect(e.pending()).toEqual(expect.objectContaining({ trigger: 'manual', ready: false }));
      await r.settle();
      expect(committed.map((o) => `${o.record.status} ${o.record.reason ?? ''}`)).toEqual(['applied ']);
      expect(events).not.toContain('compaction_skipped');
      expect(e.pending()).toBeUndefined();
      expect(provider.requests).toHaveLength(1);
    });
  });
});

/** An engine of the test's making: a job pending or not, its settles answered from a count, each step at rest noted. */
function scripted(opts: { pending?: PendingCompaction; settles?: number; cancels?: boolean; auto?: number; outcomes?: () => CompactionOutcome[] }) {
  let pending = opts.pending;
  let settles = opts.settles ?? 0;
  const calls: string[] = [];
  const engine = {
    pending: () => pending,
    cancelBackground: () => {
      calls.push('cancel');
      if (!pending || opts.cancels === false) return false;
      pending = undefined;
      return true;
    },
    settleBackground: async () => {
      calls.push('settle');
      return settles-- > 0;
    },
    thresholds: () => ({ auto: opts.auto ?? 1_000 }),
    atRest: async (_ctx: unknown, _emit: unknown, ending: boolean) => {
      calls.push(`atRest ${ending}`);
      return opts.outcomes?.() ?? [];
    },
  } as unknown as CompactionEngine;
  return { engine, calls, done: () => void (pending = undefined) };
}

function over(engine: CompactionEngine, tokens: number, extra: { messages?: () => readonly Message[]; committed?: CompactionOutcome[][] } = {}) {
  const events: Array<CompactionEvent | { type: 'context' }> = [];
  const r = new RestingCompaction({
    engine: () => engine,
    ctx: () => ({ system: '', tools: [], history: [] }),
    compaction: async (run) => {
      const got = [await run(() => undefined)].flat();
      extra.committed?.push(got);
      return [];
    },
    messages: extra.messages ?? (() => []),
    busy: () => false,
    emit: (e) => void events.push(e),
    usage: () => ({ tokens }) as ContextUsageView,
  });
  return { r, events };
}

const auto: PendingCompaction = { trigger: 'auto', startedAt: 1, ready: false };

describe('Esc, /compact cancel and the end of a session', () => {
  it('cancelling a job in flight says so and shows the gauge; without one, or when it cannot be stopped, nothing is said', () => {
    const { engine, calls } = scripted({ pending: auto });
    const { r, events } = over(engine, 10);
    expect(r.cancel()).toBe(true);
    expect(events).toEqual([
      { type: 'compaction_skipped', trigger: 'auto', reason: 'cancelled: the history stays as it is' },
      { type: 'context', usage: { tokens: 10 } },
    ]);
    expect(r.cancel()).toBe(false);
    expect(events).toHaveLength(2);
    const stuck = over(scripted({ pending: auto, cancels: false }).engine, 10);
    expect(stuck.r.cancel()).toBe(false);
    expect(stuck.events).toEqual([]);
    r.close();
    expect(calls).toEqual(['cancel', 'cancel']);
    expect(scripted({}).calls).toEqual([]);
  });
});

describe("a print run's end, by what is pending", () => {
  it('nothing pending: nothing waited for, nothing cancelled', async () => {
    const { engine, calls } = scripted({});
    const { r, events } = over(engine, 5_000);
    await r.settle();
    expect(calls).toEqual([]);
    expect(events).toEqual([]);
  });

  it('an automatic job below the threshold and not written yet is cancelled, its row closed', async () => {
    const { engine, calls } = scripted({ pending: auto, settles: 5 });
    const { r, events } = over(engine, 999);
    await r.settle();
    expect(calls).toEqual(['cancel']);
    expect(events).toEqual([
      { type: 'compaction_skipped', trigger: 'auto', reason: 'cancelled: the run ended before the summary was due; the history stays as it is' },
    ]);
  });

  it('one at the threshold exactly, one already written, and a /compact are waited for, three steps at most, each an ending step', async () => {
    for (const [pending, tokens] of [
      [auto, 1_000],
      [{ ...auto, ready: true }, 10],
      [{ ...auto, trigger: 'manual' }, 10],
    ] as const) {
      const { engine, calls } = scripted({ pending, settles: 5 });
      const { r, events } = over(engine, tokens);
      await r.settle();
      expect(calls, JSON.stringify(pending)).toEqual(['settle', 'atRest true', 'settle', 'atRest true', 'settle', 'atRest true', 'cancel']);
      expect(events.filter((e) => e.type === 'compaction_skipped')).toHaveLength(1);
    }
    // one that settles and is swapped in leaves nothing to cancel
    const s = scripted({ pending: auto, settles: 1 });
    const { r, events } = over(s.engine, 2_000);
    await r.settle();
    expect(s.calls).toEqual(['settle', 'atRest true', 'settle', 'cancel']);
    expect(events.filter((e) => e.type === 'compaction_skipped')).toHaveLength(1);
    const swapped = scripted({ pending: auto, settles: 1, outcomes: () => (swapped.done(), []) });
    await over(swapped.engine, 2_000).r.settle();
    expect(swapped.calls).toEqual(['settle', 'atRest true', 'settle']);
  });
});

describe('a step at rest while a prompt arrives', () => {
  const commit = { record: { status: 'applied' }, commit: {} } as unknown as CompactionOutcome;
  const failure = { record: { status: 'failed' } } as unknown as CompactionOutcome;

  it("keeps the swap for the prompt's own boundary when the history moved under it; commits it when it did not", async () => {
    for (const [name, change, kept] of [
      ['a message added', (h: Message[]) => h.push(user('meanwhile')), 1],
      ['the last message replaced', (h: Message[]) => h.splice(-1, 1, user('replaced')), 1],
      ['nothing', () => undefined, 2],
    ] as const) {
      const history: Message[] = [user('one'), assistant('two')];
      const committed: CompactionOutcome[][] = [];
      const { engine } = scripted({ pending: auto, outcomes: () => (change(history), [commit, failure]) });
      const { r } = over(engine, 10, { messages: () => [...history], committed });
      r.settled();
      await r.quiet();
      expect(
        committed.map((c) => c.length),
        name,
      ).toEqual([kept]);
      if (kept === 1) expect(committed[0]![0]!.record.status).toBe('failed');
    }
  });
});

describe('steps at rest, one after the other', () => {
  /** An engine whose steps at rest each wait for the test to let them finish; `log` says when each starts and ends. */
  function gated() {
    const log: string[] = [];
    const gates: Array<() => void> = [];
    let compacting: Compacting | undefined = { trigger: 'auto', startedAt: 1, ready: true };
    const engine = {
      pending: () => undefined,
      atRest: async () => {
        const n = gates.length + 1;
        log.push(`start ${n}`);
        await new Promise<void>((resolve) => gates.push(resolve));
        // the swap is in: the gauge has no job left to show
        compacting = undefined;
        log.push(`end ${n}`);
        return [];
      },
    } as unknown as CompactionEngine;
    const shown: Array<Compacting | null> = [];
    const r = new RestingCompaction({
      engine: () => engine,
      ctx: () => ({ system: '', tools: [], history: [] }),
      compaction: async (run) => {
        await run(() => undefined);
        return [];
      },
      messages: () => [],
      busy: () => false,
      emit: (e) => void (e.type === 'context' && shown.push(e.usage.compacting ?? null)),
      usage: () => ({ tokens: 10, ...(compacting ? { compacting } : {}) }) as ContextUsageView,
    });
    /** Resolves once the n-th step at rest waits at its gate. */
    const waiting = (n: number) => vi.waitFor(() => expect(gates).toHaveLength(n));
    return { r, log, gates, shown, waiting };
  }

  const flushed = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  it('a rest with no job settled takes no step', async () => {
    const { r, log } = gated();
    r.rested();
    // a step would have started by now (it waits at its gate: quiet() is not awaited, so that a step taken fails at once)
    await flushed();
    expect(log).toEqual([]);
  });

  it('a second job that settles while a step runs starts after it ends; quiet() resolves after both', async () => {
    const { r, log, gates, waiting } = gated();
    r.settled();
    await waiting(1);
    r.settled();
    let quiet = false;
    const q = r.quiet().then(() => void (quiet = true));
    await flushed();
    expect(log).toEqual(['start 1']);
    expect(quiet).toBe(false);
    gates[0]!();
    await waiting(2);
    expect(log).toEqual(['start 1', 'end 1', 'start 2']);
    expect(quiet).toBe(false);
    gates[1]!();
    await q;
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2']);
  });

  it("a print run's end waits for the step at rest in flight, and the gauge is shown the job gone when the step ends", async () => {
    const { r, log, gates, shown, waiting } = gated();
    r.settled();
    // the summary ready: shown when the job settled
    expect(shown).toEqual([{ trigger: 'auto', startedAt: 1, ready: true }]);
    await waiting(1);
    let settled = false;
    const s = r.settle().then(() => void (settled = true));
    await flushed();
    expect(settled).toBe(false);
    gates[0]!();
    await s;
    expect(log).toEqual(['start 1', 'end 1']);
    expect(shown).toEqual([{ trigger: 'auto', startedAt: 1, ready: true }, null]);
  });
});
