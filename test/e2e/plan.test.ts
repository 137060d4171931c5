import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { isSummarizer, jsonLines, runAgent, workspace, type ProviderKind, type Workspace, useFakeServer } from './harness.js';
import { describeEachProvider } from './regime.js';

// Plan mode and the task list end to end in print mode: the built CLI, the real SDKs, the fake
// server validating every request like the real services.

const server = useFakeServer();

function toolResultsIn(n: number): Array<{ content: string; isError: boolean }> {
  const out: Array<{ content: string; isError: boolean }> = [];
  for (const m of server.requests[n - 1]?.view?.messages ?? [])
    for (const b of m.blocks) if (b.type === 'tool_result') out.push({ content: b.content, isError: b.isError });
  return out;
}
const failed = (r: { content: string; isError: boolean } | undefined, provider: ProviderKind): boolean =>
  provider === 'anthropic' ? r?.isError === true : /^Error|Plan mode is on|invalid|more than|at most one/.test(r?.content ?? '');
const allAccepted = (): void => {
  for (const q of server.requests) expect(q.response?.status, JSON.stringify(q.response)).toBe(200);
};

const ORIGINAL = 'export const port = 3000;\n';

describeEachProvider('plan mode with %s', (provider) => {
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace();
    writeFileSync(join(ws.dir, 'app.ts'), ORIGINAL);
  });
  const run = (args: string[]) => runAgent(args, { ws, server, provider, timeoutMs: 30_000 });

  it('refuses Edit, Write and a mutating command with a reason the model reads; a read and a read-only command run; the tree is unchanged', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'FileRead', input: { path: 'app.ts' } }] },
      { toolCalls: [{ name: 'Edit', input: { path: 'app.ts', old_string: '3000', new_string: '4000' } }] },
      { toolCalls: [{ name: 'Write', input: { path: 'new.txt', content: 'x' } }] },
      { toolCalls: [{ name: 'Bash', input: { command: 'touch made.txt' } }] },
      { toolCalls: [{ name: 'Bash', input: { command: 'ls' } }] },
      { text: 'The plan: change the port in app.ts.' },
    );
    const r = await run(['-p', 'plan the port change', '--permission-mode', 'plan']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('The plan: change the port');
    // the model is told it is planning
    expect(JSON.stringify(server.requests[0]!.view!.messages)).toContain('Plan mode is on');
    expect(failed(toolResultsIn(2).at(-1), provider)).toBe(false);
    for (const n of [3, 4, 5]) {
      const res = toolResultsIn(n).at(-1)!;
      expect(failed(res, provider), res.content).toBe(true);
      expect(res.content).toContain('Plan mode is on');
    }
    expect(toolResultsIn(5).at(-1)!.content).toContain('touch made.txt');
    const ls = toolResultsIn(6).at(-1)!;
    expect(ls.content).toContain('app.ts');
    expect(readFileSync(join(ws.dir, 'app.ts'), 'utf8')).toBe(ORIGINAL);
    expect(existsSync(join(ws.dir, 'new.txt'))).toBe(false);
    expect(existsSync(join(ws.dir, 'made.txt'))).toBe(false);
    allAccepted();
  });
});

describe('ExitPlanMode in print mode', () => {
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace({ compaction: { tailTurns: 1 } });
    writeFileSync(join(ws.dir, 'app.ts'), ORIGINAL);
  });
  const run = (args: string[]) => runAgent(args, { ws, server, timeoutMs: 30_000 });
  const PLAN = '## Plan\n1. Change the port in app.ts to 4000.\n2. Run the tests.';

  it('prints the plan and ends the turn (exit 0) when nobody can approve; the file is untouched', async () => {
    server.enqueue({ toolCalls: [{ name: 'ExitPlanMode', input: { plan: PLAN } }] }, { text: 'should never be asked for' });
    const r = await run(['-p', 'plan the port change', '--permission-mode', 'plan']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('1. Change the port in app.ts to 4000.');
    // the turn ended with the call: no second request
    expect(server.requests).toHaveLength(1);
    expect(readFileSync(join(ws.dir, 'app.ts'), 'utf8')).toBe(ORIGINAL);
    const show = await run(['-p', '/plan show', '--continue']);
    expect(show.code).toBe(2);
    expect(show.stderr).toContain('no plan has been approved');
  });

  it('--input-format stream-json: a plan is printed in the result of its own turn only', async () => {
    server.enqueue({ toolCalls: [{ name: 'ExitPlanMode', input: { plan: PLAN } }] }, { text: 'You are welcome.' });
    const line = (text: string): string => JSON.stringify({ type: 'user', message: { role: 'user', content: text } });
    const r = await runAgent(['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--permission-mode', 'plan'], {
      ws,
      server,
      timeoutMs: 30_000,
      stdin: `${line('plan the port change')}\n${line('thanks')}\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    const results = jsonLines(r.stdout).filter((m) => m.type === 'result');
    expect(results).toHaveLength(2);
    expect(results[0]!.result).toContain('1. Change the port in app.ts to 4000.');
    // mutation: the plans not reset between input lines print the first turn's plan again here
    expect(results[1]!.result).toBe('You are welcome.');
  });

  it('/plan inside -p --permission-mode acceptEdits: the plan is approved, the edit runs, /plan show prints it, and a compaction keeps it', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'FileRead', input: { path: 'app.ts' } }] },
      { toolCalls: [{ name: 'ExitPlanMode', input: { plan: PLAN } }] },
      { toolCalls: [{ name: 'Edit', input: { path: 'app.ts', old_string: '3000', new_string: '4000' } }] },
      // long enough that compacting this turn later makes the context smaller (a near-empty one is refused)
      { text: `Done. ${'The port is now 4000 and nothing else changed. '.repeat(60)}` },
    );
    const r = await run(['-p', '/plan change the port', '--permission-mode', 'acceptEdits']);
    expect(r.code, r.stderr).toBe(0);
    // issue 49: the model's answer is printed (it was nothing: a slash command's output, which /plan <task> has not)
    expect(r.stdout).toContain('Done. The port is now 4000');
    expect(JSON.stringify(server.requests[0]!.view!.messages)).toContain('Plan mode is on');
    expect(toolResultsIn(3).at(-1)!.content).toContain('The user approved the plan; plan mode is off (permission mode: acceptEdits)');
    expect(readFileSync(join(ws.dir, 'app.ts'), 'utf8')).toBe('export const port = 4000;\n');
    const show = await run(['-p', '/plan show', '--continue']);
    expect(show.stdout.trim()).toBe(PLAN);
    // saved as a file on request
    const saved = await run(['-p', '/plan save approved-plan.md', '--continue']);
    expect(saved.code, saved.stderr).toBe(0);
    expect(readFileSync(join(ws.dir, 'approved-plan.md'), 'utf8')).toBe(`${PLAN}\n`);

    server.enqueue({ text: 'Fine.' });
    expect((await run(['-p', 'all good?', '--continue'])).code).toBe(0);
    server.respondWith((req) => (isSummarizer(req.view) ? { text: '## Goal\nHelp the user.' } : undefined));
    const compact = await run(['-p', '/compact', '--continue']);
    expect(compact.code, compact.stdout + compact.stderr).toBe(0);
    server.respondWith(undefined);
    server.enqueue({ text: 'Yes.' });
    const before = server.requests.length;
    expect((await run(['-p', 'still the plan?', '--continue'])).code).toBe(0);
    const messages = server.requests[before]!.view!.messages;
    expect(messages.flatMap((m) => m.blocks).some((b) => b.type === 'tool_use' && b.name === 'ExitPlanMode')).toBe(false);
    expect(JSON.stringify(messages)).toContain('1. Change the port in app.ts to 4000.');
  });
});

describe('/plan <task> in print mode: the answer is the result', () => {
  const PLAN = '## Plan\n1. Change the port in app.ts to 4000.';
  it("json: the result is the answer, with the turn's usage; stream-json (acceptEdits, ExitPlanMode approved): the result line too", async () => {
    const ws = workspace();
    writeFileSync(join(ws.dir, 'app.ts'), ORIGINAL);
    server.enqueue({ text: 'Here is what I found: port 3000.' });
    const json = await runAgent(['-p', '/plan look at the port', '--output-format', 'json'], { ws, server, timeoutMs: 30_000 });
    expect(json.code, json.stderr).toBe(0);
    const result = JSON.parse(json.stdout) as { result: string; is_error: boolean; num_turns: number; usage: { output_tokens: number } };
    expect(result).toMatchObject({ result: 'Here is what I found: port 3000.', is_error: false });
    expect(result.usage.output_tokens).toBeGreaterThan(0);

    server.enqueue(
      { toolCalls: [{ name: 'FileRead', input: { path: 'app.ts' } }] },
      { toolCalls: [{ name: 'ExitPlanMode', input: { plan: PLAN } }] },
      { toolCalls: [{ name: 'Edit', input: { path: 'app.ts', old_string: '3000', new_string: '4000' } }] },
      { text: 'Changed the port to 4000.' },
    );
    const fresh = workspace();
    writeFileSync(join(fresh.dir, 'app.ts'), ORIGINAL);
    const stream = await runAgent(['-p', '/plan change the port', '--output-format', 'stream-json', '--verbose', '--permission-mode', 'acceptEdits'], {
      ws: fresh,
      server,
      timeoutMs: 30_000,
    });
    expect(stream.code, stream.stderr).toBe(0);
    expect(readFileSync(join(fresh.dir, 'app.ts'), 'utf8'), stream.stdout).toBe('export const port = 4000;\n');
    const results = jsonLines(stream.stdout).filter((m) => m.type === 'result');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ result: 'Changed the port to 4000.', is_error: false });
  });
});
// Mutations: PrintTurns.command printing only the command's own output (the receipt, '' for /plan <task>) again fails
// it (json's result ''); a plan the run approved still printed after the answer (approvalsIn ignored) fails the
// stream-json result, which then ends with the plan.

describe('permission modes by name', () => {
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace();
  });
  it("takes Claude Code's names (default, bypassPermissions) and refuses an unknown one naming the flag; /permissions explains plan mode", async () => {
    const plan = await runAgent(['-p', '/permissions', '--permission-mode', 'plan'], { ws, server });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('Permission mode: plan — plan mode: only what cannot change anything runs');
    const byp = await runAgent(['-p', '/permissions', '--permission-mode', 'bypassPermissions'], { ws, server });
    expect(byp.stdout).toContain('Permission mode: allow');
    const def = await runAgent(['-p', '/permissions', '--permission-mode', 'default'], { ws, server });
    expect(def.stdout).toContain('Permission mode: ask');
    const bad = await runAgent(['-p', '/permissions', '--permission-mode', 'planning'], { ws, server });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--permission-mode');
  });

  it('permissions.mode "plan" in .agentrc starts in plan mode, and a sub-agent is held to it: its touch is refused, its read runs', async () => {
    const planned = workspace({ permissions: { mode: 'plan' } });
    writeFileSync(join(planned.dir, 'notes.md'), 'NOTE-41\n');
    const shown = await runAgent(['-p', '/permissions'], { ws: planned, server });
    expect(shown.stdout).toContain('Permission mode: plan');
    const child = '@bash touch child-made.txt\n@then\n@read notes.md\n@report child looked';
    const r = await runAgent(['-p', `@task ${JSON.stringify({ description: 'look around', prompt: child })}\n@report parent done`], {
      ws: planned,
      server,
      timeoutMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(planned.dir, 'child-made.txt'))).toBe(false);
    const childLast = server.requests.filter((q) => q.view && !q.view.toolNames.includes('Task')).at(-1)!;
    const results = childLast.view!.messages.flatMap((m) => m.blocks).flatMap((b) => (b.type === 'tool_result' ? [b.content] : []));
    expect(results[0]).toContain('Plan mode is on, and this command is not one that only reads');
    expect(results[1]).toContain('NOTE-41');
    // Mutations that fail this: permissions.mode not read from .agentrc, the child opened in ask mode (the touch asks: refused differently) or allow (made).
  });
});

describe('the task list', () => {
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace({ compaction: { tailTurns: 1 } });
  });
  const run = (args: string[]) => runAgent(args, { ws, server, timeoutMs: 30_000 });
  const list = (statuses: string[]) => ({
    todos: statuses.map((status, i) => ({ content: `Step ${i + 1}`, status, activeForm: `Doing step ${i + 1}` })),
  });

  it('refuses bad lists with a clear error and the turn goes on; /todos prints the list in the next process; /rewind restores the earlier list; a compaction that keeps nothing still sends every item', async () => {
    const many = { todos: Array.from({ length: 10_000 }, (_, i) => ({ content: `item ${i}`, status: 'pending' })) };
    server.enqueue(
      { toolCalls: [{ name: 'TodoWrite', input: list(['in_progress', 'in_progress', 'pending']) }] },
      { toolCalls: [{ name: 'TodoWrite', input: list(['done', 'pending']) }] },
      { toolCalls: [{ name: 'TodoWrite', input: many }] },
      { toolCalls: [{ name: 'TodoWrite', input: list(['in_progress', 'pending', 'blocked']) }] },
      { text: 'Started.' },
    );
    const first = await run(['-p', 'do the three steps']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('Started.');
    const [two, unknown, huge, ok] = [2, 3, 4, 5].map((n) => toolResultsIn(n).at(-1)!);
    expect(two!.isError).toBe(true);
    expect(two!.content).toContain('at most one may be');
    expect(unknown!.isError).toBe(true);
    expect(unknown!.content).toMatch(/todos\.0\.status|status/);
    expect(huge!.isError).toBe(true);
    expect(huge!.content).toContain('10000 items is more than the 100');
    expect(ok!.isError).toBe(false);

    const shown = await run(['-p', '/todos', '--continue']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Tasks (0 of 3 done):\n- [~] Step 1 (in progress)\n- [ ] Step 2\n- [!] Step 3 (blocked)');
    // a fork opens with it too
    expect((await run(['-p', '/todos', '--continue', '--fork'])).stdout).toContain('- [~] Step 1 (in progress)');

    // turn 2 moves the list on
    server.enqueue({ toolCalls: [{ name: 'TodoWrite', input: list(['completed', 'in_progress', 'blocked']) }] }, { text: 'Step 1 done.' });
    expect((await run(['-p', 'go on', '--continue'])).code).toBe(0);
    expect((await run(['-p', '/todos', '--continue'])).stdout).toContain('- [x] Step 1\n- [~] Step 2 (in progress)');

    // /rewind the conversation to before turn 2: the list of turn 1 again
    const back = await run(['-p', '/rewind 2 conversation', '--continue']);
    expect(back.code, back.stderr).toBe(0);
    expect((await run(['-p', '/todos', '--continue'])).stdout).toContain('- [~] Step 1 (in progress)\n- [ ] Step 2');

    // a turn without the list, then a compaction whose summary keeps nothing: the next request carries every item
    server.enqueue({ text: 'Fine.' });
    expect((await run(['-p', 'how is it going?', '--continue'])).code).toBe(0);
    server.respondWith((req) => (isSummarizer(req.view) ? { text: '## Goal\nHelp the user.' } : undefined));
    const compact = await run(['-p', '/compact', '--continue']);
    expect(compact.code, compact.stdout + compact.stderr).toBe(0);
    server.respondWith(undefined);
    server.enqueue({ text: 'Still on step 1.' });
    const before = server.requests.length;
    expect((await run(['-p', 'where are we?', '--continue'])).code).toBe(0);
    const messages = server.requests[before]!.view!.messages;
    // the calls that set the list were compacted away: only the ledger carries it
    expect(messages.flatMap((m) => m.blocks).some((b) => b.type === 'tool_use' && b.name === 'TodoWrite')).toBe(false);
    const sent = JSON.stringify(messages);
    for (const line of ['[~] Step 1 (in progress)', '[ ] Step 2', '[!] Step 3 (blocked)']) expect(sent).toContain(line);
    allAccepted();
    // eleven processes one after another
  }, 120_000);
});

describe('tools.tasks', () => {
  it('auto leaves TodoWrite out on a small window and offers it on a large one; on offers it anyway; off never', async () => {
    const small = 'tiny-planner';
    const offered = async (tasks: string | undefined, model: string): Promise<boolean> => {
      const ws = workspace({
        models: { [small]: { contextWindow: 16_000, maxOutputTokens: 1024, provider: 'anthropic' } },
        ...(tasks ? { tools: { tasks } } : {}),
      });
      server.settings.contextWindow = { [small]: 16_000, '*': 1_000_000 };
      server.enqueue({ text: 'Hi.' });
      const before = server.requests.length;
      const r = await runAgent(['-p', 'hello', '--model', model], { ws, server, timeoutMs: 30_000 });
      expect(r.code, r.stderr).toBe(0);
      return server.requests[before]!.view!.toolNames.includes('TodoWrite');
    };
    expect(await offered(undefined, small)).toBe(false);
    expect(await offered(undefined, 'claude-sonnet-4-5')).toBe(true);
    expect(await offered('on', small)).toBe(true);
    expect(await offered('off', 'claude-sonnet-4-5')).toBe(false);
  }, 60_000);
});
// Mutations that fail this: offersTasks ignoring the setting or the window, the setting not read from .agentrc.

describe('the task list in the print streams', () => {
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace();
  });
  const run = (args: string[]) => runAgent(args, { ws, server, timeoutMs: 30_000 });
  const FIRST = {
    todos: [
      { content: 'Read the code', status: 'in_progress', activeForm: 'Reading the code' },
      { content: 'Fix it', status: 'pending' },
    ],
  };
  const SECOND = {
    todos: [
      { content: 'Read the code', status: 'completed' },
      { content: 'Fix it', status: 'in_progress', activeForm: 'Fixing it' },
    ],
  };

  it('stream-json carries each TodoWrite call in its assistant message, as Claude Code does', async () => {
    server.enqueue({ toolCalls: [{ name: 'TodoWrite', input: FIRST }] }, { toolCalls: [{ name: 'TodoWrite', input: SECOND }] }, { text: 'On it.' });
    const r = await run(['-p', 'fix it', '--output-format', 'stream-json', '--verbose']);
    expect(r.code, r.stderr).toBe(0);
    const calls = jsonLines(r.stdout)
      .filter((m) => m['type'] === 'assistant')
      .flatMap((m) => (m['message'] as { content: Array<{ type: string; name?: string; input?: unknown }> }).content)
      .filter((b) => b.type === 'tool_use' && b.name === 'TodoWrite');
    expect(calls.map((c) => c.input)).toEqual([FIRST, SECOND]);
  });

  it('events carries a todos event each time the list is set, and none for a list that was refused', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'TodoWrite', input: FIRST }] },
      {
        toolCalls: [
          {
            name: 'TodoWrite',
            input: {
              todos: [
                { content: 'A', status: 'in_progress' },
                { content: 'B', status: 'in_progress' },
              ],
            },
          },
        ],
      },
      { toolCalls: [{ name: 'TodoWrite', input: SECOND }] },
      { text: 'On it.' },
    );
    const r = await run(['-p', 'fix it', '--output-format', 'events']);
    expect(r.code, r.stderr).toBe(0);
    const events = jsonLines(r.stdout);
    const todos = events.filter((e) => e['type'] === 'todos');
    expect(todos.map((e) => e['todos'])).toEqual([FIRST.todos, SECOND.todos]);
    expect(todos[0]!['sessionId']).toBe(events.find((e) => e['type'] === 'result')!['sessionId']);
    // each comes after its call's end
    const ends = events.flatMap((e, i) => (e['type'] === 'tool_end' && e['name'] === 'TodoWrite' && e['status'] === 'done' ? [i] : []));
    expect(events.indexOf(todos[0]!)).toBe(ends[0]! + 1);
  });
});
// Mutations that fail these: the todos event left out or written for a refused list (two in progress), the TodoWrite
// tool_use dropped from stream-json's assistant content.

describe("a sub-agent's own task list", () => {
  it("a child's TodoWrite sets the child's list, not the parent's: the events carry it on the child's row and the parent's /todos has none", async () => {
    const ws = workspace();
    mkdirSync(join(ws.dir, '.agent', 'agents'), { recursive: true });
    writeFileSync(
      join(ws.dir, '.agent', 'agents', 'worker.md'),
      '---\nname: worker\ndescription: Works through steps.\ntools: Read, Glob, TodoWrite\n---\nWork through the steps, tracking them.\n',
    );
    const childList = {
      todos: [
        { content: 'Look around', status: 'completed' },
        { content: 'Report back', status: 'in_progress', activeForm: 'Reporting back' },
      ],
    };
    const childPrompt = `@glob *.md\n@then\n@call TodoWrite ${JSON.stringify(childList)}\n@report CHILD DONE`;
    const prompt = `@task ${JSON.stringify({ description: 'do the steps', prompt: childPrompt, agent: 'worker' })}\n@report parent done`;
    const r = await runAgent(['-p', prompt, '--output-format', 'events'], { ws, server, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; state?: { toolUseId: string; todos?: unknown } });
    // the child was offered TodoWrite (its agent names it) and its call ran
    const childRequests = server.requests.filter((q) => q.view && !q.view.toolNames.includes('Task'));
    expect(childRequests[0]!.view!.toolNames).toContain('TodoWrite');
    const withList = events.filter((e) => e.type === 'child' && e.state?.todos !== undefined);
    expect(withList.at(-1)!.state!.todos).toEqual(childList.todos);
    // the parent's own list: no todos event for it, and /todos in the next process finds none
    expect(events.some((e) => e.type === 'todos')).toBe(false);
    const shown = await runAgent(['-p', '/todos', '--continue'], { ws, server, timeoutMs: 30_000 });
    expect(shown.stdout).toContain('No task list yet');
  });
});
// Mutations that fail this: the child's TodoWrite followed into the parent's list (a todos event, /todos shows it),
// the child's list not put on its state (no child event with todos), TodoWrite unknown to agent files (the child is not offered it).
// Mutations that fail these: the plan check dropped from the gate (the Edit is applied, touch runs), the reminder
// not added, the aliases not mapped, todoListProblem not called, the list read from the visible history only (the
// compaction loses it) or from every TodoWrite including rewound ones (the rewind keeps turn 2's list).
