import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createTokenCounter, type TokenCounter } from '../../src/compaction/tokens.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import { ProviderError } from '../../src/llm/errors.js';
import type { ModelRequest } from '../../src/llm/provider.js';
import type { SessionEvent } from '../../src/protocol/events.js';
import { Session } from '../../src/session/session.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createTools } from '../../src/tools/registry.js';
import { isSummaryRequest, ScriptedProvider, SUMMARY, tokensText } from '../compaction/helpers.js';
import { tempDir } from '../tempDirs.js';

// The compactor (src/session/compactor.ts) in a real session, over a real store: what it does
// with a window the provider states (believed for the session, kept across a resume, said once),
// a silent overflow (said, saved, compacted before the next request), and the summaries it bills.

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter();
});

/** A project of its own (its `.agentrc` holding `rc`, when given) and its store, the session on `model`. */
function setup(opts: { rc?: object; model?: string } = {}): { config: Config; store: Store } {
  const dir = tempDir('agent-compactor-');
  if (opts.rc) writeFileSync(join(dir, '.agentrc'), JSON.stringify(opts.rc));
  const env = { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') };
  const config = loadConfig({ cwd: dir, home: dir, env, flags: { model: opts.model ?? 'claude-sonnet-4-5' } });
  return { config, store: openStore(config.dbPath) };
}

/** An answer long enough that four turns of it are worth a summary (more sentences for a larger window). */
const SENTENCE = 'A long answer about the code base with many details worth summarizing later on. ';
const LONG = SENTENCE.repeat(40);

function open(config: Config, store: Store, provider: ScriptedProvider, resume?: Parameters<typeof Session.open>[1]) {
  const session = Session.open({ config, store, provider, tools: (lent) => createTools({ bash: config.bash }, lent), capabilities: [], counter }, resume);
  const events: SessionEvent[] = [];
  session.on((e) => events.push(e));
  const notices = () => events.flatMap((e) => (e.type === 'notice' ? [`${e.level}: ${e.text}`] : []));
  return { session, events, notices };
}

const inputOf = (req: ModelRequest): number => counter.countText(req.system) + counter.countToolSpecs(req.tools) + counter.countMessages(req.messages);

const overflow = (limit: number): ProviderError =>
  new ProviderError({
    kind: 'context_overflow',
    provider: 'anthropic',
    status: 400,
    message: `prompt is too long: ${limit + 1} tokens > ${limit} maximum`,
    overflow: { promptTokens: limit + 1, limit },
  });

/** A provider whose main requests answer in turn from `replies` (then plainly), and whose summaries cost 7,000 in and 300 out. */
function scripted(replies: Array<ProviderError | { inputTokens: number }> = [], summaryUsage = { inputTokens: 7_000, outputTokens: 300 }): ScriptedProvider {
  return new ScriptedProvider((req) => {
    if (isSummaryRequest(req)) return { text: SUMMARY, usage: summaryUsage };
    const r = replies.shift();
    return r instanceof ProviderError ? r : { text: 'fine', usage: { inputTokens: r?.inputTokens ?? inputOf(req) } };
  });
}

const kinds = (p: ScriptedProvider): string[] => p.requests.map((r) => (isSummaryRequest(r) ? 'summary' : 'main'));

describe("the provider's own window", () => {
  it('a smaller stated window is believed for the session: said once, replies sized to it, a summary billed, and kept across a resume unsaid', async () => {
    const { config, store } = setup();
    const provider = scripted([overflow(20_000)]);
    const { session, events, notices } = open(config, store, provider);
    expect((await session.prompt('first')).reason).toBe('error');
    expect(notices()).toEqual([
      'warning: The provider says claude-sonnet-4-5 has a 20,000-token context window (configured: 200,000). Using 20,000 for this session, ' +
        'replies up to 5,000 tokens. Set models["claude-sonnet-4-5"].contextWindow in .agentrc to make it permanent.',
    ]);
    // the reactive attempt is told, and what its summary consumed is billed
    expect(events.filter((e) => e.type === 'compaction_end').map((e) => e.type === 'compaction_end' && e.record.trigger)).toEqual(['reactive']);
    expect(session.usageByModel()['claude-sonnet-4-5']).toMatchObject({ inputTokens: 7_000, outputTokens: 300 });
    expect((await session.prompt('second')).reason).toBe('end_turn');
    expect(provider.requests.at(-1)?.maxTokens).toBe(5_000);
    expect(session.contextUsage().contextWindow).toBe(20_000);
    const id = session.id;
    session.close();
    // the saved state is versioned and holds the window (mutation: `version: 0` in Session.state())
    expect(store.getSession(id)!.meta).toMatchObject({ version: 1, providerWindow: { model: 'claude-sonnet-4-5', tokens: 20_000 } });
    const again = open(config, store, provider, store.getSession(id)!);
    expect(again.session.contextUsage().contextWindow).toBe(20_000);
    expect((await again.session.prompt('third')).reason).toBe('end_turn');
    expect(provider.requests.at(-1)?.maxTokens).toBe(5_000);
    expect(again.notices()).toEqual([]);
    again.session.close();
    store.close();
  });

  it('a stated window as large as the configured one changes nothing; a tiny one still leaves replies 1,024 tokens', async () => {
    const { config, store } = setup();
    const same = open(config, store, scripted([overflow(200_000)]));
    await same.session.prompt('first');
    expect(same.notices()).toEqual([]);
    expect(same.session.contextUsage().contextWindow).toBe(200_000);
    same.session.close();
    const tiny = open(config, store, scripted([overflow(3_000)]));
    await tiny.session.prompt('first');
    expect(tiny.notices()[0]).toContain('Using 3,000 for this session, replies up to 1,024 tokens.');
    tiny.session.close();
    store.close();
  });
});

describe('what a compaction costs and shows', () => {
  it('a summary that consumed a single token is billed', async () => {
    const { config, store } = setup();
    const { session } = open(config, store, scripted([overflow(20_000)], { inputTokens: 1, outputTokens: 0 }));
    await session.prompt('first');
    expect(session.usageByModel()['claude-sonnet-4-5']).toMatchObject({ inputTokens: 1, outputTokens: 0 });
    session.close();
    store.close();
  });

  it('the gauge is shown the history as it stands once the compaction is committed, before it is announced', async () => {
    const { config, store } = setup();
    const provider = new ScriptedProvider((req) =>
      isSummaryRequest(req) ? { text: SUMMARY } : { text: `answer. ${LONG}`, usage: { inputTokens: inputOf(req) } },
    );
    const { session, events } = open(config, store, provider);
    for (let i = 0; i < 4; i++) await session.prompt(`task ${i}`);
    const before = session.contextUsage().tokens;
    const from = events.length;
    const record = await session.compact();
    expect(record.status).toBe('applied');
    const after = events.slice(from);
    const end = after.findIndex((e) => e.type === 'compaction_end');
    const shown = after.slice(0, end).flatMap((e) => (e.type === 'context' ? [e.usage.tokens] : []));
    expect(shown.at(-1)).toBe(session.contextUsage().tokens);
    expect(shown.at(-1)).toBeLessThan(before);
    session.close();
    store.close();
  });
});

describe('a silent overflow', () => {
  it('is said at once, kept in the saved state, and compacted once before the next request, also after a resume', async () => {
    const { config, store } = setup();
    // a local OpenAI-compatible server: the kind that truncates silently (Ollama's num_ctx)
    const provider = Object.defineProperties(scripted([{ inputTokens: 250_000 }]), {
      name: { value: 'openai' },
      baseURL: { value: 'http://127.0.0.1:11434/v1' },
    });
    const { session, notices } = open(config, store, provider);
    expect((await session.prompt('first')).reason).toBe('end_turn');
    expect(notices()).toEqual([
      "warning: Context overflow: the server reported 250,000 input tokens, more than the model's 200,000-token window. " +
        'The conversation will be compacted before the next request.',
    ]);
    // the window it implies is the configured one: nothing else changes
    expect(session.contextUsage().contextWindow).toBe(200_000);
    const id = session.id;
    session.close();
    const again = open(config, store, provider, store.getSession(id)!);
    await again.session.prompt('second');
    await again.session.prompt('third');
    // the summary's requests come before the second prompt's, none before the third's
    expect(kinds(provider).join(' ')).toMatch(/^main (summary )+main main$/);
    expect(again.events.find((e) => e.type === 'compaction_end')).toMatchObject({ record: { trigger: 'reactive' } });
    again.session.close();
    store.close();
  });
});

describe('/model and the compactor', () => {
  it('a switch stores the new model and the gauge follows its window; an unknown one is said assumed; another family without a way to reach it is refused', async () => {
    const { config, store } = setup();
    const provider = scripted();
    const { session, events } = open(config, store, provider);
    await session.prompt('hello');
    const shown = events.length;
    expect(session.setModel('qwen-local')).toMatch(
      /^Switched to qwen-local \(unknown model: assuming a [\d,]+-token window; describe it under "models" in \.agentrc\)\.$/,
    );
    const window = session.currentConfig.model.contextWindow;
    expect(window).not.toBe(200_000);
    expect(session.contextUsage().contextWindow).toBe(window);
    // the front ends are shown the gauge on the new window at once (mutation: follow() without its showUsage())
    expect(events.slice(shown).flatMap((e) => (e.type === 'context' ? [e.usage.contextWindow] : []))).toEqual([window]);
    expect(store.getSession(session.id)?.model).toBe('qwen-local');
    await session.prompt('again');
    expect(provider.requests.at(-1)?.model).toBe('qwen-local');
    expect(() => session.setModel('gpt-5.4')).toThrow('/model gpt-5.4: cannot reach openai from this session');
    expect(session.currentConfig.model.name).toBe('qwen-local');
    session.close();
    store.close();
  });
});

describe('the cooldown after a compaction', () => {
  it('counts down with each turn that ends, not with one the person stopped', async () => {
    const { config, store } = setup();
    let hold = false;
    const provider = new ScriptedProvider((req) =>
      hold
        ? new Promise<never>((_resolve, reject) => req.signal?.addEventListener('abort', () => reject(req.signal?.reason), { once: true }))
        : { text: 'fine', usage: { inputTokens: inputOf(req) } },
    );
    const first = open(config, store, provider);
    expect((await first.session.prompt('first')).reason).toBe('end_turn');
    const id = first.session.id;
    first.session.close();
    const row = store.getSession(id)!;
    store.updateSession(id, { meta: { ...row.meta, compaction: { ...(row.meta.compaction as object), cooldownTurnsLeft: 2 } } });
    const left = (): number => (store.getSession(id)!.meta.compaction as { cooldownTurnsLeft: number }).cooldownTurnsLeft;
    const again = open(config, store, provider, store.getSession(id)!);
    // mutation: turnCompleted only after an aborted turn leaves 2 here
    expect((await again.session.prompt('second')).reason).toBe('end_turn');
    expect(left()).toBe(1);
    hold = true;
    const stopped = again.session.prompt('third');
    await vi.waitFor(() => expect(provider.requests).toHaveLength(3));
    again.session.interrupt();
    expect((await stopped).reason).toBe('aborted');
    // mutation: turnCompleted after every turn leaves 0 here
    expect(left()).toBe(1);
    again.session.close();
    store.close();
  });
});

describe('a prompt against the window', () => {
  it('one whose tokens with the system prompt and tools come to the input share exactly is sent; one token over, refused before sending', async () => {
    const dir = tempDir('agent-compactor-edge-');
    const at = (contextWindow: number) => {
      writeFileSync(join(dir, '.agentrc'), JSON.stringify({ models: { 'edge-model': { contextWindow, maxOutputTokens: 1_024, provider: 'anthropic' } } }));
      const config = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: 'edge-model' } });
      const store = openStore(config.dbPath);
      const provider = scripted();
      return { ...open(config, store, provider), store, provider };
    };
    const text = Array.from({ length: 400 }, (_, i) => `item ${i} is ${(i * 7919) % 1009}`).join('\n');
    const probe = at(200_000);
    const { system, specs } = probe.session.frame();
    const fixed = counter.countText(system) + counter.countToolSpecs(specs);
    const prompt = counter.countMessage({ id: 'p', role: 'user', kind: 'normal', blocks: [{ type: 'text', text }], createdAt: 0 });
    probe.session.close();
    probe.store.close();
    // the input share is the window less the reply's 1,024 tokens
    const refusals = (s: ReturnType<typeof at>) => s.events.filter((e) => e.type === 'prompt_refused');
    const fits = at(prompt + fixed + 1_024);
    expect(fits.session.frame().system).toBe(system);
    await fits.session.prompt(text);
    // mutation: `promptTokens + fixedTokens > limit` made `>=`: the prompt that fits exactly is refused
    expect(refusals(fits)).toEqual([]);
    expect(kinds(fits.provider)).toContain('main');
    fits.session.close();
    fits.store.close();
    const over = at(prompt + fixed + 1_023);
    await over.session.prompt(text);
    expect(refusals(over)).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(
          `^This prompt is about ${prompt.toLocaleString('en-US')} tokens; with the system prompt and tools \\(${fixed.toLocaleString('en-US')}\\)`,
        ),
      }),
    ]);
    expect(over.provider.requests).toEqual([]);
    over.session.close();
    over.store.close();
  });
});

describe('reactive compaction, turn by turn', () => {
  it("each turn has its own attempts: a second turn's overflow is compacted again under maxReactiveAttempts 1", async () => {
    const { config, store } = setup({ rc: { compaction: { maxReactiveAttempts: 1, background: false } } });
    let overflows = 0;
    const provider = new ScriptedProvider((req) => {
      if (isSummaryRequest(req)) return { text: SUMMARY };
      if (overflows > 0) return (overflows--, overflow(200_000));
      return { text: `answer. ${LONG}`, usage: { inputTokens: inputOf(req) } };
    });
    const { session, events } = open(config, store, provider);
    for (let i = 0; i < 4; i++) await session.prompt(`task ${i}`);
    const reactive = () => events.flatMap((e) => (e.type === 'compaction_end' && e.record.trigger === 'reactive' ? [e.record.status] : []));
    overflows = 1;
    expect((await session.prompt('five')).reason).toBe('end_turn');
    expect(reactive()).toEqual(['applied']);
    for (let i = 0; i < 3; i++) await session.prompt(`more ${i}`);
    // mutation: the count not reset at a turn's start makes this the turn's second attempt, past the limit
    overflows = 1;
    expect((await session.prompt('nine')).reason).toBe('end_turn');
    expect(reactive()).toEqual(['applied', 'applied']);
    session.close();
    store.close();
  });
});

describe('a window the server states by its counts', () => {
  it('a local server whose count stops growing with the conversation: that count is taken as the window for the session, and said', async () => {
    const { config, store } = setup();
    let first = 0;
    const provider = Object.defineProperties(
      new ScriptedProvider((req) => {
        if (isSummaryRequest(req)) return { text: SUMMARY };
        first ||= inputOf(req);
        return { text: 'fine', usage: { inputTokens: first } };
      }),
      { name: { value: 'openai' }, baseURL: { value: 'http://127.0.0.1:11434/v1' } },
    );
    const { session, notices } = open(config, store, provider);
    expect((await session.prompt('first')).reason).toBe('end_turn');
    expect(notices()).toEqual([]);
    await session.prompt(`second: ${tokensText(1_500)}`);
    const n = first.toLocaleString('en-US');
    expect(notices()).toEqual([
      expect.stringMatching(`^warning: Context overflow: the server counted ${n} input tokens again although the conversation grew`),
      expect.stringMatching(`^warning: The provider says claude-sonnet-4-5 has a ${n}-token context window \\(configured: 200,000\\)`),
    ]);
    expect(session.contextUsage().contextWindow).toBe(first);
    session.close();
    store.close();
  });
});

describe('compactions that fail', () => {
  it('a summary that fails is kept as a failed attempt; so is one the database refuses to save, without its summary, the history as it was', async () => {
    const { config, store } = setup();
    let summaries: 'fail' | 'ok' = 'fail';
    const provider = new ScriptedProvider((req) => {
      if (!isSummaryRequest(req)) return { text: `answer. ${LONG}`, usage: { inputTokens: inputOf(req) } };
      return summaries === 'fail' ? new ProviderError({ kind: 'bad_request', provider: 'anthropic', status: 400, message: 'refused' }) : { text: SUMMARY };
    });
    const { session } = open(config, store, provider);
    for (let i = 0; i < 4; i++) await session.prompt(`task ${i}`);
    const history = session.messages().map((m) => m.id);
    expect((await session.compact()).status).toBe('failed');
    expect(store.listCompactions(session.id).map((r) => r.status)).toEqual(['failed']);
    summaries = 'ok';
    store.applyCompaction = () => {
      throw new Error('disk I/O error');
    };
    const refused = await session.compact();
    expect(refused).toMatchObject({ status: 'failed', reason: 'it could not be saved (disk I/O error); nothing was changed' });
    expect(refused.summary).toBeUndefined();
    expect(store.listCompactions(session.id).map((r) => [r.status, r.reason])).toEqual([
      ['failed', expect.any(String)],
      ['failed', 'it could not be saved (disk I/O error); nothing was changed'],
    ]);
    expect(session.messages().map((m) => m.id)).toEqual(history);
    session.close();
    store.close();
  });
});

describe('the engine the compactor makes (compactionEngine.ts)', () => {
  /** A session with four long turns behind it, then a /compact in the background settled as a print run's end settles it. */
  async function compactedAtRest(rc?: object) {
    const { config, store } = setup(rc ? { rc } : {});
    const provider = new ScriptedProvider((req) =>
      isSummaryRequest(req) ? { text: SUMMARY } : { text: `answer. ${LONG}`, usage: { inputTokens: inputOf(req), outputTokens: 20 } },
    );
    const s = open(config, store, provider);
    for (let i = 0; i < 4; i++) await s.session.prompt(`task ${i}`);
    const main = provider.requests.at(-1)!;
    const from = provider.requests.length;
    expect(await s.session.compactInBackground()).toBe(true);
    await s.session.settleCompaction();
    expect(s.events.filter((e) => e.type === 'compaction_end').map((e) => e.type === 'compaction_end' && e.record.status)).toEqual(['applied']);
    // the job is done: nothing pending, nothing cancelled (mutation: the engine not told of the commit, committed() dropped)
    expect(s.session.contextUsage().compacting).toBeUndefined();
    expect(s.events.filter((e) => e.type === 'compaction_skipped')).toEqual([]);
    // the state is saved with the commit, as it stands (mutation: the commit path without saveState())
    const saved = store.getSession(s.session.id)!.meta;
    const after = provider.requests.slice(from);
    s.session.close();
    expect(store.getSession(s.session.id)!.meta).toEqual(saved);
    store.close();
    return { main, summary: after.filter(isSummaryRequest), others: after.filter((r) => !isSummaryRequest(r)), id: s.session.id };
  }

  it("with prompt caching on: the summary is the session's own request, and a warm-up goes out as the next request would, after a short user message, for 16 tokens", async () => {
    const { main, summary, others, id } = await compactedAtRest();
    expect(summary).toHaveLength(1);
    // in place: the session's model, system prompt and tools (mutation: `||` for `&&` in inPlaceSummary's condition is the other case below)
    expect(summary[0]).toMatchObject({ model: 'claude-sonnet-4-5', system: main.system, cacheKey: id });
    expect(others).toHaveLength(1);
    const warm = others[0]!;
    expect(warm).toMatchObject({ model: 'claude-sonnet-4-5', system: main.system, tools: main.tools, cacheKey: id });
    expect(warm.maxTokens).toBe(16 + (warm.thinking?.mode === 'enabled' ? (warm.thinking.budgetTokens ?? 0) : 0));
    // at rest the history ends with the model's reply: a short user message follows it
    expect(warm.messages.at(-2)?.role).toBe('assistant');
    expect(warm.messages.at(-1)).toMatchObject({ role: 'user', blocks: [{ type: 'text', text: expect.stringMatching(/\S/) }] });
    expect(warm.messages.at(-1)?.blocks).toHaveLength(1);
  });

  it('with prompt caching off: the summary is a request of its own (its own system prompt), and no warm-up goes out', async () => {
    const { main, summary, others } = await compactedAtRest({ cache: { enabled: false } });
    expect(summary).toHaveLength(1);
    expect(summary[0]?.model).toBe('claude-sonnet-4-5');
    expect(summary[0]?.system).not.toBe(main.system);
    expect(others).toEqual([]);
  });
});

describe('automatic compaction before a call', () => {
  it('the request after the summary carries the compacted history: the compaction is committed before the call goes out', async () => {
    const { config, store } = setup({
      rc: { models: { 'edge-model': { contextWindow: 16_000, maxOutputTokens: 1_000, provider: 'anthropic' } }, compaction: { background: false } },
      model: 'edge-model',
    });
    const long = SENTENCE.repeat(60);
    // the summary is answered on the event loop's next turn, as a real one is: a call not waiting for it goes out first
    const provider = new ScriptedProvider((req) =>
      isSummaryRequest(req)
        ? new Promise<{ text: string }>((r) => setImmediate(() => r({ text: SUMMARY })))
        : { text: `answer. ${long}`, usage: { inputTokens: inputOf(req) } },
    );
    const { session, events } = open(config, store, provider);
    for (let i = 0; i < 12 && !events.some((e) => e.type === 'compaction_end'); i++) await session.prompt(`task ${i}`);
    expect(events.find((e) => e.type === 'compaction_end')).toMatchObject({ record: { status: 'applied' } });
    const at = provider.requests.findIndex(isSummaryRequest);
    const next = provider.requests[at + 1]!;
    expect(isSummaryRequest(next)).toBe(false);
    // mutation: the compaction before the call not awaited: the call goes out with the full history beside the summary's request
    expect(next.messages.some((m) => m.kind === 'checkpoint')).toBe(true);
    expect(next.messages.length).toBeLessThan(provider.requests[at - 1]!.messages.length);
    session.close();
    store.close();
  });
});

describe('what a summary by another model costs', () => {
  it('a summary that failed consumed nothing and bills nothing; one written is billed to the summarizer (compaction.model)', async () => {
    const { config, store } = setup({ rc: { compaction: { model: 'claude-haiku-4-5' } } });
    let fail = true;
    const provider = new ScriptedProvider((req) => {
      if (!isSummaryRequest(req)) return { text: `answer. ${LONG}`, usage: { inputTokens: inputOf(req) } };
      return fail
        ? new ProviderError({ kind: 'bad_request', provider: 'anthropic', status: 400, message: 'refused' })
        : { text: SUMMARY, usage: { inputTokens: 900, outputTokens: 80 } };
    });
    const { session } = open(config, store, provider);
    for (let i = 0; i < 4; i++) await session.prompt(`task ${i}`);
    expect((await session.compact()).status).toBe('failed');
    // mutation: `||` for `&&` bills the summarizer a zero-token request
    expect(Object.keys(session.usageByModel())).toEqual(['claude-sonnet-4-5']);
    fail = false;
    expect((await session.compact()).status).toBe('applied');
    expect(session.usageByModel()['claude-haiku-4-5']).toMatchObject({ inputTokens: 900, outputTokens: 80 });
    session.close();
    store.close();
  });
});

describe('/effort and the compactor', () => {
  it("the summary written in place after /effort is sent with the new effort, as the session's next request is", async () => {
    const { config, store } = setup({ model: 'claude-sonnet-5-5' });
    const provider = new ScriptedProvider((req) =>
      isSummaryRequest(req) ? { text: SUMMARY } : { text: `answer. ${LONG}`, usage: { inputTokens: inputOf(req) } },
    );
    const { session, events } = open(config, store, provider);
    for (let i = 0; i < 4; i++) await session.prompt(`task ${i}`);
    const before = provider.requests.at(-1)!.thinking;
    const shown = events.length;
    expect(session.setEffort('low')).toMatch(/^Effort low from the next turn/);
    // the gauge is shown at once on the engine made for it (mutation: the engine not followed)
    expect(events.slice(shown).filter((e) => e.type === 'context')).toHaveLength(1);
    expect((await session.compact()).status).toBe('applied');
    await session.prompt('after');
    const summary = provider.requests.find(isSummaryRequest)!;
    const next = provider.requests.at(-1)!;
    expect(next.thinking).not.toEqual(before);
    expect(summary.thinking).toEqual(next.thinking);
    session.close();
    store.close();
  });
});
