import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTokenCounter, type TokenCounter } from '../../src/compaction/tokens.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import type { ModelRequest } from '../../src/llm/provider.js';
import { Session } from '../../src/session/session.js';
import type { SessionEvent } from '../../src/protocol/events.js';
import { openStore, type Store } from '../../src/store/index.js';
import { createTools } from '../../src/tools/registry.js';
import { ScriptedProvider, SUMMARY } from '../compaction/helpers.js';
import { runSlash } from '../../src/commands/registry.js';
import { contextView } from '../../src/commands/views.js';
import { messagesToItems } from '../../src/ui/transcript.js';
import { tempDir } from '../tempDirs.js';

// Issue #14 at the session: /context and the gauge agree, and what the TUI conventions store.

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter();
});

function setup(): { config: Config; dir: string; store: Store } {
  const dir = tempDir('agent-daily-');
  const config = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: 'claude-sonnet-4-5' } });
  return { config, dir, store: openStore(config.dbPath) };
}

function open(config: Config, store: Store, provider: ScriptedProvider): { session: Session; events: SessionEvent[] } {
  const session = Session.open({ config, store, provider, tools: (lent) => createTools({ bash: config.bash }, lent), capabilities: [], counter });
  const events: SessionEvent[] = [];
  session.on((e) => events.push(e));
  return { session, events };
}

const inputOf = (req: ModelRequest): number => counter.countText(req.system) + counter.countToolSpecs(req.tools) + counter.countMessages(req.messages);

describe('/context and the gauge', () => {
  it('show the same calibrated count: the breakdown adds up to the gauge tokens', async () => {
    const { config, store } = setup();
    // the provider counts 40% more than our tokenizer: the gauge follows the provider
    const provider = new ScriptedProvider((req) => ({ text: 'an answer with a few words in it', usage: { inputTokens: Math.round(inputOf(req) * 1.4) } }));
    const { session } = open(config, store, provider);
    for (let i = 0; i < 3; i++) await session.prompt(`question number ${i} about the code`);
    const usage = session.contextUsage();
    const out = await contextView(session);
    if (out.kind !== 'context') throw new Error('not a breakdown');
    const sum = out.rows.reduce((s, r) => s + r.tokens, 0);
    expect(sum).toBe(usage.tokens);
    expect(out.effectiveWindow).toBe(usage.effectiveWindow);
    session.close();
    store.close();
  });
});

describe('! shell mode', () => {
  it('runs the command without a model call or approval, shows it as a row and keeps a note the model reads next turn', async () => {
    const { config, dir, store } = setup();
    const provider = new ScriptedProvider(() => ({ text: 'I see the file list.' }));
    const { session, events } = open(config, store, provider);
    await session.shell('echo shell-output-42 && exit 3');
    expect(provider.requests).toHaveLength(0);
    const start = events.find((e) => e.type === 'tool_start');
    const end = events.find((e) => e.type === 'tool_end');
    expect(start).toMatchObject({ name: 'Shell', summary: 'echo shell-output-42 && exit 3' });
    expect(end).toMatchObject({ status: 'error' });
    await session.prompt('what did it print?');
    const sent = JSON.stringify(provider.requests[0]!.messages);
    expect(sent).toContain('shell-output-42');
    expect(sent).toContain('$ echo shell-output-42');
    session.close();
    // stored: a resumed session has the note, and the transcript shows it as a Shell row
    const info = store.getSession(session.id)!;
    expect(info.title).toBe('$ echo shell-output-42 && exit 3');
    const again = Session.open({ config, store, provider, tools: (lent) => createTools({ bash: config.bash }, lent), capabilities: [], counter }, info);
    const items = messagesToItems(again.messages());
    expect(items[0]).toMatchObject({ kind: 'tool', name: 'Shell', summary: 'echo shell-output-42 && exit 3', status: 'error' });
    expect((items[0] as { output: string }).output).toContain('shell-output-42');
    expect(dir).toBeTruthy();
    store.close();
  });
});

describe('@ mentions in a prompt', () => {
  it('attach the file to the message the model gets; the transcript shows the prompt and an attached line', async () => {
    const { config, dir, store } = setup();
    writeFileSync(join(dir, 'notes.md'), 'the launch code is 0000\n');
    const provider = new ScriptedProvider(() => ({ text: 'Read it.' }));
    const { session, events } = open(config, store, provider);
    await session.prompt('summarize @notes.md please');
    const sent = JSON.stringify(provider.requests[0]!.messages);
    expect(sent).toContain('the launch code is 0000');
    const user = events.find((e) => e.type === 'message' && e.message.role === 'user');
    const items = messagesToItems(user && user.type === 'message' ? [user.message] : []);
    expect(items).toEqual([expect.objectContaining({ kind: 'user', text: 'summarize @notes.md please', attachments: ['notes.md: read with FileRead'] })]);
    session.close();
    store.close();
  });
});

describe('instructions, /memory and /init', () => {
  it('keeps the instruction files in the system prompt after a compaction; /memory lists them; /init asks the model to write AGENTS.md', async () => {
    const { config, dir, store } = setup();
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, 'CLAUDE.md'), 'Always answer with the word walrus somewhere.\n');
    const long = 'A long answer about the code base with many details worth summarizing later on. '.repeat(40);
    const provider = new ScriptedProvider((req) =>
      req.system.includes('context checkpoints') ? { text: SUMMARY } : { text: `answer. ${long}`, usage: { inputTokens: inputOf(req) } },
    );
    const { session } = open(config, store, provider);
    for (let i = 0; i < 5; i++) await session.prompt(`task ${i}`);
    const record = await session.compact();
    expect(record.status).toBe('applied');
    await session.prompt('after the compaction');
    expect(provider.requests.at(-1)!.system).toContain('Always answer with the word walrus somewhere.');
    const memory = await runSlash({ session }, '/memory');
    expect(memory).toMatchObject({ kind: 'text' });
    expect((memory as { text: string }).text).toContain(join(dir, 'CLAUDE.md'));
    await runSlash({ session }, '/init');
    const last = provider.requests.at(-1)!;
    expect(JSON.stringify(last.messages.at(-1))).toContain(`write an AGENTS.md at ${join(dir, 'AGENTS.md')}`);
    session.close();
    store.close();
  });
});

describe('/model', () => {
  it('without a name offers the known models with window and price, the .agentrc ones first', async () => {
    const { config, store } = setup();
    const cfg: Config = { ...config, userModels: { 'qwen-local': { contextWindow: 32_768, maxOutputTokens: 4_096, provider: 'openai' } } };
    const { session } = open(cfg, store, new ScriptedProvider(() => ({ text: 'ok' })));
    const out = await runSlash({ session }, '/model');
    if (out?.kind !== 'models') throw new Error(`not a model list: ${JSON.stringify(out)}`);
    expect(out.current).toBe('claude-sonnet-4-5');
    expect(out.models[0]).toMatchObject({ name: 'qwen-local', source: 'config', contextWindow: 32_768 });
    expect(out.models.find((m) => m.name === 'claude-sonnet-4-5')).toMatchObject({ contextWindow: 200_000, inputUsdPerM: 3, outputUsdPerM: 15 });
    store.close();
  });

  it('refuses an unknown name with suggestions instead of switching; a custom base URL may name its own models', async () => {
    const { config, store } = setup();
    const { session } = open(config, store, new ScriptedProvider(() => ({ text: 'ok' })));
    await expect(runSlash({ session }, '/model claude-sonet-4-5')).rejects.toThrow(/unknown model "claude-sonet-4-5" — did you mean claude-sonnet-4-5/);
    await expect(runSlash({ session }, '/model sonnet')).rejects.toThrow(/did you mean claude-sonnet/);
    expect(session.view().model).toBe('claude-sonnet-4-5');
    const local = open({ ...config, baseURL: 'http://localhost:11434/v1' }, store, new ScriptedProvider(() => ({ text: 'ok' }))).session;
    await expect(runSlash({ session: local }, '/model claude-local-thing')).resolves.toMatchObject({ kind: 'text' });
    store.close();
  });
});

describe('/pin list and /unpin', () => {
  it('lists the pins and unpins one, in memory and in the store', async () => {
    const { config, store } = setup();
    const { session } = open(config, store, new ScriptedProvider(() => ({ text: 'ok' })));
    await session.prompt('hello');
    await runSlash({ session }, '/pin always use tabs');
    await runSlash({ session }, '/pin run the linter before committing');
    const list = await runSlash({ session }, '/pin list');
    expect((list as { text: string }).text).toMatch(/1\. always use tabs\n {2}2\. run the linter before committing/);
    const un = await runSlash({ session }, '/unpin 1');
    expect((un as { text: string }).text).toBe('Unpinned: always use tabs');
    expect(session.pins().map((p) => p.text)).toEqual(['run the linter before committing']);
    await expect(runSlash({ session }, '/unpin 5')).rejects.toThrow(/there is no pin 5/);
    session.close();
    const again = Session.open(
      {
        config,
        store,
        provider: new ScriptedProvider(() => ({ text: 'ok' })),
        tools: (lent) => createTools({ bash: config.bash }, lent),
        capabilities: [],
        counter,
      },
      store.getSession(session.id)!,
    );
    expect(again.pins().map((p) => p.text)).toEqual(['run the linter before committing']);
    store.close();
  });
});
