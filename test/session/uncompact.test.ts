import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runSlash } from '../../src/commands/registry.js';
import { REWIND_USAGE } from '../../src/commands/rewind.js';
import { createTokenCounter, type TokenCounter } from '../../src/compaction/tokens.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import { ProviderError } from '../../src/llm/errors.js';
import { textOf } from '../../src/llm/messages.js';
import type { ModelRequest } from '../../src/llm/provider.js';
import { historyProblems } from '../../src/llm/validate.js';
import { Session } from '../../src/session/session.js';
import type { SessionEvent } from '../../src/protocol/events.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createTools } from '../../src/tools/registry.js';
import { repairHistory } from '../../src/session/repair.js';
import { planFor, uncompactTargets } from '../../src/session/uncompact.js';
import { assistant, autoChange, user } from '../store/helpers.js';
import { isSummaryRequest, ScriptedProvider, SUMMARY } from '../compaction/helpers.js';
import { tempDir } from '../tempDirs.js';

// /uncompact over the session: which compaction, what comes back, what is refused and why,
// and that a refused undo changes nothing (history, gauge) while an applied one survives a resume.

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter();
});

const LONG = 'An answer about the code base with details worth summarizing later on. '.repeat(30);
const inputOf = (req: ModelRequest): number => counter.countText(req.system) + counter.countToolSpecs(req.tools) + counter.countMessages(req.messages);
const answering = (long = LONG): ScriptedProvider =>
  new ScriptedProvider((req) => (isSummaryRequest(req) ? { text: SUMMARY } : { text: `answer. ${long}`, usage: { inputTokens: inputOf(req) } }));

function setup(window?: number): { config: Config; store: Store } {
  const dir = tempDir('agent-uncompact-');
  const base = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: 'claude-sonnet-4-5' } });
  const config: Config = window
    ? {
        ...base,
        model: { ...base.model, contextWindow: window, maxOutputTokens: 1_000 },
        maxOutputTokens: 1_000,
        compaction: { ...base.compaction, auto: false },
      }
    : base;
  return { config, store: openStore(config.dbPath) };
}

function open(config: Config, store: Store, resume?: Parameters<typeof Session.open>[1], long = LONG): { session: Session; events: SessionEvent[] } {
  const session = Session.open(
    { config, store, provider: answering(long), tools: (lent) => createTools({ bash: config.bash }, lent), capabilities: [], counter },
    resume,
  );
  const events: SessionEvent[] = [];
  session.on((e) => events.push(e));
  return { session, events };
}

const texts = (s: Session): string[] => s.messages().map((m) => textOf(m));
const says = async (session: Session, line: string): Promise<string> => {
  const out = await runSlash({ session }, line);
  if (out?.kind !== 'text') throw new Error(`no text from ${line}`);
  return out.text;
};

describe('/uncompact', () => {
  it('undoes a chosen compaction with every one after it; the history is valid and stays so after a resume', async () => {
    const { config, store } = setup();
    const { session, events } = open(config, store);
    for (let i = 0; i < 4; i++) await session.prompt(`first part ${i}`);
    await session.compact();
    for (let i = 0; i < 4; i++) await session.prompt(`second part ${i}`);
    await session.compact();
    expect(texts(session).some((t) => t === 'first part 0')).toBe(false);
    expect(await says(session, '/uncompact list')).toMatch(/ 1\. .* manual .*\n +2\. .* manual /);

    const done = await says(session, '/uncompact 1');
    expect(done).toMatch(/^Undid compaction 1 \(and the compaction after it\): \d+ more messages in view/);
    expect(events.some((e) => e.type === 'history_reset')).toBe(true);
    const after = texts(session);
    for (const t of ['first part 0', 'first part 3', 'second part 0', 'second part 3']) expect(after).toContain(t);
    expect(session.messages().some((m) => m.kind === 'checkpoint')).toBe(false);
    expect(historyProblems(session.messages())).toEqual([]);
    expect(await says(session, '/uncompact')).toContain('Nothing to undo');

    // the next turn sends what came back, and a resume reads the same history
    await session.prompt('and now?');
    const sent = session.messages();
    session.close();
    const again = open(config, store, store.getSession(session.id)).session;
    expect(again.messages().map((m) => m.id)).toEqual(sent.map((m) => m.id));
    again.close();
    store.close();
  });

  it('refuses what would not fit under the auto threshold, changing nothing, and offers the newest part that does', async () => {
    const { config, store } = setup(16_000);
    // ~1,300 tokens an answer: nine turns are more than the ~10K auto threshold of a 16K window
    const { session } = open(config, store, undefined, LONG.repeat(4));
    for (let i = 0; i < 9; i++) await session.prompt(`question ${i}`);
    await session.compact();
    const before = session.messages().map((m) => m.id);
    const gauge = session.contextUsage().tokens;
    const refused = await says(session, '/uncompact');
    expect(refused).toMatch(/more than the auto-compaction threshold .* Nothing was changed\./s);
    expect(session.messages().map((m) => m.id)).toEqual(before);
    expect(session.contextUsage().tokens).toBe(gauge);
    const n = Number(/\/uncompact 1 newest (\d+)/.exec(refused)![1]);
    const part = await says(session, `/uncompact 1 newest ${n}`);
    expect(part).toMatch(/^Brought back the newest \d+ messages compacted by compaction 1/);
    expect(session.messages().length).toBeGreaterThan(before.length);
    expect(session.messages()[0]!.role).toBe('user');
    expect(historyProblems(session.messages())).toEqual([]);
    expect(session.contextUsage().tokens).toBeLessThan(session.contextUsage().effectiveWindow);
    // a part too large for the window is refused too
    expect(await says(session, '/uncompact 1 newest 500')).toMatch(/over the auto-compaction threshold .*give a smaller number/s);
    session.close();
    store.close();
  });

  it('/rewind undo takes back the last conversation rewind through the same kind of record', async () => {
    const { config, store } = setup();
    const { session } = open(config, store);
    for (let i = 0; i < 4; i++) await session.prompt(`step ${i}`);
    const all = session.messages().map((m) => m.id);
    // a word like a flag is refused with the usage, even one the rest would take as a turn
    await expect(runSlash({ session }, '/rewind -2 conversation')).rejects.toThrow(REWIND_USAGE);
    expect(session.messages().map((m) => m.id)).toEqual(all);
    const rewound = await says(session, '/rewind 3 conversation');
    expect(rewound).toContain('Rewound to before turn 3');
    const archived = Number(/Conversation: (\d+) messages archived/.exec(rewound)?.[1]);
    expect(archived).toBeGreaterThan(1);
    expect(texts(session)).not.toContain('step 2');
    await session.prompt('a new direction');
    const undone = await says(session, '/rewind undo');
    // as many messages come back as the rewind archived
    expect(undone).toMatch(
      new RegExp(`^Undid the last rewind: ${archived} messages back in the conversation, the context is now [\\d,]+ tokens\\. Files stay as they are now`),
    );
    // the rewound turns are back where they were, what came after the rewind stays after them
    const ids = session.messages().map((m) => m.id);
    expect(ids.slice(0, all.length)).toEqual(all);
    expect(texts(session).at(-2)).toBe('a new direction');
    expect(historyProblems(session.messages())).toEqual([]);
    expect(await says(session, '/rewind undo')).toContain('Nothing to undo');
    session.close();
    store.close();
  });

  it('a prompt given back (its request failed) left by a withdrawal, which /rewind undo does not take back', async () => {
    const { config, store } = setup();
    const provider = new ScriptedProvider((req) =>
      textOf(req.messages.at(-1)!) === 'this one fails'
        ? new ProviderError({ kind: 'bad_request', provider: 'anthropic', status: 400, message: 'refused' })
        : { text: 'answer.', usage: { inputTokens: inputOf(req) } },
    );
    const session = Session.open({ config, store, provider, tools: (lent) => createTools({ bash: config.bash }, lent), capabilities: [], counter });
    await session.prompt('step 0');
    expect((await session.prompt('this one fails', { giveBack: true })).reason).toBe('error');
    expect(texts(session)).not.toContain('this one fails');
    // mutation: the withdrawal counted as a rewind brings the failed prompt back
    expect(await says(session, '/rewind undo')).toContain('Nothing to undo');
    expect(texts(session)).not.toContain('this one fails');
    session.close();
    store.close();
  });

  it('/history finds what a rewind archived and opens it whole by id; an unknown id is refused', async () => {
    const { config, store } = setup();
    const { session } = open(config, store);
    for (let i = 0; i < 3; i++) await session.prompt(`walrus step ${i}`);
    await says(session, '/rewind 2 conversation');
    const found = await runSlash({ session }, '/history walrus step 2');
    if (found?.kind !== 'history') throw new Error('no page of results');
    const hit = found.result.hits[0]!;
    const opened = await says(session, `/history open ${hit.id}`);
    expect(opened.split('\n')[0]).toBe(`${hit.label} (${hit.id})`);
    expect(opened).toContain('walrus step');
    await expect(runSlash({ session }, '/history open no_such_id')).rejects.toThrow('nothing archived has the id no_such_id');
    session.close();
    store.close();
  });

  it('/history pages ten hits at a time and says when there are more', async () => {
    const { config, store } = setup();
    const { session } = open(config, store);
    for (let i = 0; i < 12; i++) await session.prompt(`walrus step ${i}`);
    await says(session, '/rewind 1 conversation');
    const page = async (n: number) => {
      const out = await runSlash({ session }, `/history walrus page ${n}`);
      if (out?.kind !== 'history') throw new Error(`no page ${n}`);
      return out.result;
    };
    const first = await page(1);
    expect([first.hits.length, first.pageSize, first.hasMore]).toEqual([10, 10, true]);
    const second = await page(2);
    expect([second.hits.length, second.hasMore]).toEqual([2, false]);
    // the two pages are the twelve archived prompts, each once
    const prompts = [...first.hits, ...second.hits].map((h) => h.id);
    expect(new Set(prompts).size).toBe(12);
    expect(await says(session, '/history walrus page 3')).toBe('No more results for "walrus".');
    session.close();
    store.close();
  });

  it('refuses an undo whose history the provider would refuse: a load repair made since does not fit what comes back', async () => {
    // the compaction kept a pinned note without its answer; once unpinned, a resume marks the note and the next prompt as two prompts in a row
    const store = openStore(':memory:');
    store.createSession({ id: 's', cwd: '/', provider: 'p', model: 'm' });
    const note = user('remember: always httpie', { pinned: true });
    for (const m of [note, assistant('noted'), user('two'), assistant('b'), user('three'), assistant('c')]) store.appendMessage('s', m, 3);
    const compaction = autoChange(store.loadVisible('s'), 1)!;
    store.applyCompaction('s', compaction);
    store.setPinned('s', note.id, false);
    const repair = repairHistory(store.loadVisible('s'))!;
    expect(repair.notes).toEqual(['1 unanswered prompt marked as such, so it is not merged into the next one']);
    store.rewriteVisible('s', repair);
    const current = store.loadVisible('s');
    const deps = { store, sessionId: 's', current, tokensWith: async () => 100, limits: { auto: 10_000, contextWindow: 20_000 } };
    const plan = await planFor(deps, uncompactTargets(store.compactionsInEffect('s')), undefined, undefined);
    // without the check the revert would put the marker right before the note's own answer: two assistant messages side by side
    expect(plan).toEqual({
      ok: false,
      message: expect.stringMatching(
        /^Undoing compaction 1 \(.+\) would leave a history the provider refuses \(messages 1 and 2 are both assistant messages\); nothing was changed/,
      ),
    });
    expect(store.loadVisible('s')).toStrictEqual(current);
    store.close();
  });

  it('answers usage errors and a busy session plainly', async () => {
    const { config, store } = setup();
    const { session } = open(config, store);
    expect(await says(session, '/uncompact')).toContain('Nothing to undo');
    await expect(runSlash({ session }, '/uncompact 1 oldest 3')).rejects.toThrow(/usage: \/uncompact/);
    for (let i = 0; i < 5; i++) await session.prompt(`turn ${i}`);
    expect((await session.compact()).status).toBe('applied');
    await expect(runSlash({ session }, '/uncompact 7')).rejects.toThrow(/no compaction "7" to undo/);
    session.close();
    store.close();
  });
});
