import { statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createTokenCounter, TokenCounter } from '../../src/compaction/tokens.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import { ProviderError } from '../../src/llm/errors.js';
import { textOf } from '../../src/llm/messages.js';
import type { ModelRequest } from '../../src/llm/provider.js';
import { historyProblems } from '../../src/llm/validate.js';
import { PIN_HEADER, Session } from '../../src/session/session.js';
import type { SessionEvent } from '../../src/protocol/events.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createTools } from '../../src/tools/registry.js';
import type { AnyTool } from '../../src/tools/types.js';
import { isSummaryRequest, ScriptedProvider, SUMMARY } from '../compaction/helpers.js';
import { tempDir } from '../tempDirs.js';

// The session over a real store and real tools, driven by our own scripted Provider (the
// SDK paths are covered end to end elsewhere).

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter();
});

const LONG = 'A long answer about the code base with many details worth summarizing later on. '.repeat(40);

function setup(over: Record<string, unknown> = {}, rc: Partial<Config> = {}): { config: Config; dir: string } {
  const dir = tempDir('agent-session-');
  const config = {
    ...loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: 'claude-sonnet-4-5' } }),
    ...rc,
    ...over,
  };
  return { config, dir };
}

function open(
  config: Config,
  store: Store,
  provider: ScriptedProvider,
  resume?: Parameters<typeof Session.open>[1],
): { session: Session; events: SessionEvent[] } {
  const session = Session.open({ config, store, provider, tools: (lent) => createTools({ bash: config.bash }, lent), capabilities: [], counter }, resume);
  const events: SessionEvent[] = [];
  session.on((e) => events.push(e));
  return { session, events };
}

/** What a real provider would report as input for the request. */
const inputOf = (req: ModelRequest): number => counter.countText(req.system) + counter.countToolSpecs(req.tools) + counter.countMessages(req.messages);

const answering = (): ScriptedProvider =>
  new ScriptedProvider((req) => (isSummaryRequest(req) ? { text: SUMMARY } : { text: `answer. ${LONG}`, usage: { inputTokens: inputOf(req) } }));

describe('session', () => {
  it('keeps a pinned note verbatim through a compaction, and across resume', async () => {
    const { config } = setup();
    const store = openStore(config.dbPath);
    const { session } = open(config, store, answering());
    await session.prompt('always use tabs, never spaces');
    session.pin();
    for (let i = 0; i < 5; i++) await session.prompt(`task ${i}`);
    const record = await session.compact();
    expect(record.reason ?? record.status).toBe('applied');
    const pinned = session.messages().filter((m) => m.pinned);
    expect(pinned).toHaveLength(1);
    expect(textOf(pinned[0]!)).toBe(`${PIN_HEADER}\nalways use tabs, never spaces`);
    expect(historyProblems(session.messages())).toEqual([]);
    session.close();

    const info = store.getSession(session.id)!;
    const { session: again } = open(config, store, answering(), info);
    expect(again.messages().map((m) => m.id)).toEqual(session.messages().map((m) => m.id));
    expect(again.messages().some((m) => m.pinned && textOf(m).includes('never spaces'))).toBe(true);
    store.close();
  });

  it('/pin alone pins the last prompt of text alone: one that carried an image is passed over', async () => {
    const { config } = setup();
    const store = openStore(config.dbPath);
    const provider = answering();
    const { session } = open(config, store, provider);
    await session.prompt('always run the linter before committing');
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    expect((await session.prompt('what does this screenshot show?', { images: [{ type: 'image', mediaType: 'image/png', data: png }] })).reason).toBe(
      'end_turn',
    );
    expect(session.messages().some((m) => m.blocks.some((b) => b.type === 'image'))).toBe(true);
    // a model that takes images is sent it (mutation: the loop told `images: false` for every model)
    expect(provider.requests.at(-1)!.messages.at(-1)!.blocks).toContainEqual({ type: 'image', mediaType: 'image/png', data: png });
    session.pin();
    // mutation: `every` block text made `some`: the screenshot's question is pinned
    expect(
      session
        .messages()
        .filter((m) => m.pinned)
        .map(textOf),
    ).toEqual([`${PIN_HEADER}\nalways run the linter before committing`]);
    session.close();
    store.close();
  });

  it('resumes without tokenizing the stored history again: the counts saved with the rows are used', async () => {
    const { config } = setup();
    const store = openStore(config.dbPath);
    const { session } = open(config, store, answering());
    for (let i = 0; i < 4; i++) await session.prompt(`task ${i}`);
    const before = session.contextUsage().tokens;
    session.close();

    // a fresh counter that records every text it is asked to tokenize
    const seen: string[] = [];
    const spy = new TokenCounter((text) => {
      seen.push(text);
      return counter.countText(text);
    });
    const again = Session.open(
      { config, store, provider: answering(), tools: (lent) => createTools({ bash: config.bash }, lent), capabilities: [], counter: spy },
      store.getSession(session.id)!,
    );
    expect(again.contextUsage().tokens).toBe(before);
    // the system prompt and tool schemas are counted; none of the stored answers is
    expect(seen.some((t) => t.includes('A long answer about the code base'))).toBe(false);
    expect(seen.some((t) => t.includes('task 0'))).toBe(false);
    again.close();
    store.close();
  });

  it('once the provider states a smaller window, summaries are sized to it at once (no overflowing summary request)', async () => {
    const { config } = setup();
    const store = openStore(config.dbPath);
    let limit = 1_000_000;
    let summaryOverflows = 0;
    const tooLong = (n: number): ProviderError =>
      new ProviderError({
        kind: 'context_overflow',
        provider: 'anthropic',
        status: 400,
        message: `prompt is too long: ${n} tokens > ${limit} maximum`,
        overflow: { promptTokens: n, limit },
      });
    const provider = new ScriptedProvider((req) => {
      const n = inputOf(req);
      if (isSummaryRequest(req)) {
        if (n + req.maxTokens > limit) {
          summaryOverflows++;
          return tooLong(n + req.maxTokens);
        }
        return { text: SUMMARY };
      }
      return n > limit ? tooLong(n) : { text: `answer. ${LONG.repeat(6)}`, usage: { inputTokens: n } };
    });
    const { session } = open(config, store, provider);
    for (let i = 0; i < 8; i++) await session.prompt(`task ${i}`);
    expect(session.contextUsage().tokens).toBeGreaterThan(25_000);
    limit = 20_000; // the server turns out to hold far less than the model table says
    const r = await session.prompt('one more task');
    expect(r.reason).toBe('end_turn');
    expect(session.contextUsage().contextWindow).toBe(20_000);
    expect(summaryOverflows).toBe(0);
    session.close();
    store.close();
  });

  it('goes on in memory when the database is full, tells the person once, and loses nothing it already saved', async () => {
    const { config } = setup();
    let store = openStore(config.dbPath);
    const first = open(config, store, answering());
    await first.session.prompt('first prompt');
    first.session.close();
    store.close();
    // reopen the same file capped at its current size: the next pages cannot be allocated
    store = openStore(config.dbPath, { maxSizeBytes: statSync(config.dbPath).size });
    const { session, events } = open(config, store, answering(), store.getSession(first.session.id)!);
    for (let i = 0; i < 3; i++) {
      const r = await session.prompt(`prompt ${i} ${LONG}`);
      expect(r.reason).toBe('end_turn');
    }
    const errors = events.filter((e) => e.type === 'notice' && e.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ text: expect.stringContaining(config.dbPath) });
    expect(errors[0]).toMatchObject({ text: expect.stringMatching(/in memory/) });
    // memory has everything; the database still has what was saved before
    expect(session.messages().filter((m) => m.role === 'user' && m.kind === 'normal')).toHaveLength(4);
    expect(store.loadVisible(session.id).length).toBeGreaterThanOrEqual(2);
    // a compaction is not applied while pending messages cannot be written
    const record = await session.compact();
    expect(record).toMatchObject({ status: 'failed', reason: expect.stringContaining('the database cannot be written') });
    expect(events.filter((e) => e.type === 'compaction_end').map((e) => (e.type === 'compaction_end' ? e.record.status : ''))).toEqual(['failed']);
    expect(session.messages().some((m) => m.kind === 'checkpoint')).toBe(false);
    store.close();
  });

  it('scopes recall to the session unless crossSession is set', async () => {
    const { config } = setup();
    const store = openStore(config.dbPath);
    const a = open(config, store, answering()).session;
    await a.prompt('the secret is OSPREY');
    for (let i = 0; i < 4; i++) await a.prompt(`more ${i}`);
    expect((await a.compact()).status).toBe('applied');
    const b = open(config, store, answering()).session;
    await b.prompt('hello');
    expect(b.recallSource().search('OSPREY', { limit: 5, offset: 0 })).toEqual([]);
    expect(a.recallSource().search('OSPREY', { limit: 5, offset: 0 }).length).toBeGreaterThan(0);
    const wide = open({ ...config, recall: { crossSession: true } }, store, answering()).session;
    const hits = wide.recallSource().search('OSPREY', { limit: 5, offset: 0 });
    expect(hits[0]?.sessionId).toBe(a.id);
    store.close();
  });

  it('switches models within a provider and refuses to pin mid-turn', async () => {
    const { config } = setup();
    const store = openStore(config.dbPath);
    const { session } = open(config, store, answering());
    expect(session.setModel('claude-haiku-4-5')).toMatch(/Switched to claude-haiku-4-5 \(anthropic, 200,000-token window\)/);
    expect(session.currentConfig.model.name).toBe('claude-haiku-4-5');
    const running = session.prompt('hi');
    expect(() => session.pin('x')).toThrow(/wait for the current turn/);
    await running;
    store.close();
  });

  it("refuses /model when the new frame's engine cannot be made, changing nothing: the frame, the stored model", async () => {
    // gpt-5.4 is reachable, but compaction.model (a Claude model) cannot be from there: the engine
    // for the new frame is made first, so the throw leaves the session on its model
    const { config } = setup({}, { compaction: { ...setup().config.compaction, model: 'claude-haiku-4-5' } });
    const store = openStore(config.dbPath);
    const other = answering();
    const providerFor = (_: Config, purpose?: string) => {
      if (purpose?.startsWith('compaction.model')) throw new Error('no Anthropic key for the summarizer');
      return other;
    };
    const session = Session.open({
      config,
      store,
      provider: answering(),
      tools: (lent) => createTools({ bash: config.bash }, lent),
      capabilities: [],
      counter,
      providerFor,
    });
    await session.prompt('hello');
    const before = session.frame();
    expect(() => session.setModel('gpt-5.4')).toThrow(/no Anthropic key for the summarizer/);
    expect(session.frame()).toBe(before);
    expect(session.currentConfig.model.name).toBe('claude-sonnet-4-5');
    expect(store.getSession(session.id)?.model).toBe('claude-sonnet-4-5');
    session.close();
    store.close();
  });
});

describe('a background compaction and the turn', () => {
  it('a /compact whose summary is ready mid-turn is swapped in when the turn ends, with no prompt after it', async () => {
    const { config } = setup();
    const store = openStore(config.dbPath);
    let releaseSummary: () => void = () => undefined;
    const summaryGate = new Promise<void>((r) => (releaseSummary = r));
    let releaseMain: (() => void) | undefined;
    const provider = new ScriptedProvider(async (req) => {
      if (isSummaryRequest(req)) return summaryGate.then(() => ({ text: SUMMARY }));
      if (releaseMain) await new Promise<void>((r) => (releaseMain = r));
      return { text: `answer. ${LONG}`, usage: { inputTokens: inputOf(req) } };
    });
    const { session, events } = open({ ...config, compaction: { ...config.compaction, background: true } }, store, provider);
    for (let i = 0; i < 5; i++) await session.prompt(`task ${i}`);
    expect(await session.compactInBackground()).toBe(true);
    await vi.waitFor(() => expect(provider.requests.filter(isSummaryRequest)).toHaveLength(1));
    // a turn whose one request is in flight when the summary arrives
    releaseMain = () => undefined;
    const sent = provider.requests.length;
    const turn = session.prompt('one more thing');
    await vi.waitFor(() => expect(provider.requests).toHaveLength(sent + 1));
    releaseSummary();
    await vi.waitFor(() => expect(session.contextUsage().compacting?.ready).toBe(true));
    releaseMain();
    releaseMain = undefined;
    expect((await turn).reason).toBe('end_turn');
    // mutation: the turn's end without compactor.background.rested(): the ready summary waits for the next prompt
    await vi.waitFor(
      () => expect(events.some((e) => e.type === 'compaction_end' && e.record.trigger === 'manual' && e.record.status === 'applied')).toBe(true),
      {
        timeout: 10_000,
      },
    );
    session.close();
    store.close();
  });
});

describe('what the sandbox denied', () => {
  it("a new session's first `!command` that the sandbox denied is kept as a record of its own: the session is stored for it first", async () => {
    const { config } = setup();
    const store = openStore(config.dbPath);
    const denied = { command: 'touch /etc/x', lines: ['write /etc/x: denied'] };
    const bash = {
      name: 'Bash',
      description: 'Runs a command.',
      inputSchema: { type: 'object' },
      kind: 'execute',
      parse: (i: unknown) => i,
      summarize: () => 'touch /etc/x',
      run: async (input: { command: string }) =>
        input.command === 'ls'
          ? { content: 'a.txt', isError: false }
          : { content: 'touch: /etc/x: Read-only file system', isError: true, sandboxDenied: denied },
    } as unknown as AnyTool;
    const session = Session.open({ config, store, provider: answering(), tools: () => [bash], capabilities: [], counter });
    const events: SessionEvent[] = [];
    session.on((e) => events.push(e));
    await session.shell('touch /etc/x');
    // mutation: the record saved without log.ensureStored() first: the row's session does not exist yet, a warning instead
    expect(events.filter((e) => e.type === 'notice')).toEqual([]);
    expect(store.sandboxViolations.list(session.id)).toEqual([expect.objectContaining({ command: 'touch /etc/x', line: 'write /etc/x: denied' })]);
    // a command the sandbox let through leaves no record (mutation: `||` for the first `&&` saves one for every call's end)
    await session.shell('ls');
    expect(events.filter((e) => e.type === 'notice')).toEqual([]);
    expect(store.sandboxViolations.list(session.id)).toHaveLength(1);
    // a record the database refuses is said, and the command's end still reaches the front ends
    store.sandboxViolations.save = () => {
      throw new Error('disk I/O error');
    };
    const ends = events.filter((e) => e.type === 'tool_end').length;
    await session.shell('touch /etc/x');
    expect(events.filter((e) => e.type === 'notice')).toEqual([
      expect.objectContaining({ level: 'warning', text: 'Could not record what the sandbox denied: disk I/O error' }),
    ]);
    expect(events.filter((e) => e.type === 'tool_end')).toHaveLength(ends + 1);
    session.close();
    store.close();
  });
});

describe("a custom command's !`command`s", () => {
  it('run once the gate allows them: refused with advice where nobody can approve, run when the person approved them already', async () => {
    const { config, dir } = setup();
    const store = openStore(config.dbPath);
    const provider = answering();
    const { session } = open(config, store, provider);
    const expand = (shell: (command: string) => Promise<string>) => shell('touch made.txt && echo made').then((out) => `Files: ${out.trim()}`);
    await expect(session.prompt('/files', { expand })).rejects.toThrow(
      "!`touch made.txt && echo made` in the command was not run, so the prompt was not sent: Bash needs the user's approval",
    );
    await expect(session.prompt('/files', { expand })).rejects.toThrow("(list it in the command's allowed-tools, e.g. Bash(touch made.txt:*))");
    expect(provider.requests).toEqual([]);
    // a project skill the person approved with its code: its commands run without asking
    expect((await session.prompt('/files', { expand, commandsApproved: true })).reason).toBe('end_turn');
    expect(statSync(join(dir, 'made.txt')).isFile()).toBe(true);
    expect(textOf(provider.requests.at(-1)!.messages.at(-1)!)).toContain('Files: made');
    session.close();
    store.close();
  });
});
