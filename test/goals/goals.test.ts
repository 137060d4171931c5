import { describe, expect, it } from 'vitest';
import type { CapabilityHost } from '../../src/capability/capability.js';
import { goalsCapability } from '../../src/goals/capability.js';
import { bashCheck } from '../../src/goals/check.js';
import { goalCommand } from '../../src/goals/command.js';
import { parseGoalArgs, readGoal } from '../../src/goals/goal.js';
import { Goals } from '../../src/goals/goals.js';
import type { SessionGoal } from '../../src/goals/sessionGoal.js';
import { emptyUsage, type Usage } from '../../src/llm/messages.js';
import type { SessionEvent } from '../../src/protocol/events.js';
import type { GoalView } from '../../src/protocol/views.js';
import { createBashTool } from '../../src/tools/bash.js';
import type { AnyTool } from '../../src/tools/types.js';
import { tempDir } from '../tempDirs.js';

// The goal's state and moves (src/goals/): /goal's arguments, what a turn's end counts, the check
// deciding completion, the budgets, a resumed goal left paused, and the capability's slice,
// ledger section and tool set. The turns themselves run end to end in test/e2e/goals.test.ts.

const signal = new AbortController().signal;
const usage = (inputTokens: number, outputTokens: number): Usage => ({ ...emptyUsage(), inputTokens, outputTokens });
const turnEnd = (reason: 'end_turn' | 'max_steps' | 'aborted' | 'error' = 'end_turn', u = usage(100, 50)): SessionEvent[] => [
  { type: 'turn_start', turnId: 't' },
  { type: 'turn_end', reason, steps: 1, usage: u, text: '' },
];

/** A goal whose check answers from a list (true: passes), with the views it announced. */
function goalWith(checks: boolean[] = []): { goal: SessionGoal; views: Array<GoalView | undefined>; ran: string[] } {
  const ran: string[] = [];
  const goals = new Goals(async (command) => {
    ran.push(command);
    const passed = checks.shift() ?? false;
    return { output: passed ? 'ok' : 'FAIL: 3 tests', passed };
  });
  const views: Array<GoalView | undefined> = [];
  goals.subscribe((_, v) => views.push(v));
  return { goal: goals.open('s1'), views, ran };
}

const feed = (goal: SessionGoal, events: SessionEvent[]): void => {
  for (const e of events) goal.observe(e);
};

describe("/goal's arguments", () => {
  it('keeps the objective verbatim and reads the flags, quoted checks included', () => {
    expect(parseGoalArgs(`make the suite pass --check "npm test -- --run" --tokens 200_000 --turns 5 --time 1h30m`)).toEqual({
      objective: 'make the suite pass',
      check: 'npm test -- --run',
      budget: { tokens: 200_000, turns: 5, ms: 90 * 60_000 },
    });
    expect(parseGoalArgs(`migrate the files --check 'test $(wc -l < p.txt) -ge 30'`).check).toBe('test $(wc -l < p.txt) -ge 30');
    expect(parseGoalArgs('just do it')).toEqual({ objective: 'just do it', budget: {} });
  });

  it('names the flag that is wrong', () => {
    expect(() => parseGoalArgs('x --turns two')).toThrow('--turns "two" is not a positive whole number');
    expect(() => parseGoalArgs('x --time soon')).toThrow('--time "soon" is not a duration');
    expect(() => parseGoalArgs('x --check')).toThrow('--check needs a value');
    expect(() => parseGoalArgs('--turns 3')).toThrow('usage: /goal <objective>');
    expect(() => parseGoalArgs('x --turns 3 more words')).toThrow('unexpected "more"');
  });
});

describe('a session goal', () => {
  it('starts, continues after each turn whose check fails, and completes when the check passes', async () => {
    const { goal, ran } = goalWith([false, false, true]);
    goal.set(parseGoalArgs('fix the build --check "make"'));
    const start = await goal.next({ planMode: false, signal });
    expect(start).toContain('Objective: fix the build');
    feed(goal, turnEnd('max_steps'));
    const cont = await goal.next({ planMode: false, signal });
    expect(cont).toContain('[Goal not done yet');
    expect(cont).toContain('FAIL: 3 tests');
    // nothing happened since: no other turn, no check
    expect(await goal.next({ planMode: false, signal })).toBeUndefined();
    feed(goal, turnEnd());
    expect(await goal.next({ planMode: false, signal })).toBeUndefined();
    expect(goal.current?.status).toBe('complete');
    expect(ran).toEqual(['make', 'make', 'make']);
    expect(goal.current?.used).toMatchObject({ turns: 2, tokens: 300 });
  });

  it("each continuation quotes the latest check's output, not an earlier one's", async () => {
    const outputs = ['FAIL: 3 tests', 'FAIL: 1 test (test_parse)', 'ok'];
    const goals = new Goals(async () => {
      const output = outputs.shift() ?? 'ok';
      return { output, passed: output === 'ok' };
    });
    const goal = goals.open('s1');
    goal.set(parseGoalArgs('fix the build --check "make"'));
    // the check runs before the first turn too
    expect(await goal.next({ planMode: false, signal })).toContain('FAIL: 3 tests');
    feed(goal, turnEnd());
    const cont = await goal.next({ planMode: false, signal });
    expect(cont).toContain('FAIL: 1 test (test_parse)');
    expect(cont).not.toContain('FAIL: 3 tests');
    // /goal alone shows the latest check's output too
    const status = goalCommand(goals, { id: 's1', busy: false }, '');
    expect(status).toMatch(/Last check \(failed, [^)]*\):\nFAIL: 1 test \(test_parse\)/);
    expect(status).not.toContain('FAIL: 3 tests');
    feed(goal, turnEnd());
    expect(await goal.next({ planMode: false, signal })).toBeUndefined();
    expect(goal.current?.status).toBe('complete');
  });

  it('a budget ends it with one wrap-up turn, never as completion; resume gives the same budget again', async () => {
    const { goal } = goalWith();
    goal.set(parseGoalArgs('x --check "false" --turns 2'));
    await goal.next({ planMode: false, signal });
    feed(goal, turnEnd());
    expect(await goal.next({ planMode: false, signal })).toContain('[Goal not done yet');
    feed(goal, turnEnd());
    const wrapUp = await goal.next({ planMode: false, signal });
    expect(wrapUp).toContain('[Goal stopped: the turn budget (2 turns) ran out]');
    expect(goal.current?.status).toBe('budget_limited');
    feed(goal, turnEnd());
    // mutation: counting the wrap-up against the budget, or continuing after it, fails these
    expect(await goal.next({ planMode: false, signal })).toBeUndefined();
    expect(goal.current?.used.turns).toBe(2);
    expect(goal.current?.total.turns).toBe(3);
    goal.resume();
    // all of the budget again, tokens and time too; the total stays
    expect(goal.current?.used).toEqual({ tokens: 0, turns: 0, ms: 0 });
    expect(goal.current?.total.turns).toBe(3);
    expect(await goal.next({ planMode: false, signal })).toContain('[Goal set by the user');
  });

  it('counts billed tokens (cached input too) against --tokens, and a budget reached exactly is spent', async () => {
    const { goal } = goalWith();
    goal.set(parseGoalArgs('x --tokens 1000'));
    await goal.next({ planMode: false, signal });
    // 10 + 90 + 900 = 1,000: mutation: spentBudget's tokens compared with > instead of >= goes on
    feed(goal, turnEnd('end_turn', { ...usage(10, 90), cacheReadTokens: 900 }));
    expect(await goal.next({ planMode: false, signal })).toContain('the token budget (1,000 tokens) ran out');
  });

  it('pauses on Esc and on a failed turn; plan mode holds the continuation back', async () => {
    const { goal } = goalWith();
    goal.set(parseGoalArgs('x'));
    expect(await goal.next({ planMode: true, signal })).toBeUndefined();
    expect(await goal.next({ planMode: false, signal })).toContain('[Goal set by the user');
    feed(goal, turnEnd('aborted'));
    expect(goal.current).toMatchObject({ status: 'paused', reason: 'interrupted (Esc)' });
    expect(await goal.next({ planMode: false, signal })).toBeUndefined();
    goal.resume();
    await goal.next({ planMode: false, signal });
    feed(goal, turnEnd('error'));
    expect(goal.current?.status).toBe('paused');
  });

  it('Esc while the check runs between turns stops the check and pauses the goal', async () => {
    let stopped = false;
    const goals = new Goals(
      (_command, checkSignal) =>
        new Promise((resolve) =>
          checkSignal.addEventListener('abort', () => {
            stopped = true;
            resolve({ output: 'stopped', passed: false });
          }),
        ),
    );
    const goal = goals.open('s1');
    expect(goal.interrupt()).toBe(false); // nothing runs yet
    goal.set(parseGoalArgs('fix the build --check "make"'));
    const next = goal.next({ planMode: false, signal });
    await new Promise((r) => setTimeout(r, 0));
    expect(goal.interrupt()).toBe(true);
    expect(await next).toBeUndefined();
    expect(stopped).toBe(true);
    expect(goal.current).toMatchObject({ status: 'paused', reason: 'interrupted (Esc)' });
  });

  it("without a check the model's claim ends it; with one, only a passing check", async () => {
    const { goal } = goalWith();
    goal.set(parseGoalArgs('x'));
    expect(await goal.claim(signal)).toMatchObject({ accepted: true });
    expect(goal.current?.status).toBe('complete');
    const checked = goalWith([false, true]);
    checked.goal.set(parseGoalArgs('y --check "t"'));
    expect(await checked.goal.claim(signal)).toMatchObject({ accepted: false });
    expect(checked.goal.current?.status).toBe('active');
    expect(await checked.goal.claim(signal)).toMatchObject({ accepted: true });
  });

  it('a resumed session shows an active goal as paused; the saved state reads back', () => {
    const { goal } = goalWith();
    goal.set(parseGoalArgs('keep this verbatim: a, b & c --check "make test"'));
    const saved = JSON.parse(JSON.stringify(goal.save())) as unknown;
    const again = goalWith().goal;
    again.restore(saved, true);
    // mutation: restoring as saved (active) would let a resumed run go on without asking
    expect(again.current).toMatchObject({ status: 'paused', objective: 'keep this verbatim: a, b & c', check: 'make test' });
    const same = goalWith().goal;
    same.restore(saved, false);
    expect(same.current?.status).toBe('active');
    expect(readGoal({ objective: 42 })).toBeUndefined();
    expect(readGoal({ objective: 'o', status: 'weird', budget: { turns: -1 } })).toMatchObject({ status: 'paused', budget: {} });
  });
});

describe('the goals capability', () => {
  const host = (parent?: boolean): CapabilityHost =>
    ({ sessionId: 's1', resumed: false, ...(parent ? { parent: { id: 'p', label: 'x', handBackground: false } } : {}) }) as unknown as CapabilityHost;

  it('offers the Goal tool only while a goal is open, and its ledger section carries the objective and the last check', async () => {
    const goals = new Goals(async () => ({ output: 'Exit code 1\n2 failing', passed: false }));
    const opened = goalsCapability(goals).open(host());
    const none = opened.toolSet!();
    expect(none.tools).toEqual([]);
    // the same object while nothing changed: the cached prefix holds
    expect(opened.toolSet!()).toBe(none);
    const goal = goals.of('s1')!;
    goal.set(parseGoalArgs('ship it --check "npm test"'));
    expect(opened.toolSet!().tools.map((t) => t.name)).toEqual(['Goal']);
    expect(opened.toolSet!()).toBe(opened.toolSet!());
    await goal.next({ planMode: false, signal });
    const section = opened.state!.ledger!()!;
    expect(section.text).toContain('ship it');
    expect(section.text).toContain('2 failing');
    const read = await opened.toolSet!().tools[0]!.run({ action: 'read' }, { cwd: '.', signal });
    expect(read.content).toContain('Objective (active): ship it');
    goal.clear();
    expect(opened.toolSet!()).toBe(none);
    expect(opened.state!.ledger!()).toBeUndefined();
    // a sub-agent has no goal of its own
    expect(goalsCapability(goals).open(host(true))).toEqual({});
  });

  it('withdraws the Goal tool once the goal is complete; Goals.next asks the session goal, and a session it never opened has none', async () => {
    const goals = new Goals(async () => ({ output: 'ok', passed: true }));
    const opened = goalsCapability(goals).open(host());
    const none = opened.toolSet!();
    const goal = goals.of('s1')!;
    goal.set(parseGoalArgs('ship it'));
    expect(await goals.next('s1', false)).toContain('Objective: ship it');
    expect(await goals.next('elsewhere', false)).toBeUndefined();
    expect(await goal.claim(signal)).toMatchObject({ accepted: true });
    expect(opened.toolSet!()).toBe(none);
    // a new goal after a complete one replaces nothing open
    expect(goalCommand(goals, { id: 's1', busy: false }, 'next one')).toBe('Goal set: next one\nNo check: the model says when it is done.');
    expect(goalCommand(goals, { id: 's1', busy: false }, 'pause')).toBe('The goal is paused.');
    expect(goal.current?.reason).toBe('paused by /goal pause');
  });

  it('runs the check through the Bash tool: cwd, exit status and output', async () => {
    const dir = tempDir('goal-check');
    const bash = createBashTool({ timeoutMs: 20_000, maxTimeoutMs: 60_000, maxOutputChars: 30_000 }) as AnyTool;
    const check = bashCheck(bash, dir, 60_000);
    expect(await check('pwd', signal)).toEqual({ output: dir, passed: true });
    const failed = await check('echo nope; exit 3', signal);
    expect(failed.passed).toBe(false);
    expect(failed.output).toContain('nope');
    expect(failed.output).toContain('Exit code 3');
  });
});

// Mutations checked: spentBudget ignoring turns (the --turns case continues), billed() leaving out
// cacheReadTokens (the --tokens case continues), restore() not pausing a resumed active goal, the
// tool set returning a new object each time (toBe fails), claim() accepting without running the check,
// the continuation quoting the first check's output (`g.checks.at(0)` in next(): "the latest check's
// output" fails; the fresh sample of 6 Dec, mutant 6).
