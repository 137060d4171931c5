import { describe, expect, it } from 'vitest';
import { CompactionEngine } from '../../src/compaction/engine.js';
import { TokenCounter, tokenizerLoaded } from '../../src/compaction/tokens.js';
import { thresholds } from '../../src/compaction/budget.js';
import { needsExactCounts, partsKey } from '../../src/compaction/uncounted.js';
import type { Message } from '../../src/llm/messages.js';
import type { ToolSpec } from '../../src/llm/provider.js';
import { assistant, cfg, LIMITS, ScriptedProvider, step, tokensText, user } from './helpers.js';

// Fresh modules: it watches the tokenizer stay unloaded, then load (vitest.config.ts).
// The tokenizer loads only when a request could come near a threshold: until then a byte
// bound decides, and the gauge shows a rough figure. This file must be the only one in its
// process to touch the tokenizer (it runs isolated), and its tests run in order.

/** effective 90,000; micro 70,000; auto 77,000 */
const TOOLS: ToolSpec[] = [
  { name: 'Bash', description: 'Runs a shell command.', inputSchema: { type: 'object', properties: { command: { type: 'string' } } } },
];
const ctx = (history: readonly Message[]) => ({ system: 'You are a test agent. '.repeat(50), tools: TOOLS, history });

function makeEngine(counter: TokenCounter, state?: unknown, silentOverflowDetection?: boolean): CompactionEngine {
  const provider = new ScriptedProvider(() => ({ text: 'summary' }));
  return new CompactionEngine(
    {
      config: cfg(),
      limits: LIMITS,
      model: 'test-model',
      summarizer: { provider, model: 'sum-model', limits: LIMITS },
      counter,
      compactableTools: ['Bash'],
      ...(silentOverflowDetection === undefined ? {} : { silentOverflowDetection }),
    },
    state,
  );
}

const noEmit = (): void => {};

describe('counting only when it matters', () => {
  const counter = new TokenCounter();
  const engine = makeEngine(counter);
  const short = [user('hi there'), assistant('Hello! How can I help?'), user('list the files')];

  it('a short conversation goes through beforeCall, observeResponse and the gauge without the tokenizer', async () => {
    expect(counter.ready).toBe(false);
    expect(await engine.beforeCall(ctx(short), new AbortController().signal, noEmit)).toEqual([]);
    const rough = engine.usage(ctx(short)).tokens;
    expect(rough).toBeGreaterThan(0);
    expect(rough).toBeLessThan(counter.boundRequest(ctx(short).system, TOOLS, short));
    // the provider's figure for the request carries the gauge from then on
    engine.observeResponse({ system: ctx(short).system, tools: TOOLS, messages: short }, 4_321);
    const next = [...short, assistant('a.txt b.txt')];
    expect(engine.usage(ctx(next)).tokens).toBeGreaterThan(4_321);
    expect(engine.usage(ctx(next)).tokens).toBeLessThan(4_400);
    expect(tokenizerLoaded()).toBe(false);
    expect(counter.ready).toBe(false);
  });

  it('still catches a truncating server without the tokenizer: a count that stops growing, or one above the window', () => {
    const e = makeEngine(counter);
    const history = [user('hello'), assistant('Hi.'), user('read the notes')];
    expect(e.observeResponse({ system: ctx(history).system, tools: TOOLS, messages: history }, 2_000).silentOverflow).toBeUndefined();
    // the conversation grew by ~1,500 tokens while the server's count stayed where it was
    const grown = [...history, assistant(tokensText(1_500, 'notes')), user('and now?')];
    const stalled = e.observeResponse({ system: ctx(grown).system, tools: TOOLS, messages: grown }, 2_000);
    expect(stalled.silentOverflow).toMatch(/truncating the prompt/);
    expect(stalled.overflow?.limit).toBe(2_000);
    // a reply that grew with the conversation is fine
    const f = makeEngine(counter);
    f.observeResponse({ system: ctx(history).system, tools: TOOLS, messages: history }, 2_000);
    expect(f.observeResponse({ system: ctx(grown).system, tools: TOOLS, messages: grown }, 3_600).silentOverflow).toBeUndefined();
    expect(makeEngine(counter).observeResponse({ system: ctx(history).system, tools: TOOLS, messages: history }, 100_001).silentOverflow).toMatch(
      /more than the model's/,
    );
    // Anthropic and OpenAI proper never truncate: the same stalled count is not taken for it
    const proper = makeEngine(counter, undefined, false);
    proper.observeResponse({ system: ctx(history).system, tools: TOOLS, messages: history }, 2_000);
    expect(proper.observeResponse({ system: ctx(grown).system, tools: TOOLS, messages: grown }, 2_000).silentOverflow).toBeUndefined();
    expect(tokenizerLoaded()).toBe(false);
  });

  it('a resumed session whose bytes pass the micro threshold stays without the tokenizer while the provider’s count of its start, plus what came after, stays below it', async () => {
    // ~90,000 bytes of tool outputs (over micro, 70,000), which the provider counted at 30,000 tokens
    const long: Message[] = [user('run the jobs')];
    for (let i = 0; counter.boundMessages(long) < 90_000; i++) long.push(...step('Bash', { command: `job ${i}` }, tokensText(3_000, `r${i}`)));
    long.push(assistant('done'));
    const first = makeEngine(counter, undefined, false);
    first.observeResponse({ system: ctx(long).system, tools: TOOLS, messages: long }, 30_000);
    // the next process: the saved state, the history from the database, a new prompt
    const resumed = makeEngine(counter, JSON.parse(JSON.stringify(first.state())), false);
    const next = [...long, user('and now the report')];
    expect(await resumed.beforeCall(ctx(next), new AbortController().signal, noEmit)).toEqual([]);
    expect(tokenizerLoaded()).toBe(false);
    // the gauge starts from the provider's count too, not from the bytes
    expect(resumed.usage(ctx(next)).tokens).toBeGreaterThanOrEqual(30_000);
    expect(resumed.usage(ctx(next)).tokens).toBeLessThan(30_100);
    // the bound the count gives holds only for the same start, system prompt and tools, and for a server that never truncates
    const state = first.state();
    const ladder = thresholds(LIMITS, cfg());
    const needs = (parts: ReturnType<typeof ctx>, mayTruncate = false) => needsExactCounts(counter, parts, ladder, 1, state.reported, mayTruncate);
    expect(needs(ctx(next))).toBe(false);
    expect(needs(ctx(next), true)).toBe(true);
    expect(needs({ ...ctx(next), system: `${ctx(next).system} A new section.` })).toBe(true);
    expect(needs({ ...ctx(next), tools: [...TOOLS, { ...TOOLS[0]!, name: 'Bash2' }] })).toBe(true);
    expect(needs(ctx([user('another start'), ...next.slice(1)]))).toBe(true);
    expect(needsExactCounts(counter, ctx(next), ladder, 1, undefined, false)).toBe(true);
    // a server that may truncate needs exact counts from a quarter of the window on (25,000), to catch it; the others from micro on
    const mid = [user('read it'), ...step('Bash', { command: 'cat notes' }, 'y '.repeat(20_000))];
    expect(needsExactCounts(counter, ctx(mid), ladder, 1, undefined, true)).toBe(true);
    expect(needsExactCounts(counter, ctx(mid), ladder, 1, undefined, false)).toBe(false);
    // what came after is bounded by its bytes: 40,000 more crosses micro
    expect(needs(ctx([...next, ...step('Bash', { command: 'more' }, 'x'.repeat(40_000))]))).toBe(true);
    // the bound starts with the first message after the counted prefix: 45,000 bytes there cross micro
    expect(needs(ctx([...long, user('x '.repeat(22_500))]))).toBe(true);
    // a server that may truncate is bounded by the request's bytes (90,000), never by its own count
    // (here 10,000, below the 25,000 from which it needs exact counts)
    const low = { ...state.reported!, tokens: 10_000 };
    expect(needsExactCounts(counter, ctx(next), ladder, 1, low, false)).toBe(false);
    expect(needsExactCounts(counter, ctx(next), ladder, 1, low, true)).toBe(true);
    // a rewind forgets the count: it no longer describes the history
    resumed.historyReplaced();
    expect(resumed.state().reported).toBeUndefined();
  });

  it('loads the tokenizer and measures exactly once the byte bound reaches the micro threshold', async () => {
    const long: Message[] = [user('run the jobs')];
    for (let i = 0; counter.boundMessages(long) < 75_000; i++) long.push(...step('Bash', { command: `job ${i}` }, tokensText(3_000, `o${i}`)));
    long.push(assistant('done'));
    await engine.beforeCall(ctx(long), new AbortController().signal, noEmit);
    expect(tokenizerLoaded()).toBe(true);
    expect(counter.ready).toBe(true);
    expect(engine.usage(ctx(long)).tokens).toBe(engine.tokens(ctx(long)));
  });

  it('once counting starts in a resumed session, exact figures build on the provider’s count of its last request', () => {
    // the tokenizer is loaded by now (the test before); the saved state holds a count but no anchor,
    // as a session whose requests all went out uncounted leaves it
    const sent = [user('summarize the notes'), assistant(tokensText(2_000, 'notes')), user('thanks')];
    const system = ctx(sent).system;
    const state = { reported: { count: sent.length, firstId: sent[0]!.id, lastId: sent.at(-1)!.id, tokens: 5_000, parts: partsKey(system, TOOLS) } };
    const reply = assistant('You are welcome.');
    const resumed = makeEngine(counter, state, false);
    const tokens = resumed.usage(ctx([...sent, reply])).tokens;
    expect(resumed.state().anchor).toMatchObject({ count: sent.length, tokens: 5_000, source: 'reported' });
    // the count calibrates the ratio, as it would have had the request been counted
    const raw = counter.countSystem(system) + counter.countToolSpecs(TOOLS) + counter.countMessages(sent);
    expect(resumed.ratio()).toBeCloseTo(5_000 / raw, 6);
    expect(tokens).toBe(Math.round(5_000 + resumed.ratio() * counter.countMessage(reply)));
    // another system prompt: the count does not describe this request, the whole of it is counted
    const other = makeEngine(counter, state, false);
    const changed = { ...ctx([...sent, reply]), system: `${system} More.` };
    expect(other.usage(changed).tokens).toBe(counter.countSystem(changed.system) + counter.countToolSpecs(TOOLS) + counter.countMessages([...sent, reply]));
  });

  it('the byte bound never falls below the exact count', () => {
    const samples: Message[] = [
      user('plain ascii words and some more words'),
      user('émojis 🎉🎉 and ünïcödé, 中文字符, العربية'),
      assistant('calling', [{ id: 't1', name: 'Bash', input: { command: 'ls -la && echo "done"' } }]),
      ...step('Bash', { command: 'cat x' }, 'a'.repeat(5_000)),
    ];
    const fresh = new TokenCounter();
    for (const m of samples) expect(fresh.boundMessage(m)).toBeGreaterThanOrEqual(fresh.countMessage(m));
    const system = ctx([]).system;
    const exact = fresh.countSystem(system) + fresh.countToolSpecs(TOOLS) + fresh.countMessages(samples);
    expect(new TokenCounter().boundRequest(system, TOOLS, samples)).toBeGreaterThanOrEqual(exact);
  });
});
// Mutations checked (the resumed-session bound, needsExactCounts in uncounted.ts): dropping
// `!mayTruncate &&` fails the truncating server's 10,000 count; `last.count` made `last.count + 1`
// in its boundMessages call fails the 45,000 bytes right after the counted prefix.
