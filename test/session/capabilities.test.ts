import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Capability, CapabilityHost } from '../../src/capability/capability.js';
import { createTokenCounter } from '../../src/compaction/tokens.js';
import { loadConfig } from '../../src/config/config.js';
import { textOf, userMessage } from '../../src/llm/messages.js';
import { Capabilities } from '../../src/session/capabilities.js';
import { Session } from '../../src/session/session.js';
import { openStore } from '../../src/store/index.js';
import { createTools } from '../../src/tools/registry.js';
import { isSummaryRequest, ScriptedProvider, SUMMARY } from '../compaction/helpers.js';
import { readState, stateMeta } from '../../src/session/state.js';
import type { AnyTool } from '../../src/tools/types.js';
import { tempDir } from '../tempDirs.js';

// The session's side of the seam: capabilities opened in list order, their tools, tool sets,
// hooks and state slices composed. Mutations that fail it: a slice not restored from the saved
// meta (or saved under another key), the saved state dropped by readState, two tool sets
// combined into a new object each turn (the system prompt rebuilt, the cache's prefix at risk),
// a block from one beforeTool hook ignored because another allows, notes of two afterTool hooks
// not both kept.

const host: CapabilityHost = {
  sessionId: 's_1',
  resumed: false,
  subagents: () => {
    throw new Error('no sub-agents here');
  },
  turn: {
    history: () => [],
    allowTools: () => [],
    shell: async () => ({ refused: 'no commands here' }),
    notice: () => {},
    activity: () => {},
    permissionMode: () => 'ask',
    setPermissionMode: () => {},
    workLog: () => [],
    askPlan: async () => ({ kind: 'unanswered' }),
  },
};
const tool = (name: string): AnyTool => ({
  name,
  description: name,
  inputSchema: { type: 'object', properties: {} },
  kind: 'read',
  parse: (i) => i,
  summarize: () => '',
  run: async () => ({ content: '', isError: false }),
});

/** A capability that counts its turns in its state slice. */
function counting(): Capability {
  return {
    name: 'counting',
    open: () => {
      let turns = 0;
      return {
        hooks: { beforePrompt: async () => (turns++, { blocks: [] }) },
        state: {
          key: 'counting',
          restore: (saved) => {
            turns = typeof saved === 'number' ? saved : 0;
          },
          save: () => turns,
          ledger: () => ({ title: 'Turns', text: String(turns) }),
        },
      };
    },
  };
}

describe('the capabilities of a session', () => {
  it("save each slice under its key in the session's meta and restore it when the session opens again", async () => {
    const first = new Capabilities([counting()], host);
    const signal = new AbortController().signal;
    await first.beforePrompt('a', signal);
    await first.beforePrompt('b', signal);
    const meta = stateMeta({ ...readState({}, 's_1'), capabilities: first.state()! });
    expect(meta.capabilities).toEqual({ counting: 2 });
    const again = new Capabilities([counting()], host, readState(JSON.parse(JSON.stringify(meta)), 's_1').capabilities);
    await again.beforePrompt('c', signal);
    expect(again.state()).toEqual({ counting: 3 });
    expect(new Capabilities([], host).state()).toBeUndefined();
  });

  // mutations: ledgerSections() ignoring `ledger`, or ignoring state slices' ledger(), fails here
  it("give the working-state ledger their derived sections and each state slice's ledger() as a section", async () => {
    const derived = { id: 'names', title: 'Names', order: 55, share: 0.05, derive: () => [{ text: 'n1' }] };
    const caps = new Capabilities([counting(), { name: 'derived', open: () => ({ ledger: [derived] }) }], host);
    await caps.beforePrompt('a', new AbortController().signal);
    const sections = caps.ledgerSections();
    expect(sections.map((x) => x.title)).toEqual(['Names', 'Turns']);
    const input = { messages: [], kept: new Set<string>(), describe: () => '' };
    expect(sections.map((x) => x.derive(input))).toEqual([[{ text: 'n1' }], [{ text: '1' }]]);
    expect(new Capabilities([], host).ledgerSections()).toEqual([]);
  });

  it('join their tools in list order and hand back one combined tool set while nothing changed', () => {
    const a = { tools: [tool('A1')], system: '# A' };
    const b = { tools: [tool('B1')], system: '# B' };
    const caps = new Capabilities(
      [
        { name: 'fixed', open: () => ({ tools: [tool('F1'), tool('F2')] }) },
        { name: 'a', open: () => ({ toolSet: () => a }) },
        { name: 'b', open: () => ({ toolSet: () => b }) },
      ],
      host,
    );
    expect(caps.tools().map((t) => t.name)).toEqual(['F1', 'F2']);
    const set = caps.toolSet()!;
    expect(set.tools.map((t) => t.name)).toEqual(['A1', 'B1']);
    expect(set.system).toBe('# A\n\n# B');
    expect(caps.toolSet()).toBe(set);
    // one capability's set is passed through as it is
    expect(new Capabilities([{ name: 'a', open: () => ({ toolSet: () => a }) }], host).toolSet()).toBe(a);
  });

  it('compose hooks: a block wins over an allow, notes are joined, the first Stop reason goes on', async () => {
    const signal = new AbortController().signal;
    const call = { name: 'Bash', input: {}, toolUseId: 't1' };
    const caps = new Capabilities(
      [
        { name: 'allow', open: () => ({ hooks: { beforeTool: async () => ({ allow: true }), afterTool: async () => 'note 1' } }) },
        { name: 'block', open: () => ({ hooks: { beforeTool: async () => ({ block: 'no' }), afterTool: async () => 'note 2', onStop: async () => 'go on' } }) },
      ],
      host,
    );
    const hooks = caps.loopHooks()!;
    expect(await hooks.beforeTool(call, signal)).toEqual({ block: 'no' });
    expect(await hooks.afterTool(call, { content: '', isError: false }, signal)).toBe('note 1\nnote 2');
    expect(await hooks.onStop('done', 0, signal)).toBe('go on');
    expect(new Capabilities([], host).loopHooks()).toBeUndefined();
  });

  it("give the gate one beforeChange that waits for each capability's (one is enough), none without any", async () => {
    const done: string[] = [];
    const snapshot = (name: string) => ({
      name,
      open: () => ({ hooks: { beforeChange: async () => void (await new Promise((r) => setImmediate(r)), done.push(name)) } }),
    });
    const one = new Capabilities([snapshot('checkpoints')], host).gateOption();
    await one.beforeChange?.();
    expect(done).toEqual(['checkpoints']);
    await new Capabilities([snapshot('a'), { name: 'plain', open: () => ({}) }, snapshot('b')], host).gateOption().beforeChange?.();
    expect(done).toEqual(['checkpoints', 'a', 'b']);
    expect(new Capabilities([{ name: 'plain', open: () => ({}) }], host).gateOption()).toEqual({});
  });
});

/** What a real session over a store of its own needs besides its provider and capabilities. */
async function sessionParts() {
  const dir = tempDir('agent-caps-');
  const config = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: 'claude-sonnet-4-5' } });
  return { counter: await createTokenCounter(), config, store: openStore(config.dbPath) };
}

// The seam's prompt section, turn-start hook and reattach, through a real session. Mutations that
// fail it: the turn's frame leaving out the capabilities' section (or putting it after the tool
// sets'), startTurn not rebuilding the system prompt when a turnStart hook says it changed (or
// rebuilding inside a tool loop), the reattach message not appended after a compaction (or
// appended after a micro one, or after the compaction's announcement).
describe('a capability in a session', () => {
  it('puts its section in the system prompt, rebuilds it when turnStart says it changed, and reattaches what a compaction lost', async () => {
    const { counter, config, store } = await sessionParts();
    let version = 1;
    const seen: Array<{ before: number; after: number }> = [];
    const cap: Capability = {
      name: 'versioned',
      open: () => ({
        systemSection: (tools) => `\n\nSection v${version} (${tools.length > 0 ? 'with tools' : 'no tools'})`,
        hooks: {
          turnStart: async () => version === 2,
          reattach: (before, after) => {
            seen.push({ before: before.length, after: after.length });
            return { ...userMessage('Reattached after compaction.'), kind: 'meta' };
          },
        },
      }),
    };
    const long = 'A long answer about the code base with many details worth summarizing later on. '.repeat(40);
    const provider = new ScriptedProvider((req) =>
      isSummaryRequest(req)
        ? { text: SUMMARY }
        : {
            text: `answer. ${long}`,
            usage: { inputTokens: counter.countText(req.system) + counter.countToolSpecs(req.tools) + counter.countMessages(req.messages) },
          },
    );
    const session = Session.open({ config, store, provider, tools: (lent) => createTools({ bash: config.bash }, lent), capabilities: [cap], counter });
    const events: string[] = [];
    session.on((e) => {
      if (e.type === 'compaction_end') events.push(`compaction_end after ${session.messages().length} messages`);
    });
    await session.prompt('one');
    expect(provider.requests.at(-1)!.system).toMatch(/\n\nSection v1 \(with tools\)$/);
    version = 2;
    await session.prompt('two');
    expect(provider.requests.at(-1)!.system).toMatch(/\n\nSection v2 \(with tools\)$/);
    for (let i = 0; i < 4; i++) await session.prompt(`task ${i}`);
    // changed without turnStart saying so: a compaction rebuilds the system prompt all the same
    version = 3;
    const record = await session.compact();
    expect(record.reason ?? record.status).toBe('applied');
    expect(seen).toHaveLength(1);
    const last = session.messages().at(-1)!;
    expect(textOf(last)).toBe('Reattached after compaction.');
    // appended before compaction_end: the announcement already counts it
    expect(events).toEqual([`compaction_end after ${session.messages().length} messages`]);
    await session.prompt('after');
    expect(provider.requests.at(-1)!.system).toMatch(/\n\nSection v3 \(with tools\)$/);
    session.close();
    store.close();
  });
});

describe("a turn's boundaries", () => {
  it("the hook before a turn ends before its first request and the hook after it before prompt() resolves, both with the person's message id; a refused prompt has none", async () => {
    const { counter, config, store } = await sessionParts();
    const log: string[] = [];
    const cap: Capability = {
      name: 'boundaries',
      open: () => ({
        hooks: {
          // each edge waits for the event loop's next turn, as a checkpoint's snapshot (a git process) does
          turnBoundary: async (edge, turnId) => {
            await new Promise((r) => setImmediate(r));
            log.push(`${edge} ${turnId}`);
          },
          beforePrompt: async (prompt) => (prompt === 'refuse me' ? { block: 'not this one', blocks: [] } : { blocks: [] }),
        },
      }),
    };
    const provider = new ScriptedProvider(() => (log.push('request'), { text: 'ok' }));
    const session = Session.open({ config, store, provider, tools: () => [], capabilities: [cap], counter });
    expect((await session.prompt('refuse me')).reason).toBe('blocked');
    expect(log).toEqual([]);
    await session.prompt('one');
    const id = session.messages().find((m) => m.role === 'user' && textOf(m) === 'one')!.id;
    expect(log).toEqual([`before ${id}`, 'request', `after ${id}`]);
    session.close();
    store.close();
  });
});
