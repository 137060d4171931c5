import { beforeAll, describe, expect, it } from 'vitest';
import { contextBreakdown } from '../../src/commands/contextBreakdown.js';
import { CompactionEngine } from '../../src/compaction/engine.js';
import { measure } from '../../src/compaction/meter.js';
import { contextRaw, thinkingCountsFrom, thinkingRoomOf, type ThinkingRoom } from '../../src/compaction/thinkingRoom.js';
import { roughTokens } from '../../src/compaction/uncounted.js';
import { loadTokenizer, TokenCounter } from '../../src/compaction/tokens.js';
import type { Message } from '../../src/llm/messages.js';
import type { ContextUsageView } from '../../src/protocol/views.js';
import { assistant, cfg, historyAfter, ScriptedProvider, step, SUMMARY, tokensText, user } from './helpers.js';

// Which replayed thinking the gauge counts: all of it where the model keeps it in context (the
// 5 family), only the current unfinished turn's where the API strips finished turns' thinking.

let counter: TokenCounter;
beforeAll(async () => {
  await loadTokenizer();
  counter = new TokenCounter();
});

const THINK = 2_000;
const thinking = (salt: string) => ({ type: 'thinking' as const, thinking: tokensText(THINK, salt), signature: `sig-${salt}` });

/** A finished turn whose two replies think, then (open) a tool loop whose one reply thinks. */
function history(open: boolean): Message[] {
  const [call1, result1] = step('Bash', { command: 'ls' }, 'a b c');
  call1.blocks.unshift(thinking('f1'));
  const done = assistant('all listed');
  done.blocks.unshift(thinking('f2'));
  const h: Message[] = [user('list the files'), call1, result1, done, user('now count them')];
  if (!open) return h;
  const [call2, result2] = step('Bash', { command: 'ls | wc -l' }, '3');
  call2.blocks.unshift(thinking('o1'));
  return [...h, call2, result2];
}

const parts = (h: readonly Message[]) => ({ system: 'You are a test agent.', tools: [], history: h });
const withoutThinking = (h: readonly Message[]): Message[] => h.map((m) => ({ ...m, blocks: m.blocks.filter((b) => b.type !== 'thinking') }));

/** An engine over a 200K window whose summarizer is `p`, with the given thinking rule (none: all thinking counts). */
const engineWith = (p: ScriptedProvider, room: ThinkingRoom | undefined): CompactionEngine =>
  new CompactionEngine({
    config: cfg(),
    limits: { contextWindow: 200_000, maxOutputTokens: 10_000 },
    model: 'm',
    summarizer: { provider: p, model: 'm', limits: { contextWindow: 200_000, maxOutputTokens: 10_000 } },
    counter,
    compactableTools: [],
    ...(room ? { thinkingRoom: room } : {}),
  });

describe('the thinking the context keeps', () => {
  it("a model with unknown capabilities counts finished turns' thinking: the gauge never undercounts (issue 30 pin)", () => {
    // only a model known to strip it ('current-turn') leaves it out; unknown (undefined) counts it
    // all. Kills the mutant that treats unknown like a stripping model (keepsThinking !== true).
    expect(thinkingRoomOf(undefined)).toBe('all');
    expect(thinkingRoomOf(true)).toBe('all');
    expect(thinkingRoomOf(false)).toBe('current-turn');
    const h = history(false);
    expect(contextRaw(counter, h, thinkingRoomOf(undefined)) - contextRaw(counter, withoutThinking(h), 'all')).toBeGreaterThanOrEqual(2 * THINK);
  });

  it('counts from the current turn where finished turns are stripped, from the start where all is kept', () => {
    const h = history(true);
    expect(thinkingCountsFrom(h, 'all')).toBe(0);
    expect(thinkingCountsFrom(h, 'current-turn')).toBe(5);
    // a finished reply: the next request sends it behind a new prompt, so none of it counts
    const finished = [...h, assistant('3 files')];
    expect(thinkingCountsFrom(finished, 'current-turn')).toBe(finished.length);
    // a reply that called a tool whose result is not in yet: its loop is still open
    const calling = [...h, assistant('', [{ id: 'x', name: 'Bash' }])];
    expect(thinkingCountsFrom(calling, 'current-turn')).toBe(5);
  });

  it("leaves finished turns' thinking out of the gauge and keeps the open loop's", () => {
    const h = history(true);
    const bare = contextRaw(counter, withoutThinking(h), 'all');
    const block = (i: number) => counter.countBlock(h[i]!.blocks[0]!);
    // exactly the open loop's one block counts where finished turns are stripped
    expect(contextRaw(counter, h, 'current-turn') - bare).toBe(block(5));
    // all three blocks where the model keeps them
    expect(contextRaw(counter, h, 'all') - bare).toBe(block(1) + block(3) + block(5));
    expect(measure(counter, parts(h), undefined, 1, 'all').tokens - measure(counter, parts(h), undefined, 1, 'current-turn').tokens).toBe(block(1) + block(3));
  });

  it('stops counting a turn’s thinking once the turn is over, from an anchor taken inside the loop', () => {
    const h = history(true);
    const room: ThinkingRoom = 'current-turn';
    const anchored = measure(counter, parts(h), undefined, 1, room);
    expect(anchored.anchor?.liveThinking).toBeGreaterThan(0.9 * THINK);
    const after = [...h, assistant('3 files')];
    const next = measure(counter, parts(after), anchored.anchor, 1, room);
    // the anchor is reused (only the new message walked), and the loop's thinking left the count
    expect(next.walked).toBe(1);
    const fresh = measure(counter, parts(after), undefined, 1, room);
    expect(Math.abs(next.tokens - fresh.tokens)).toBeLessThanOrEqual(1);
    expect(next.tokens).toBeLessThan(anchored.tokens - 0.9 * THINK + 20);
  });

  it('leaves stripped thinking out of the rough figure shown before the tokenizer loads', () => {
    const h = [...history(true), assistant('3 files')];
    const rough = new TokenCounter(); // the default tokenizer path, but only bound* is used
    const all = roughTokens(rough, parts(h), undefined, 1, 'all');
    const current = roughTokens(rough, parts(h), undefined, 1, 'current-turn');
    expect(all - current).toBeGreaterThan(1_000);
  });

  it('is what the engine’s gauge shows, per its thinkingRoom', () => {
    const engine = (room: ThinkingRoom | undefined) => engineWith(new ScriptedProvider(() => ({ text: 'x' })), room);
    const h = [...history(true), assistant('3 files')];
    const bare = engine('all').usage(parts(withoutThinking(h))).tokens;
    // the turn is over: nothing of its thinking counts where the API strips it
    expect(Math.abs(engine('current-turn').usage(parts(h)).tokens - bare)).toBeLessThanOrEqual(1);
    expect(engine(undefined).usage(parts(h)).tokens - bare).toBeGreaterThan(2.7 * THINK);
  });
});

describe("a compaction's figure after it, under the same rule", () => {
  it("leaves the kept turns' stripped thinking out of tokensAfter: the record says what the gauge will", async () => {
    const p = new ScriptedProvider(() => ({ text: SUMMARY }));
    const engine = (): CompactionEngine => engineWith(p, 'current-turn');
    const thought = (text: string, salt: string): Message => {
      const m = assistant(text);
      m.blocks.unshift(thinking(salt));
      return m;
    };
    const h: Message[] = [
      ...[0, 1, 2].flatMap((i) => [user(`question ${i}`), assistant(tokensText(3_000, `a${i}`))]),
      user('question 3'),
      thought('answer 3', 't3'),
      user('question 4'),
      thought('answer 4', 't4'),
    ];
    const o = await engine().manual(parts(h), undefined, new AbortController().signal, () => undefined);
    expect(o.record.status).toBe('applied');
    const after = historyAfter(h, o);
    expect(after.filter((m) => m.blocks.some((b) => b.type === 'thinking'))).toHaveLength(2);
    // mutation: assembleHead counting with `thinkingRoom && 'all'`: ~4,000 tokens of thinking the API strips
    expect(Math.abs(o.record.tokensAfter - engine().usage(parts(after)).tokens)).toBeLessThanOrEqual(2);
  });
});

describe('/context under the same rule', () => {
  const messagesRow = (room: ThinkingRoom): number => {
    const out = contextBreakdown(counter, 'sys', [], history(true), { tokens: 0, contextWindow: 200_000, effectiveWindow: 180_000 } as ContextUsageView, room);
    if (out.kind !== 'context') throw new Error('not a context view');
    return out.rows.find((r) => r.label === 'Messages')!.tokens + out.rows.find((r) => r.label === 'Tool outputs')!.tokens;
  };

  it("leaves finished turns' stripped thinking out of the Messages row, and keeps the open loop's", () => {
    // the finished turn holds two thinking blocks (f1, f2); the open loop one (o1), which counts under both rules
    const stripped = counter.countBlock(thinking('f1')) + counter.countBlock(thinking('f2'));
    expect(stripped).toBeGreaterThan(3_000);
    expect(messagesRow('all') - messagesRow('current-turn')).toBe(stripped);
  });
});
