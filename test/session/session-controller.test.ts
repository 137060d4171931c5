import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApprovalBridge } from '../../src/approvalBridge.js';
import { createRuntime, type Runtime } from '../../src/bootstrap.js';
import { runSlash } from '../../src/commands/registry.js';
import { bareRecord } from '../../src/compaction/outcome.js';
import { TREE_NOTE } from '../../src/commands/rewind.js';
import { parseGoalArgs } from '../../src/goals/goal.js';
import { enableDebugLog } from '../../src/log.js';
import type { Event } from '../../src/protocol/events.js';
import { inWorld, processWorld } from '../../src/runtime/world.js';
import { SessionController } from '../../src/sessionController.js';
import type { Session } from '../../src/session/session.js';
import type { ApprovalDecision } from '../../src/tools/permissions.js';
import { startFakeServer, type FakeServer } from '../fake-server/server.js';
import { fakeProviderEnv } from '../llm/helpers.js';
import { tempDir } from '../tempDirs.js';

// The TUI's controller (sessionController.ts) over a real runtime, as `agent` builds it
// (createRuntime: the store, the capabilities, a real session) against the fake provider, with
// the events the app would render recorded: what runs at once and what waits for the turn, the
// queue, the sessions it switches between, and its exit. The Ink app itself is test/ui's.

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer({ fallback: { text: 'The fake model answers.' } });
});
afterAll(() => server.close());

interface Driven {
  c: SessionController;
  events: Event[];
  /** Resolves with the first event `pick` accepts (already recorded, or the next), never by time. */
  next<T extends Event>(pick: (e: Event) => e is T): Promise<T>;
  next(pick: (e: Event) => boolean): Promise<Event>;
  texts(): string[];
  inWorld<T>(fn: () => T): T;
  runtime: Runtime;
  approvals: ApprovalBridge;
  dir: string;
  home: string;
}

/** A runtime in a fresh project and home, its controller, and the events it sends the app. */
async function drive(
  opts: { subscribe?: boolean; model?: string; mcpServers?: Record<string, unknown>; ownMcpServers?: Record<string, unknown> } = {},
): Promise<Driven> {
  const home = tempDir('agent-controller-');
  const dir = join(home, 'project');
  mkdirSync(join(dir, '.claude', 'skills', 'deploy'), { recursive: true });
  writeFileSync(join(dir, '.claude', 'skills', 'deploy', 'SKILL.md'), '---\nname: deploy\ndescription: Deploys the app\n---\nDeploy it.\n');
  if (opts.mcpServers) writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: opts.mcpServers }));
  // the person's own servers (their ~/.agentrc) start without asking
  if (opts.ownMcpServers) writeFileSync(join(home, '.agentrc'), JSON.stringify({ mcpServers: opts.ownMcpServers }));
  const env: NodeJS.ProcessEnv = { ...fakeProviderEnv(home, server.anthropicBaseURL), EDITOR_SETTING: 'vim' };
  const world = { ...processWorld(), cwd: dir, env, slots: new Map<symbol, unknown>() };
  const approvals = new ApprovalBridge();
  const { runtime } = await inWorld(world, () =>
    createRuntime(
      { outputFormat: 'text', model: opts.model ?? 'claude-sonnet-4-5' },
      { approver: approvals.approver, onProviderWarning: approvals.onProviderWarning },
      env,
    ),
  );
  const c = inWorld(world, () => new SessionController(runtime, approvals));
  const events: Event[] = [];
  const waiters: Array<{ pick: (e: Event) => boolean; resolve: (e: Event) => void }> = [];
  const record = (e: Event) => {
    events.push(e);
    for (const w of waiters.splice(0))
      if (w.pick(e)) w.resolve(e);
      else waiters.push(w);
  };
  if (opts.subscribe !== false) c.subscribe(record);
  const next = (pick: (e: Event) => boolean): Promise<Event> => {
    const had = events.find(pick);
    return had ? Promise.resolve(had) : new Promise((resolve) => waiters.push({ pick, resolve }));
  };
  const texts = () => events.flatMap((e) => (e.type === 'notice' ? [`${e.level}: ${e.text}`] : []));
  return { c, events, next: next as Driven['next'], texts, inWorld: (fn) => inWorld(world, fn), runtime, approvals, dir, home };
}

const isType =
  <K extends Event['type']>(type: K) =>
  (e: Event): e is Extract<Event, { type: K }> =>
    e.type === type;
const idle = (e: Event) => e.type === 'busy' && !e.busy;

/** A turn that writes `path` through a Write call the person allows once, waited for to its end. */
async function approvedWrite(d: Driven, path: string, content: string): Promise<void> {
  d.c.submit(`@call Write ${JSON.stringify({ path, content })}\n@report Wrote it.`);
  (await d.next(isType('approval'))).respond({ kind: 'allow_once' } as ApprovalDecision);
  await d.next(idle);
}

describe('the TUI controller over a real session', () => {
  it('a prompt is a turn: busy, the reply, idle; the prompt joins the history', async () => {
    const d = await drive();
    d.c.submit('  say hello  ');
    await d.next(idle);
    expect(d.events.filter((e) => e.type === 'busy').map((e) => e.type === 'busy' && e.busy)).toEqual([true, false]);
    expect(d.c.initialTranscript().flatMap((m) => (m.kind === 'normal' ? [m.role] : []))).toEqual(['user', 'assistant']);
    expect(JSON.stringify(d.c.initialTranscript().at(-1))).toContain('The fake model answers.');
    expect(d.c.promptHistory()).toContain('say hello');
    d.c.submit('   ');
    expect(d.c.promptHistory()).not.toContain('');
    await d.c.exit();
  });

  it('events sent before the app subscribed wait for it; a follower sees only what comes after it', async () => {
    const d = await drive({ subscribe: false });
    d.c.notify('warning', 'an early warning');
    const got: Event[] = [];
    d.c.subscribe((e) => got.push(e));
    const seen: Event[] = [];
    const unobserve = d.c.observe((e) => seen.push(e));
    expect(got).toEqual([expect.objectContaining({ type: 'notice', text: 'an early warning' })]);
    d.c.showStatusCommand('main · 3 files');
    expect(got.at(-1)).toEqual({ type: 'status_command', line: 'main · 3 files' });
    expect(seen).toEqual([{ type: 'status_command', line: 'main · 3 files' }]);
    unobserve();
    d.c.notify('info', 'after the follower left');
    expect(seen).toHaveLength(1);
    expect(got.at(-1)).toMatchObject({ type: 'notice', text: 'after the follower left' });
    // the early events went to the first subscriber only
    const late: Event[] = [];
    d.c.subscribe((e) => late.push(e));
    expect(late).toEqual([]);
    await d.c.exit();
  });

  it('while a turn waits on an approval, /skills answers at once; a prompt waits its turn, and Esc drops it', async () => {
    const d = await drive();
    d.c.submit('@bash echo from-the-turn\n@report Ran it.');
    const approval = await d.next(isType('approval'));
    expect(d.events.filter((e) => e.type === 'busy').map((e) => e.type === 'busy' && e.busy)).toEqual([true]);
    d.c.submit('/skills');
    const listed = await d.next(isType('command_output'));
    expect(listed.command).toBe('/skills');
    expect(JSON.stringify(listed.output)).toContain('deploy');
    // a prompt typed now waits for the turn; Esc drops it and says so
    d.c.submit('and then this');
    expect(d.c.interrupt()).toBe(true);
    await d.next(idle);
    expect(d.texts()).toContain('info: Dropped 1 queued prompt.');
    expect(server.requests.filter((r) => r.raw?.includes('and then this'))).toEqual([]);
    approval.respond({ kind: 'deny' } as ApprovalDecision);
    await d.c.exit();
  });

  it('prompts typed during a turn run after it, in order', async () => {
    const d = await drive();
    d.c.submit('@bash echo one\n@report First done.');
    const approval = await d.next(isType('approval'));
    d.c.submit('second prompt');
    d.c.submit('third prompt');
    approval.respond({ kind: 'allow_once' } as ApprovalDecision);
    await d.next((e) => idle(e) && d.c.initialTranscript().length >= 8);
    const users = d.c.initialTranscript().flatMap((m) => (m.role === 'user' && m.blocks[0]?.type === 'text' ? [m.blocks[0].text] : []));
    expect(users.slice(-2)).toEqual(['second prompt', 'third prompt']);
    expect(d.events.filter((e) => e.type === 'busy').map((e) => e.type === 'busy' && e.busy)).toEqual([true, false]);
    await d.c.exit();
  });

  it("a command's error and a bare ! are notices; !command runs in the shell without the model", async () => {
    const d = await drive();
    d.c.submit('!');
    d.c.submit('/resume no-such-session');
    d.c.submit('!echo shell-said-hi');
    await d.next((e) => e.type === 'tool_end');
    await d.next(idle);
    expect(d.texts()).toEqual(['error: type a shell command after ! (for example: !git status)', 'error: no session with id "no-such-session"']);
    expect(JSON.stringify(d.events.find((e) => e.type === 'tool_end'))).toContain('shell-said-hi');
    expect(server.requests.filter((r) => r.raw?.includes('shell-said-hi'))).toEqual([]);
    await d.c.exit();
  });

  it('/clear opens a new session; resume goes back to the first with its transcript; the sessions and the archive are searchable', async () => {
    const d = await drive();
    d.c.submit('tell me about zebras');
    await d.next(idle);
    const first = d.c.session().id;
    d.c.submit('/clear');
    const opened = await d.next((e) => e.type === 'session' && e.session.id !== first);
    expect(opened.type === 'session' && opened.transcript).toEqual([]);
    expect(d.c.session().id).not.toBe(first);
    expect(d.c.searchSessions('zebras')).toEqual([first]);
    expect(d.c.searchSessions('"(')).toEqual([]);
    await d.c.resume(first);
    const back = d.events.filter((e) => e.type === 'session').at(-1);
    expect(back?.type === 'session' && back.session.id).toBe(first);
    expect(back?.type === 'session' && back.transcript.flatMap((m) => (m.kind === 'normal' ? [m.role] : []))).toEqual(['user', 'assistant']);
    expect(d.events.at(-1)).toMatchObject({ type: 'context' });
    // the resumed session's own events reach the app: its next turn is shown, on its history
    const from = d.events.length;
    d.c.submit('and about giraffes');
    await d.next((e) => idle(e) && d.events.indexOf(e) >= from);
    expect(d.events.slice(from).find((e) => e.type === 'turn_end')).toMatchObject({ type: 'turn_end', reason: 'end_turn' });
    expect(server.requests.at(-1)?.raw).toContain('tell me about zebras');
    await expect(d.c.resume('nope')).rejects.toThrow('no session with id "nope"');
    await d.c.exit();
  });

  it('/effort on a model that takes efforts sets it from the next turn, and the request carries it', async () => {
    const d = await drive({ model: 'claude-sonnet-5-5' });
    d.c.submit('/effort low');
    const out = await d.next(isType('command_output'));
    expect(out.output).toMatchObject({ kind: 'text', text: expect.stringMatching(/^Effort low from the next turn \(claude-sonnet-5-5\)/) });
    d.c.submit('think a little');
    await d.next((e) => e.type === 'turn_end');
    await d.next(idle);
    expect(server.requests.at(-1)?.raw).toContain('"output_config":{"effort":"low"}');
    await d.c.exit();
  });

  it('resume is refused while a turn runs', async () => {
    const d = await drive();
    d.c.submit('@bash echo wait\n@report Done.');
    const approval = await d.next(isType('approval'));
    await expect(d.c.resume(d.c.session().id)).rejects.toThrow(/wait for the current turn to end/);
    approval.respond({ kind: 'deny' } as ApprovalDecision);
    await d.next(idle);
    await d.c.exit();
  });

  it("the mode cycles; the commands list the capabilities' own; ctrl+b is bound, ctrl+q is not; no spilled output under an unknown handle", async () => {
    const d = await drive();
    const before = d.c.session().permissionMode;
    d.c.cyclePermissionMode();
    expect(d.c.session().permissionMode).not.toBe(before);
    expect(d.c.commands().map((c) => c.name)).toEqual(expect.arrayContaining(['skills', 'goal', 'tasks', 'clear', 'deploy']));
    expect(d.c.press('ctrl+q')).toBe(false);
    expect(d.c.press('ctrl+b')).toBe(true);
    expect(d.c.spilledOutput('nope')).toBeUndefined();
    expect(d.c.contextUsage().tokens).toBeGreaterThan(0);
    await d.c.exit();
  });

  it("the editor's environment leaves out the keys", async () => {
    const d = await drive();
    const env = d.inWorld(() => d.c.editorEnv());
    expect(env['EDITOR_SETTING']).toBe('vim');
    expect(env['ANTHROPIC_API_KEY']).toBeUndefined();
    await d.c.exit();
  });

  it('exit mid-turn interrupts the turn, stores how it ended, says exit, and closes the store; a second exit does nothing', async () => {
    const d = await drive();
    d.c.submit('@bash echo never\n@report Done.');
    await d.next(isType('approval'));
    d.c.submit('queued, never sent');
    await d.c.exit();
    // the prompt that waited went with the exit, unsent: nothing is left to drop
    expect(d.c.interrupt()).toBe(false);
    expect(d.texts().filter((t) => t.includes('Dropped'))).toEqual([]);
    expect(server.requests.filter((r) => r.raw?.includes('queued, never sent'))).toEqual([]);
    // the turn ended (interrupted) before the exit; the app, gone, is not told it is idle
    const types = d.events.map((e) => e.type);
    expect(types.indexOf('turn_end')).toBeGreaterThan(types.indexOf('approval'));
    expect(types.slice(types.indexOf('turn_end'))).not.toContain('busy');
    expect(types.at(-1)).toBe('exit');
    await d.c.exit();
    expect(d.events.filter((e) => e.type === 'exit')).toHaveLength(1);
    // everything was saved: the store is closed
    expect(() => d.runtime.store.listSessions()).toThrow();
  });

  it('/resume offers the 200 newest sessions, each with what the picker shows', async () => {
    const d = await drive();
    for (let i = 0; i < 201; i++)
      d.runtime.store.createSession({ id: `s-${i}`, cwd: '/p', provider: 'anthropic', model: 'claude-sonnet-4-5', title: `Session ${i}` });
    d.c.submit('/resume');
    const out = await d.next(isType('command_output'));
    if (out.output.kind !== 'picker') throw new Error(`not a picker: ${out.output.kind}`);
    expect(out.output.sessions).toHaveLength(200);
    expect(out.output.sessions[0]).toEqual({
      id: 's-200',
      title: 'Session 200',
      cwd: '/p',
      updatedAt: expect.any(Number),
      messageCount: 0,
      contextTokens: null,
    });
    await d.c.exit();
  });

  it('a code rewind over files changed outside asks in the TUI (the picker with the question); without the app it is refused', async () => {
    const d = await drive();
    await approvedWrite(d, 'notes.md', 'the agent wrote this\n');
    expect(readFileSync(join(d.dir, 'notes.md'), 'utf8')).toBe('the agent wrote this\n');
    writeFileSync(join(d.dir, 'notes.md'), 'the person changed it\n');
    d.c.submit('/rewind 1 code');
    const asked = await d.next((e) => e.type === 'command_output' && e.command === '/rewind 1 code');
    expect(asked.type === 'command_output' && asked.output).toMatchObject({ kind: 'rewind', overwrite: { files: ['notes.md'], command: '/rewind 1 code' } });
    // ACP and print mode have no picker: the refusal says what changed and how to go on
    await expect(d.inWorld(() => runSlash({ session: d.runtime.session }, '/rewind 1 code'))).rejects.toThrow(/notes\.md/);
    expect(readFileSync(join(d.dir, 'notes.md'), 'utf8')).toBe('the person changed it\n');
    await d.c.exit();
  });
});

describe("the controller's goal, MCP approvals, provider warnings and sessions from elsewhere", () => {
  it("/goal starts its turns at once: the start, the wrap-up once the turn budget ran out, then idle; the footer and goal events follow; another session's goal is not told", async () => {
    const d = await drive();
    d.runtime.goals.open('another-session').set(parseGoalArgs('not this one'));
    d.c.submit('/goal count the zebra files --turns 1');
    await d.next((e) => e.type === 'goal' && e.goal?.status === 'budget_limited');
    await d.next(idle);
    const asked = server.requests.filter((r) => r.raw?.includes('count the zebra files')).map((r) => r.raw ?? '');
    expect(asked).toHaveLength(2);
    expect(asked[0]).toContain('[Goal set by the user');
    expect(asked[1]).toContain('[Goal stopped: the turn budget (1 turn) ran out]');
    const goals = d.events.flatMap((e) => (e.type === 'goal' ? [e.goal] : []));
    expect(goals[0]).toMatchObject({ objective: 'count the zebra files', status: 'active' });
    expect(goals.some((g) => g?.objective === 'not this one')).toBe(false);
    // the goal saw each turn's end: one counted against the budget, the wrap-up in its total only
    expect(d.runtime.goals.of(d.c.session().id)?.current).toMatchObject({ used: { turns: 1 }, total: { turns: 2 } });
    expect(d.c.session().goal).toBe('goal: budget-limited · 1/1 turns');
    expect(d.events.filter((e) => e.type === 'busy').map((e) => e.type === 'busy' && e.busy)).toEqual([true, false]);
    await d.c.exit();
  });

  it('Esc while the goal check runs between turns stops the check and pauses the goal; no turn starts', async () => {
    const d = await drive();
    d.c.submit('/goal wait for the gnus --check "sleep 30"');
    await d.next((e) => e.type === 'busy' && e.busy);
    expect(d.c.interrupt()).toBe(true);
    await d.next(idle);
    expect(d.runtime.goals.of(d.c.session().id)?.current).toMatchObject({ status: 'paused', reason: 'interrupted (Esc)' });
    expect(d.c.session().goal).toBe('goal: paused · 0 turns');
    expect(server.requests.filter((r) => r.raw?.includes('wait for the gnus'))).toEqual([]);
    // nothing runs now: Esc interrupts nothing
    expect(d.c.interrupt()).toBe(false);
    await d.c.exit();
  });

  it('project MCP servers are put to the person one by one: allowed for good (remembered), once, declined, or declined when the app cannot ask', async () => {
    const server = { command: 'node', args: [join(__dirname, '..', 'mcp', 'failing-server.mjs')] };
    const d = await drive({ mcpServers: { alpha: server, beta: server, gamma: server, delta: server } });
    const failing = new Set(['delta']);
    d.c.observe((e) => {
      if (e.type === 'approval' && failing.has(e.request.toolUseId.replace('mcp-approval-', ''))) throw new Error('no approval prompt');
    });
    d.c.startMcp();
    expect(d.events.find((e) => e.type === 'mcp_status')).toEqual({ type: 'mcp_status', text: 'MCP 0✓ · 4 to approve' });
    const answer = async (name: string, kind: ApprovalDecision['kind']) => {
      const asked = await d.next((e) => e.type === 'approval' && e.request.toolUseId === `mcp-approval-${name}`);
      if (asked.type !== 'approval') throw new Error('not an approval');
      expect(asked.request).toMatchObject({ toolName: `MCP server "${name}"`, projectCode: { what: 'mcp', name, changed: false } });
      asked.respond({ kind } as ApprovalDecision);
    };
    await answer('alpha', 'allow_tool');
    await answer('beta', 'allow_once');
    await answer('gamma', 'deny');
    const mcp = d.runtime.mcp!;
    const states = () => Object.fromEntries(mcp.views().map((v) => [v.name, v.state]));
    await d.next((e) => e.type === 'mcp_status' && e.text === 'MCP 2✓');
    expect(states()).toEqual({ alpha: 'connected', beta: 'connected', gamma: 'declined', delta: 'declined' });
    // only the one allowed for good is in the trust file
    const trust = readFileSync(join(d.home, '.config', 'agent', 'trust.json'), 'utf8');
    expect(trust).toContain('alpha');
    expect(trust).not.toContain('beta');
    await d.c.exit();
  });

  it('a prompt typed after a !command waits for it: the request carries its output', async () => {
    const d = await drive();
    d.c.submit('!echo shell-ran-first');
    d.c.submit('what did the shell say');
    await d.next((e) => idle(e) && server.requests.some((r) => r.raw?.includes('what did the shell say')));
    expect(d.texts()).toEqual([]);
    expect(server.requests.find((r) => r.raw?.includes('what did the shell say'))?.raw).toContain('shell-ran-first');
    await d.c.exit();
  });

  it("a code rewind with the project's checkpoints says so: the file the turn wrote removed, Bash's changes included", async () => {
    const d = await drive();
    await approvedWrite(d, 'draft.md', 'a draft\n');
    d.c.submit('/rewind 1 code');
    const out = await d.next((e) => e.type === 'command_output' || e.type === 'notice');
    expect(out.type === 'command_output' && out.output.kind === 'text' && out.output.text.split('\n').slice(1)).toEqual(['  − draft.md removed', TREE_NOTE]);
    expect(existsSync(join(d.dir, 'draft.md'))).toBe(false);
    await d.c.exit();
  });

  it("the capabilities' views reach the app: the task list, the background commands' rows; an unknown sub-agent has no transcript", async () => {
    const d = await drive();
    expect(d.c.viewOf('tasks')).toEqual([]);
    expect(d.c.viewOf('todos')).toBeDefined();
    expect(d.c.viewOf('child', 'no-such-child')).toBeUndefined();
    await d.c.exit();
  });

  it("the provider's warnings are notices while the app runs, and wait again once it exited", async () => {
    const d = await drive();
    d.approvals.onProviderWarning('the model is not in the price list');
    expect(d.events.at(-1)).toEqual({ type: 'provider_notice', text: 'the model is not in the price list' });
    await d.c.exit();
    expect(d.approvals.notices).toBeUndefined();
  });

  it('resuming a session started in another directory says so; one started here says nothing', async () => {
    const d = await drive();
    d.runtime.store.createSession({ id: 'from-elsewhere', cwd: '/no/such/place', provider: 'anthropic', model: 'claude-sonnet-4-5', title: 'Moved' });
    d.runtime.store.createSession({ id: 'from-here', cwd: d.dir, provider: 'anthropic', model: 'claude-sonnet-4-5', title: 'Here' });
    await d.c.resume('from-elsewhere');
    expect(d.texts()).toEqual([`info: This session was started in /no/such/place; its tools now run in ${d.dir}. That directory no longer exists.`]);
    expect(d.c.session().id).toBe('from-elsewhere');
    await d.c.resume('from-here');
    expect(d.c.session().id).toBe('from-here');
    expect(d.texts()).toHaveLength(1);
    await d.c.exit();
  });

  it("the app gets a resumed session's compactions with its transcript; the session it left keeps none of them", async () => {
    const d = await drive();
    d.runtime.store.createSession({ id: 'compacted-before', cwd: d.dir, provider: 'anthropic', model: 'claude-sonnet-4-5', title: 'Compacted' });
    const failed = bareRecord(Date.now(), 'auto', 150_000, Date.now() - 1_000, { status: 'failed', reason: 'the summarizer did not answer' });
    d.runtime.store.recordCompactionFailure('compacted-before', failed);
    await d.c.resume('compacted-before');
    const resumed = d.events.filter((e) => e.type === 'session').at(-1);
    // mutation: the compactions read only for the session already open (=== for !==) sends none
    expect(resumed?.type === 'session' && resumed.compactions.map((r) => r.id)).toEqual([failed.id]);
    await d.c.exit();
  });

  it("completes @ paths from the project's files; a listener that throws is logged and the others still hear; without MCP servers startMcp starts nothing", async () => {
    const d = await drive();
    writeFileSync(join(d.dir, 'notes-for-completion.md'), 'notes');
    expect(await d.c.completePath('notes-for')).toEqual(['notes-for-completion.md']);
    const log = join(d.home, 'debug.log');
    d.inWorld(() => enableDebugLog(log));
    d.c.subscribe(() => {
      throw new Error('a broken listener');
    });
    d.inWorld(() => d.c.notify('info', 'heard despite the broken one'));
    expect(d.texts()).toEqual(['info: heard despite the broken one']);
    expect(readFileSync(log, 'utf8')).toContain('ui listener failed {"error":"a broken listener"}');
    expect(d.runtime.mcp).toBeUndefined();
    d.c.startMcp();
    expect(d.events.filter((e) => e.type === 'mcp_status')).toEqual([]);
    await d.c.exit();
  });
  // mutations: dropping `this.files ??= new FileIndex(…)`, or the debug line of a failed listener, or
  // `!mcp && this.closed` in startMcp (sessionController.ts) fail it

  it('Esc before the reply takes the prompt back to the input (prompt_returned)', async () => {
    const d = await drive();
    server.respondWith((r) => {
      if (r.raw?.includes('take this back')) d.c.interrupt({ takeBack: true });
      return undefined;
    });
    try {
      d.c.submit('take this back');
      await d.next(idle);
      expect(d.events.filter((e) => e.type === 'prompt_returned')).toEqual([expect.objectContaining({ type: 'prompt_returned', text: 'take this back' })]);
    } finally {
      server.respondWith(undefined);
    }
    await d.c.exit();
  });
  // mutation: `opts.takeBack === false` in interrupt (sessionController.ts) fails it: the prompt stays, unanswered

  it('a command typed with spaces around it is still the command, not a prompt to the model', async () => {
    const d = await drive();
    d.c.submit('  /skills  ');
    // the command's output, or (were it sent as a prompt) the turn's end, whichever comes
    const first = await d.next((e) => e.type === 'command_output' || idle(e));
    expect(first).toMatchObject({ type: 'command_output', command: '/skills' });
    await d.c.exit();
  });
  // mutation: `const input = text` without trim() in submit (sessionController.ts) fails it: the line goes to the model
});

describe("the controller's sessions, background commands and idle notice", () => {
  it('/clear leaves the old session: its lease released, its events no longer the app’s; after exit the session’s events are not either', async () => {
    const d = await drive();
    d.c.submit('remember the aardvark');
    await d.next(idle);
    const old = d.runtime.session;
    expect(d.runtime.store.getLease(old.id)).toBeDefined();
    d.c.submit('/clear');
    await d.next((e) => e.type === 'session' && e.session.id !== old.id);
    // mutation: dropping `previous.close()` in switchTo keeps the lease (another process could not resume it)
    expect(d.runtime.store.getLease(old.id)).toBeUndefined();
    // mutation: dropping `this.unsubscribe()` in attach lets the left session still talk to the app
    old.notice('info', 'from the session left behind');
    d.runtime.session.notice('info', 'from the session now open');
    expect(d.texts()).toEqual(['info: from the session now open']);
    await d.c.exit();
    // mutation: dropping `this.unsubscribe()` in exit lets the session talk to an app that is gone
    const count = d.events.length;
    d.runtime.session.notice('info', 'after the exit');
    expect(d.events).toHaveLength(count);
  });

  it('/rewind of the conversation redraws the app from the shortened history (a session event)', async () => {
    const d = await drive();
    d.c.submit('the first question');
    await d.next(idle);
    d.c.submit('the second question');
    await d.next((e) => idle(e) && d.c.initialTranscript().length >= 4);
    const from = d.events.length;
    d.c.submit('/rewind 2 conversation');
    const redrawn = await d.next((e) => e.type === 'session' && d.events.indexOf(e) >= from);
    if (redrawn.type !== 'session') throw new Error('not a session event');
    expect(redrawn.session.id).toBe(d.c.session().id);
    const said = redrawn.transcript.flatMap((m) => (m.role === 'user' && m.blocks[0]?.type === 'text' ? [m.blocks[0].text] : []));
    expect(said).toContain('the first question');
    expect(said).not.toContain('the second question');
    await d.c.exit();
  });

  it('a background command that ends while the person waits is told at once: info when it succeeded, a warning when it failed; the footer counts it', async () => {
    const d = await drive();
    d.c.startMcp();
    const call = (command: string) => `@call Bash ${JSON.stringify({ command, run_in_background: true })}\n@report Started.`;
    d.c.submit(call('echo fine-and-done'));
    (await d.next(isType('approval'))).respond({ kind: 'allow_once' } as ApprovalDecision);
    const ok = await d.next((e) => e.type === 'notice' && e.text.includes('fine-and-done'));
    expect(ok).toMatchObject({ level: 'info' });
    await d.next(idle);
    d.c.submit(call('echo broke-down; exit 3'));
    const asked = await d.next((e): e is Extract<Event, { type: 'approval' }> => e.type === 'approval' && JSON.stringify(e.request).includes('broke-down'));
    asked.respond({ kind: 'allow_once' } as ApprovalDecision);
    const failed = await d.next((e) => e.type === 'notice' && e.text.includes('broke-down'));
    expect(failed).toMatchObject({ level: 'warning' });
    const footer = d.events.flatMap((e) => (e.type === 'background_status' ? [e.text] : []));
    expect(footer).toContain('1 background');
    expect(footer.at(-1)).toBe('');
    await d.c.exit();
  });

  it("an MCP server's notices reach the transcript: one allowed that cannot start says so as an error", async () => {
    const d = await drive({ mcpServers: { broken: { command: '/nonexistent/agent-no-such-server' } } });
    d.c.startMcp();
    const asked = await d.next(isType('approval'));
    asked.respond({ kind: 'allow_once' } as ApprovalDecision);
    // mutation: dropping `mcp.onNotice = …` in startMcp leaves the failure out of the transcript
    const said = await d.next((e) => e.type === 'notice' && e.text.includes('MCP server "broken" could not start'));
    expect(said).toMatchObject({ level: 'error' });
    await d.c.exit();
  });

  it("the person's own MCP servers start with startMcp, unasked: the footer goes from connecting to connected", async () => {
    const d = await drive({ ownMcpServers: { mine: { command: 'node', args: [join(__dirname, '..', 'mcp', 'failing-server.mjs')] } } });
    d.c.startMcp();
    // mutation: dropping `mcp.start()` in startMcp leaves it unstarted (no approval would start it)
    await d.next((e) => e.type === 'mcp_status' && e.text === 'MCP 1✓');
    expect(d.runtime.mcp?.views().map((v) => [v.name, v.state])).toEqual([['mine', 'connected']]);
    expect(d.events.some((e) => e.type === 'approval')).toBe(false);
    await d.c.exit();
  });

  it('a minute after a turn the Notification hooks hear the agent waits (once, for the session still open), not while a turn runs nor after exit', async () => {
    const d = await drive();
    const heard: string[] = [];
    const listen = (s: Session) => vi.spyOn(s, 'attention').mockImplementation((kind) => void heard.push(`${s.id}:${kind}`));
    const first = d.runtime.session;
    listen(first);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    try {
      d.c.submit('one');
      await d.next(idle);
      d.c.submit('two');
      await d.next((e) => idle(e) && d.c.initialTranscript().length >= 4);
      vi.advanceTimersByTime(59_000);
      expect(heard).toEqual([]);
      vi.advanceTimersByTime(1_000);
      // mutation: dropping `clearTimeout(this.idleTimer)` hears it twice (the first turn's timer too)
      expect(heard).toEqual([`${first.id}:idle_prompt`]);
      // a session left before its minute is up is not told
      d.c.submit('three');
      await d.next((e) => idle(e) && d.c.initialTranscript().length >= 6);
      d.c.submit('/clear');
      await d.next((e) => e.type === 'session' && e.session.id !== first.id);
      listen(d.runtime.session);
      vi.advanceTimersByTime(60_000);
      expect(heard).toEqual([`${first.id}:idle_prompt`]);
      // after exit no timer is left to tell anyone
      d.c.submit('four');
      await d.next((e) => idle(e) && d.c.initialTranscript().length >= 2);
      await d.c.exit();
      vi.advanceTimersByTime(60_000);
      expect(heard).toEqual([`${first.id}:idle_prompt`]);
    } finally {
      vi.useRealTimers();
    }
  });
});
