import { beforeAll, describe, expect, it } from 'vitest';
import { CompactionEngine, type EngineDeps } from '../../src/compaction/engine.js';
import { PROVIDER_SUMMARY_TEXT } from '../../src/compaction/providerSummary.js';
import { loadTokenizer, TokenCounter } from '../../src/compaction/tokens.js';
import type { CompactionEvent } from '../../src/protocol/events.js';
import { ProviderError } from '../../src/llm/errors.js';
import { emptyUsage, type Message, type ReasoningBlock } from '../../src/llm/messages.js';
import { historyProblems } from '../../src/llm/validate.js';
import { archivedIds, assistant, cfg, ctx, historyAfter, LIMITS, ScriptedProvider, SUMMARY, tokensText, user } from './helpers.js';

// The engine's two OpenAI Responses hooks: an exact input count near the auto threshold, and
// OpenAI's own compaction (compaction.engine "provider") with the summarizer as its fallback.

let counter: TokenCounter;
beforeAll(async () => {
  await loadTokenizer();
  counter = new TokenCounter();
});

/** effective 90,000; auto 77,000; the exact-count band ±3,000 around it */
const signal = (): AbortSignal => new AbortController().signal;
const noEvents = (_e: CompactionEvent): void => undefined;

function engine(summarizer: ScriptedProvider, extra: Partial<EngineDeps> = {}): CompactionEngine {
  return new CompactionEngine({
    config: cfg({ tailTurns: 1 }),
    limits: LIMITS,
    model: 'gpt-5.4',
    summarizer: { provider: summarizer, model: 'gpt-5.4', limits: { contextWindow: 400_000, maxOutputTokens: 32_000 } },
    counter,
    compactableTools: [],
    ...extra,
  });
}

/** Talk until the estimate reaches `tokens` (each turn adds ~2,700). */
function talkTo(e: CompactionEngine, tokens: number): Message[] {
  const h: Message[] = [];
  for (let i = 0; e.tokens(ctx(h)) < tokens; i++) h.push(user(`question ${i}`), assistant(tokensText(2_000, `b${i}`)));
  return h;
}

describe('exact count near the auto threshold', () => {
  it('asks the provider once when the estimate is just under the threshold, and compacts on its figure', async () => {
    const summarizer = new ScriptedProvider(() => ({ text: SUMMARY }));
    const asked: number[] = [];
    const e = engine(summarizer, { countExact: async (parts) => (asked.push(parts.history.length), 77_000 + 5_000) });
    const h = talkTo(e, 77_000 - 3_000);
    expect(e.tokens(ctx(h))).toBeLessThan(77_000);
    const outcomes = await e.beforeCall(ctx(h), signal(), noEvents);
    expect(asked).toEqual([h.length]);
    expect(outcomes.map((o) => o.record)).toMatchObject([{ trigger: 'auto', status: 'applied', tokensBefore: 82_000 }]);
  });

  it('does not ask far from the threshold, nor twice for the same history', async () => {
    const asked: number[] = [];
    const e = engine(new ScriptedProvider(() => ({ text: SUMMARY })), { countExact: async (parts) => (asked.push(parts.history.length), 70_000) });
    await e.beforeCall(ctx(talkTo(e, 40_000)), signal(), noEvents);
    expect(asked).toEqual([]);
    const near = talkTo(e, 77_000 - 3_000);
    await e.beforeCall(ctx(near), signal(), noEvents);
    await e.beforeCall(ctx(near), signal(), noEvents);
    expect(asked).toHaveLength(1);
  });
});

describe('compaction.engine "provider"', () => {
  const item: ReasoningBlock = { type: 'reasoning', id: 'cmp_1', summary: [], encryptedContent: 'sealed', item: 'compaction' };

  it('puts the encrypted compaction item in the checkpoint, after its text, and asks the summarizer nothing', async () => {
    const summarizer = new ScriptedProvider(() => ({ text: SUMMARY }));
    const given: Message[][] = [];
    const e = engine(summarizer, {
      providerCompaction: {
        model: 'gpt-5.4',
        compact: async (messages) => (given.push([...messages]), { block: item, usage: { ...emptyUsage(), inputTokens: 900, outputTokens: 100 } }),
      },
    });
    const h = talkTo(e, 20_000);
    const events: CompactionEvent[] = [];
    const o = await e.manual(ctx(h), undefined, signal(), (ev) => void events.push(ev));
    expect(o.record).toMatchObject({ status: 'applied', method: 'provider', model: 'gpt-5.4', usage: { inputTokens: 900, outputTokens: 100 } });
    // the person sees what the wait is for (the gauge's stage line)
    expect(events.flatMap((ev) => (ev.type === 'compaction_progress' ? [ev.stage] : []))).toContain('compacting with the provider');
    expect(summarizer.requests).toHaveLength(0);
    const checkpoint = historyAfter(h, o)[0]!;
    expect(checkpoint.kind).toBe('checkpoint');
    expect(checkpoint.blocks[0]).toMatchObject({ type: 'text', text: expect.stringContaining(PROVIDER_SUMMARY_TEXT) });
    expect(checkpoint.blocks[1]).toEqual(item);
    expect(given[0]!.map((m) => m.id)).toEqual(archivedIds(h, o));
    expect(historyProblems(historyAfter(h, o))).toEqual([]);
  });

  it('falls back to the summarizer when the provider cannot compact', async () => {
    const summarizer = new ScriptedProvider(() => ({ text: SUMMARY }));
    const e = engine(summarizer, {
      providerCompaction: {
        model: 'gpt-5.4',
        compact: async () => {
          throw new ProviderError({ kind: 'server', provider: 'openai', message: 'no' });
        },
      },
    });
    const h = talkTo(e, 20_000);
    const events: CompactionEvent[] = [];
    const o = await e.manual(ctx(h), undefined, signal(), (ev) => void events.push(ev));
    expect(o.record).toMatchObject({ status: 'applied', method: 'single' });
    const stages = events.flatMap((ev) => (ev.type === 'compaction_progress' ? [ev.stage] : []));
    const tried = stages.indexOf('compacting with the provider');
    expect(tried).toBeGreaterThanOrEqual(0);
    expect(stages.indexOf('the provider could not compact: writing the summary instead')).toBeGreaterThan(tried);
    expect(summarizer.requests).toHaveLength(1);
    expect(historyAfter(h, o)[0]!.blocks.some((b) => b.type === 'reasoning')).toBe(false);
  });
});
