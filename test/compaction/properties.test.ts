import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactionBudgets, thresholds } from '../../src/compaction/budget.js';
import { CompactionEngine, type Outcome } from '../../src/compaction/engine.js';
import { applyMicro, selectMicro } from '../../src/compaction/micro.js';
import { isTurnStart } from '../../src/compaction/split.js';
import { TokenCounter } from '../../src/compaction/tokens.js';
import type { ClearedOutput } from '../../src/history/compaction.js';
import type { CompactionConfig } from '../../src/config/schema.js';
import type { OverflowInfo } from '../../src/llm/errors.js';
import type { Block, Message } from '../../src/llm/messages.js';
import { historyProblems } from '../../src/llm/validate.js';
import { historyAfter, archivedIds, cfg, ScriptedProvider, tokensText } from './helpers.js';

// The properties do not depend on the tokenizer: a character estimate keeps hundreds of runs fast.
const counter = new TokenCounter((t) => Math.ceil(t.length / 4));

const COMPACTABLE = ['FileRead', 'Bash', 'Grep', 'Glob', 'Recall'];
/** effective 11,000: micro at 6,600, auto at 8,140 — random histories cross both often */
const LIMITS = { contextWindow: 12_000, maxOutputTokens: 1_000 };
const SUMMARIZER = { contextWindow: 200_000, maxOutputTokens: 8_000 };

// ---- random histories: turns of steps (parallel tool calls included), meta messages, pinned messages, a checkpoint

const arbCall = fc.record({
  tool: fc.constantFrom('Bash', 'FileRead', 'Grep', 'Edit', 'Recall'),
  out: fc.integer({ min: 1, max: 1_500 }),
  error: fc.boolean(),
});
const arbStep = fc.record({
  text: fc.integer({ min: 0, max: 150 }),
  calls: fc.array(arbCall, { minLength: 1, maxLength: 3 }),
  pinned: fc.boolean(),
  meta: fc.boolean(),
});
const arbTurn = fc.record({
  ask: fc.integer({ min: 2, max: 400 }),
  pinned: fc.boolean(),
  steps: fc.array(arbStep, { maxLength: 4 }),
  answer: fc.option(fc.integer({ min: 1, max: 900 }), { freq: 5 }),
});
const arbShape = fc.record({ checkpoint: fc.boolean(), turns: fc.array(arbTurn, { minLength: 1, maxLength: 10 }) });
type Shape = typeof arbShape extends fc.Arbitrary<infer T> ? T : never;

function build(shape: Shape, prefix: string): Message[] {
  let n = 0;
  const id = (p: string): string => `${prefix}${p}${++n}`;
  const msg = (role: 'user' | 'assistant', blocks: Block[], extra: Partial<Message> = {}): Message => ({
    id: id('m'),
    role,
    kind: 'normal',
    blocks,
    createdAt: n,
    ...extra,
  });
  const text = (tokens: number): Block => ({ type: 'text', text: tokensText(tokens, `${prefix}${n}`) });
  const h: Message[] = [];
  if (shape.checkpoint)
    h.push(msg('user', [{ type: 'text', text: '[Context checkpoint — compaction c_0]\nolder\n\n---\n\n## Goal\n- earlier work' }], { kind: 'checkpoint' }));
  // pinned messages are rare: only one in three of the flagged ones
  shape.turns.forEach((turn, ti) => {
    h.push(msg('user', [text(turn.ask)], turn.pinned && ti % 3 === 0 ? { pinned: true } : {}));
    turn.steps.forEach((s, si) => {
      const calls = s.calls.map((c) => ({ ...c, id: id('t') }));
      const blocks: Block[] = s.text > 0 ? [text(s.text)] : [];
      for (const c of calls)
        blocks.push({ type: 'tool_use', id: c.id, name: c.tool, input: c.tool === 'Bash' ? { command: `cmd ${c.id}` } : { path: `src/${c.id}.ts` } });
      h.push(msg('assistant', blocks, s.pinned && si % 3 === 1 ? { pinned: true } : {}));
      h.push(
        msg(
          'user',
          calls.map((c) => ({ type: 'tool_result', toolUseId: c.id, content: tokensText(c.out, `${prefix}${c.id}`), isError: c.error })),
        ),
      );
      if (s.meta && si < turn.steps.length - 1) h.push(msg('user', [{ type: 'text', text: 'continue' }], { kind: 'meta' }));
    });
    if (turn.answer !== null) h.push(msg('assistant', [text(turn.answer)]));
  });
  return h;
}

// ---- the invariants

function originalContent(history: readonly Message[], c: ClearedOutput): string | undefined {
  const m = history.find((x) => x.id === c.messageId);
  const b = m?.blocks.find((x) => x.type === 'tool_result' && x.toolUseId === c.toolUseId);
  return b?.type === 'tool_result' ? b.content : undefined;
}

/** Checks one applied compaction against the history it was computed from. */
function checkChange(input: readonly Message[], o: Outcome): void {
  const change = o.commit!;
  expect(o.record.status).toBe('applied');
  expect(change.record).toBe(o.record);
  // the history after it, by the history's reducer: it throws on a view of messages neither in the input nor added
  const out = historyAfter(input, o);
  // invariant 1: valid for the provider
  expect(historyProblems(out)).toEqual([]);
  // invariant 2: nothing lost (what leaves the view is archived by the record: the originals of cleared outputs are kept)
  for (const c of change.cleared) expect(originalContent(input, c)).toBe(c.content);
  for (const m of out) {
    for (const b of m.blocks) {
      if (b.type === 'tool_result' && b.cleared) {
        const kept = change.cleared.find((c) => c.archiveId === b.cleared!.archiveId) ?? priorCleared.get(b.cleared.archiveId);
        expect(kept).toBeDefined();
        expect(b.content).toContain(b.cleared.archiveId);
      }
    }
  }
  for (const c of change.cleared) priorCleared.set(c.archiveId, c);
  // pinned messages survive verbatim
  for (const m of input) if (m.pinned) expect(out.find((x) => x.id === m.id)).toEqual(m);
  // added messages are new; revised ones are in the input
  for (const a of change.added) expect(input.some((m) => m.id === a.id)).toBe(false);
  for (const r of change.body.revisions ?? []) expect(input.some((m) => m.id === r.id)).toBe(true);
}

const priorCleared = new Map<string, ClearedOutput>();

/** Length of the longest suffix the output shares with the input (same objects, same order). */
function sharedSuffix(input: readonly Message[], out: readonly Message[]): number {
  let k = 0;
  while (k < input.length && k < out.length && input[input.length - 1 - k] === out[out.length - 1 - k]) k++;
  return k;
}

/** Where the last `turns` person turns start, and whether they fit `budget` tokens. */
function lastTurnsStart(h: readonly Message[], turns: number): number | undefined {
  let seen = 0;
  for (let i = h.length - 1; i > 0; i--) {
    if (isTurnStart(h[i]!)) {
      seen++;
      if (seen === turns) return i;
    }
  }
  return undefined;
}

function checkTail(input: readonly Message[], o: Outcome, config: CompactionConfig): void {
  const out = historyAfter(input, o);
  const k = sharedSuffix(input, out);
  expect(k).toBeGreaterThan(0); // the last message, hence the current step, is kept
  // everything before the shared tail is the checkpoint, a bridge or a pinned message (or its tool partner)
  for (const m of out.slice(0, out.length - k)) {
    const added = o.commit!.added.includes(m);
    const pinnedUnit = input.some((x) => x.id === m.id);
    expect(added || pinnedUnit).toBe(true);
  }
  // the last K turns are kept whole when they fit the tail budget, unless keeping them would have
  // left the context no smaller: then the compaction keeps less (at least the current step, above)
  if (keptLess) return;
  const t = thresholds(LIMITS, config);
  const budget = compactionBudgets(t, config, 0, SUMMARIZER.maxOutputTokens).tailTokens;
  const start = lastTurnsStart(input, config.tailTurns);
  if (start !== undefined) {
    const size = input.slice(start).reduce((s, m) => s + counter.countMessage(m), 0);
    if (size <= budget) expect(k).toBeGreaterThanOrEqual(input.length - start);
  }
}

function engineFor(config: CompactionConfig): CompactionEngine {
  const provider = new ScriptedProvider(() => ({ text: '## Goal\n- property summary' }));
  return new CompactionEngine({
    config,
    limits: LIMITS,
    model: 'p',
    summarizer: { provider, model: 's', limits: SUMMARIZER },
    counter,
    compactableTools: COMPACTABLE,
  });
}

const arbConfig = fc.record({ tailTurns: fc.integer({ min: 1, max: 4 }), microKeepRecent: fc.integer({ min: 0, max: 3 }) }).map((o) => cfg(o));
const ctx = (history: readonly Message[]) => ({ system: '', tools: [], history });
const noop = (): void => {};
/** Whether the compaction of the last call kept less than the configured tail ("keeping less": its first plan would not have been smaller). */
let keptLess = false;
const watch = (e: { type: string; stage?: string }): void => {
  if (e.type === 'compaction_progress' && e.stage?.startsWith('keeping less')) keptLess = true;
};
const RUNS = { numRuns: 60 };

describe('properties over random histories', () => {
  it('the generator builds valid histories', () => {
    fc.assert(
      fc.property(arbShape, (s) => {
        expect(historyProblems(build(s, 'g'))).toEqual([]);
      }),
      RUNS,
    );
  });

  it('micro: valid, nothing lost, originals kept in full, pinned untouched, only tool result contents change', () => {
    fc.assert(
      fc.property(arbShape, fc.integer({ min: 0, max: 4 }), (shape, keep) => {
        const h = build(shape, 'u');
        const r = applyMicro(h, selectMicro(h, { compactableTools: COMPACTABLE, keepRecent: keep }, counter), counter);
        expect(historyProblems(r.messages)).toEqual([]);
        expect(r.messages.map((m) => m.id)).toEqual(h.map((m) => m.id));
        for (const c of r.cleared) expect(originalContent(h, c)).toBe(c.content);
        h.forEach((m, i) => {
          const after = r.messages[i]!;
          if (m.pinned) expect(after).toBe(m);
          expect(after.blocks.map((b) => b.type)).toEqual(m.blocks.map((b) => b.type));
        });
      }),
      RUNS,
    );
  });

  it('manual (twice, the second updating the first checkpoint): valid, nothing lost, pinned kept, tail intact', async () => {
    let applied = 0;
    let updated = 0;
    await fc.assert(
      fc.asyncProperty(arbShape, arbShape, arbConfig, async (s1, s2, config) => {
        const e = engineFor(config);
        const h = build(s1, 'a');
        keptLess = false;
        const first = await e.manual(ctx(h), 'focus', new AbortController().signal, watch);
        expect(first.record.status).not.toBe('failed'); // with a working summarizer nothing fails
        let next = h;
        if (first.commit) {
          applied++;
          checkChange(h, first);
          checkTail(h, first, config);
          next = historyAfter(h, first);
          e.committed(first.record, next, ctx(next));
        } else {
          expect(first.record.status).not.toBe('applied');
        }
        const h2 = [...next, ...build(s2, 'b')];
        const second = await (() => {
          keptLess = false;
          return e.manual(ctx(h2), undefined, new AbortController().signal, watch);
        })();
        expect(second.record.status).not.toBe('failed');
        if (second.commit) {
          if (first.commit) updated++;
          checkChange(h2, second);
          checkTail(h2, second, config);
          // an earlier checkpoint in the head is archived, not kept
          if (first.commit && !historyAfter(h2, second).includes(next[0]!)) {
            expect(archivedIds(h2, second)).toContain(next[0]!.id);
          }
        }
      }),
      { numRuns: 40 },
    );
    // the runs exercised real compactions, not only "nothing to compact"
    expect(applied).toBeGreaterThan(20);
    expect(updated).toBeGreaterThan(15);
  });

  it('beforeCall (micro and/or auto, applied in order): every change valid, nothing lost overall', async () => {
    const seen = { micro: 0, auto: 0 };
    await fc.assert(
      fc.asyncProperty(arbShape, arbConfig, async (shape, config) => {
        const e = engineFor(config);
        const h = build(shape, 'c');
        const below = e.tokens(ctx(h)) < e.thresholds().micro;
        keptLess = false;
        const outcomes = await e.beforeCall(ctx(h), new AbortController().signal, watch);
        let current = h;
        const archived = new Set<string>();
        for (const o of outcomes) {
          expect(o.record.status).not.toBe('failed');
          if (!o.commit) continue;
          seen[o.record.trigger === 'micro' ? 'micro' : 'auto']++;
          checkChange(current, o);
          if (o.record.trigger === 'auto') checkTail(current, o, config);
          for (const id of archivedIds(current, o)) archived.add(id);
          current = historyAfter(current, o);
          e.committed(o.record, current, ctx(current));
        }
        const visible = new Set(current.map((m) => m.id));
        for (const m of h) expect(visible.has(m.id) || archived.has(m.id)).toBe(true);
        if (below) expect(outcomes).toEqual([]);
      }),
      RUNS,
    );
    expect(seen.micro).toBeGreaterThan(8);
    expect(seen.auto).toBeGreaterThan(12);
  });

  it('reactive with any overflow figures: valid, nothing lost, pinned kept, the tail a suffix with the current step', async () => {
    const arbOverflow: fc.Arbitrary<OverflowInfo | undefined> = fc.option(
      fc.record({ promptTokens: fc.integer({ min: 1_000, max: 200_000 }), limit: fc.integer({ min: 1_000, max: 40_000 }) }, { requiredKeys: [] }),
      { nil: undefined },
    );
    let reactiveApplied = 0;
    await fc.assert(
      fc.asyncProperty(arbShape, arbConfig, arbOverflow, fc.integer({ min: 1, max: 2 }), async (shape, config, overflow, attempt) => {
        const e = engineFor(config);
        const h = build(shape, 'd');
        const o = await e.reactive(ctx(h), overflow, attempt, new AbortController().signal, noop);
        expect(o.record.status).not.toBe('failed');
        if (!o.commit) return;
        reactiveApplied++;
        checkChange(h, o);
        expect(sharedSuffix(h, historyAfter(h, o))).toBeGreaterThan(0);
      }),
      RUNS,
    );
    expect(reactiveApplied).toBeGreaterThan(35);
  });
});
