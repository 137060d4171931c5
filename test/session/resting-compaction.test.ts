import { beforeAll, describe, expect, it } from 'vitest';
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
