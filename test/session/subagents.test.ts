import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AgentCatalog } from '../../src/agents/agents.js';
import { queuedChild, type ChildState } from '../../src/agents/childState.js';
import type { ChildOutcome, ChildRequest } from '../../src/agents/host.js';
import { Subagents } from '../../src/session/children.js';
import { createTokenCounter, type TokenCounter } from '../../src/compaction/tokens.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import { createProvider } from '../../src/llm/factory.js';
import { Session } from '../../src/session/session.js';
import type { SessionEvent } from '../../src/protocol/events.js';
import { openStore, type Store } from '../../src/store/index.js';
import type { ApprovalRequest, Approver } from '../../src/tools/permissions.js';
import { subagentCapability } from '../../src/agents/capability.js';
import { createTools } from '../../src/tools/registry.js';
import { until, within } from '../support/deadline.js';
import { startFakeServer, type FakeServer } from '../fake-server/server.js';
import { tempDir } from '../tempDirs.js';

// Sub-agents at the session, over the real Anthropic SDK against the fake server: cancelling
// a parent cancels every child cleanly, children's approvals reach the person one at a time
// labelled with the child, and a child over its limits comes back as an error result.

let counter: TokenCounter;
let server: FakeServer;
beforeAll(async () => {
  counter = await createTokenCounter();
  server = await startFakeServer();
});
afterAll(async () => server.close());
beforeEach(() => {
  server.clear();
  server.respondWith(undefined);
});

function setup(rc: Record<string, unknown> = {}): { config: Config; dir: string; store: Store } {
  const dir = tempDir('agent-sub-');
  writeFileSync(join(dir, '.agentrc'), JSON.stringify(rc));
  const config = loadConfig({
    cwd: dir,
    home: dir,
    env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') },
    flags: { model: 'claude-sonnet-4-5', baseURL: server.url },
  });
  return { config, dir, store: openStore(config.dbPath) };
}

function open(config: Config, store: Store, approver?: Approver, agents = new AgentCatalog([])): { session: Session; events: SessionEvent[] } {
  const provider = createProvider({ provider: 'anthropic', apiKey: 'k', baseURL: server.url });
  const session = Session.open({
    config,
    store,
    provider,
    tools: (lent) => createTools({ bash: config.bash }, lent),
    capabilities: [subagentCapability(agents)],
    counter,
    ...(approver ? { approver } : {}),
  });
  const events: SessionEvent[] = [];
  session.on((e) => events.push(e));
  return { session, events };
}

const task = (description: string, prompt: string): string => `@task ${JSON.stringify({ description, prompt })}`;
const childStates = (events: SessionEvent[]): Map<string, ChildState> => {
  const m = new Map<string, ChildState>();
  for (const e of events) if (e.type === 'child') m.set(e.state.toolUseId, e.state);
  return m;
};

describe('sub-agents in a session', () => {
  it('interrupting the parent cancels all three running children; each ends as an error result and the session goes on', async () => {
    const { config, store } = setup();
    // every child's model call stalls mid-reply until the client gives up
    server.respondWith((req) => (req.view.toolNames.includes('Task') ? undefined : { text: 'working on it', cut: { afterFrames: 3, how: 'stall' } }));
    const { session, events } = open(config, store);
    const turn = session.prompt(['a', 'b', 'c'].map((n) => task(`task ${n}`, `@read ${n}.txt`)).join('\n'));
    // issue 30: a wait for what never comes, or a cancellation that never takes, fails fast with an assertion
    await until(
      () => [...childStates(events).values()].filter((s) => s.status === 'running').length === 3 && server.requests.length >= 4,
      'three running children',
    );
    session.interrupt();
    const result = await within(turn, 'the interrupted turn to end');
    expect(result.reason).toBe('aborted');
    const states = [...childStates(events).values()];
    expect(states.map((s) => s.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    const ends = events.flatMap((e) => (e.type === 'tool_end' && e.name === 'Task' ? [e] : []));
    expect(ends.map((e) => e.status)).toEqual(['interrupted', 'interrupted', 'interrupted']);
    // stored as children of this session, each with its prompt; the three run side by side and each is
    // stored at its first message, so their order is the order those came (b before a in a loaded run)
    expect(
      store
        .childSessions(session.id)
        .map((c) => c.title)
        .sort(),
    ).toEqual(['explore: task a', 'explore: task b', 'explore: task c']);
    // the session takes the next prompt
    server.respondWith(undefined);
    expect((await session.prompt('@report still here')).text).toBe('still here');
    session.close();
    store.close();
  });

  it("asks the person for children's Bash calls one at a time, each labelled with its child", async () => {
    const { config, store } = setup();
    const asked: ApprovalRequest[] = [];
    let open_ = 0;
    let most = 0;
    const approver: Approver = async (req) => {
      asked.push(req);
      most = Math.max(most, ++open_);
      await new Promise((r) => setTimeout(r, 30));
      open_--;
      return { kind: 'allow_once' };
    };
    const { session } = open(config, store, approver);
    const r = await session.prompt(`${task('first', '@bash echo one-1\n@report r1')}\n${task('second', '@bash echo two-2\n@report r2')}\n@report both`);
    expect(r.text).toBe('both');
    expect(asked.map((a) => a.agent).sort()).toEqual(['explore: first', 'explore: second']);
    expect(asked.map((a) => a.toolName)).toEqual(['Bash', 'Bash']);
    expect(most).toBe(1);
    session.close();
    store.close();
  });

  it('stops a child at its step limit and gives the parent an error result naming the limit', async () => {
    const { config, store } = setup({ agents: { maxSteps: 2 } });
    const { session } = open(config, store);
    const r = await session.prompt(`${task('long', '@glob *.txt\n@then\n@glob *.md\n@then\n@glob *.ts\n@report never')}\n@report parent ok`);
    expect(r.text).toBe('parent ok');
    const last = server.requests.filter((q) => q.view?.toolNames.includes('Task')).at(-1)!;
    const result = last.view!.messages.at(-1)!.blocks.find((b) => b.type === 'tool_result');
    expect(result).toMatchObject({ isError: true });
    expect(JSON.stringify(result)).toMatch(/did not finish \(a limit\).*2 model calls/);
    session.close();
    store.close();
  });

  it("an agent file's own maxSteps wins over agents.maxSteps", async () => {
    // agents.maxSteps 2 would stop this three-call child; its file allows 3 (kills the mutant that
    // prefers agents.maxSteps, or ignores the file's)
    const { config, store } = setup({ agents: { maxSteps: 2 } });
    const stepper = { name: 'stepper', description: 'd', prompt: 'Work.', maxSteps: 3, source: 'project' as const };
    const { session } = open(config, store, undefined, new AgentCatalog([stepper]));
    const call = `@task ${JSON.stringify({ description: 'three', prompt: '@glob *.txt\n@then\n@glob *.md\n@then\n@report STEPPER-DONE', agent: 'stepper' })}`;
    const r = await session.prompt(`${call}\n@report parent ok`);
    expect(r.text).toBe('parent ok');
    const last = server.requests.filter((q) => q.view?.toolNames.includes('Task')).at(-1)!;
    const result = last.view!.messages.at(-1)!.blocks.find((b) => b.type === 'tool_result');
    expect(JSON.stringify(result)).toContain('STEPPER-DONE');
    expect(result).toMatchObject({ isError: false });
    session.close();
    store.close();
  });

  it('nests to agents.maxDepth: a child may start a grandchild at depth 2, and the grandchild gets no Task tool', async () => {
    const { config, store } = setup({ agents: { maxDepth: 2 } });
    const { session } = open(config, store);
    const grandchild = task('deepest', '@glob *.none\n@report GRAND-REPORT');
    const r = await session.prompt(`${task('middle', `${grandchild}\n@report MIDDLE-REPORT`)}\n@report TOP`);
    expect(r.text).toBe('TOP');
    const tools = server.requests.map((q) => q.view!.toolNames.includes('Task'));
    // parent, child (with Task), grandchild (without), grandchild, child, parent
    expect(tools).toEqual([true, true, false, false, true, true]);
    const middle = store.childSessions(session.id);
    expect(middle.map((c) => c.title)).toEqual(['explore: middle']);
    expect(store.childSessions(middle[0]!.id).map((c) => c.title)).toEqual(['explore: deepest']);
    const childResult = JSON.stringify(server.requests[4]!.view!.messages.at(-1));
    expect(childResult).toContain('GRAND-REPORT');
    session.close();
    store.close();
  });

  it("children of one agent share a prompt cache key (OpenAI routes by it), apart from the parent's", async () => {
    const dir = tempDir('agent-sub-');
    writeFileSync(join(dir, '.agentrc'), JSON.stringify({ cache: { promptCacheKey: true } }));
    const config = loadConfig({
      cwd: dir,
      home: dir,
      env: { OPENAI_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') },
      flags: { model: 'gpt-4o', baseURL: server.openaiBaseURL },
    });
    const store = openStore(config.dbPath);
    const agents = new AgentCatalog([]);
    const provider = createProvider({ provider: 'openai', apiKey: 'k', baseURL: server.openaiBaseURL, cache: config.cache });
    const session = Session.open({
      config,
      store,
      provider,
      tools: (lent) => createTools({ bash: config.bash }, lent),
      capabilities: [subagentCapability(agents)],
      counter,
    });
    const r = await session.prompt(`${task('one', '@report a')}\n${task('two', '@report b')}\n@report done`);
    expect(r.text).toBe('done');
    const keyOf = (q: (typeof server.requests)[number]): unknown => (q.body as Record<string, unknown>)['prompt_cache_key'];
    const parentKeys = new Set(server.requests.filter((q) => q.view?.toolNames.includes('Task')).map(keyOf));
    const childKeys = new Set(server.requests.filter((q) => q.view && !q.view.toolNames.includes('Task')).map(keyOf));
    expect(parentKeys).toEqual(new Set([session.id]));
    expect(childKeys).toEqual(new Set([`${session.id}:explore`]));
    session.close();
    store.close();
  });

  it('keeps an answer for the session given in a child’s prompt: another child and the parent do not ask again', async () => {
    const { config, store } = setup();
    const asked: ApprovalRequest[] = [];
    const approver: Approver = async (req) => {
      asked.push(req);
      return req.suggestedPrefix ? { kind: 'allow_prefix', prefix: req.suggestedPrefix } : { kind: 'allow_once' };
    };
    const { session } = open(config, store, approver);
    const r = await session.prompt(
      `${task('first', '@bash echo one-1\n@report r1')}\n${task('second', '@bash echo two-2\n@report r2')}\n@then\n@bash echo three-3\n@report all`,
    );
    expect(r.text).toBe('all');
    expect(asked.map((a) => a.summary)).toHaveLength(1);
    expect(asked[0]!.suggestedPrefix).toBe('echo');
    expect(session.permissions().rules).toContainEqual({ source: 'session', rule: expect.stringContaining('echo') });
    const outputs = server.requests.flatMap((q) => q.view!.messages.at(-1)!.blocks.flatMap((b) => (b.type === 'tool_result' ? [b.content] : [])));
    for (const word of ['one-1', 'two-2', 'three-3']) expect(outputs.some((o) => o.includes(word))).toBe(true);
    session.close();
    store.close();
  });

  it('runs at most agents.parallel children at once; the others wait for a slot', async () => {
    const { config, store } = setup({ agents: { parallel: 2 } });
    const { session, events } = open(config, store);
    const r = await session.prompt(`${['a', 'b', 'c'].map((n) => task(`t${n}`, `@slow 20\n@glob *.${n}\n@report ${n}`)).join('\n')}\n@report done`);
    expect(r.text).toBe('done');
    let running = 0;
    let most = 0;
    const seen = new Map<string, string>();
    for (const e of events) {
      if (e.type !== 'child') continue;
      const before = seen.get(e.state.toolUseId);
      if (before === e.state.status) continue;
      seen.set(e.state.toolUseId, e.state.status);
      if (e.state.status === 'running') most = Math.max(most, ++running);
      else if (before === 'running') running--;
    }
    expect(most).toBe(2);
    // the third started only once one of the first two had finished
    const at = (pred: (st: { status: string; description: string }) => boolean): number => events.findIndex((e) => e.type === 'child' && pred(e.state));
    expect(at((st) => st.status === 'running' && st.description === 'tc')).toBeGreaterThan(at((st) => st.status === 'done'));
    expect([...seen.values()]).toEqual(['done', 'done', 'done']);
    // issue 30: only the child that waited was ever reported as waiting (the live row said "waiting
    // for a slot" for every child first); reporting the queued state unconditionally fails this
    const queued = events.flatMap((e) => (e.type === 'child' && e.state.status === 'queued' ? [e.state.description] : []));
    expect(queued).toEqual(['tc']);
    session.close();
    store.close();
  });
});

describe("a child's report (a forked skill's result)", () => {
  it("is the child's outcome as its tool result, once the child has ended", async () => {
    const agent = { name: 'general', description: 'general', prompt: '' } as unknown as ChildRequest['agent'];
    const state: ChildState = { ...queuedChild('t1', agent, 'skill deploy', 0), status: 'done', sessionId: 's_child' };
    class Ended extends Subagents {
      override async run(): Promise<ChildOutcome> {
        await new Promise((r) => setImmediate(r));
        return { ok: true, report: ' Deployed. ', state };
      }
    }
    const subagents = new Ended({ config: () => ({ agents: { reportChars: 1_000 } }) } as unknown as ConstructorParameters<typeof Subagents>[0]);
    const out = await subagents.report({ agent, description: 'skill deploy', prompt: 'deploy', toolUseId: 't1' }, new AbortController().signal);
    expect(out.isError).toBe(false);
    expect(out.content).toMatch(/^Deployed\.\n\n\[general agent · child session s_child · 0 tool calls · 0 tokens\./);
  });
});
