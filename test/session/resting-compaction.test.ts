import { describe, expect, it } from 'vitest';
import type { CompactionEngine } from '../../src/compaction/engine.js';
import type { ContextUsageView } from '../../src/protocol/views.js';
import { RestingCompaction } from '../../src/session/restingCompaction.js';

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
