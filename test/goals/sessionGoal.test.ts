import { describe, expect, it } from 'vitest';
import type { CompactionRecord } from '../../src/history/compaction.js';
import { goalCommand } from '../../src/goals/command.js';
import { parseGoalArgs } from '../../src/goals/goal.js';
import { createGoalTool } from '../../src/goals/goalTool.js';
import { Goals } from '../../src/goals/goals.js';
import { type CheckRunner, SessionGoal } from '../../src/goals/sessionGoal.js';
import { emptyUsage } from '../../src/llm/messages.js';
import type { SessionEvent } from '../../src/protocol/events.js';
import type { GoalView } from '../../src/protocol/views.js';
import type { AnyTool } from '../../src/tools/types.js';

// A session goal's moves that goals.test.ts leaves out: the time and tokens a turn counts (a
// clock of the test's own), the check's results kept and told, /goal's answers, the Goal tool.

const signal = new AbortController().signal;

/** A goal on a clock the test moves, whose check answers from a list (a string: it throws that). */
function clocked(answers: Array<boolean | string> = []): { goal: SessionGoal; views: Array<GoalView | undefined>; clock: { t: number } } {
  const clock = { t: 1_000 };
  const run: CheckRunner = async () => {
    const a = answers.shift() ?? false;
    if (typeof a === 'string') throw new Error(a);
    clock.t += 2_000;
    return { output: a ? 'ok' : 'FAIL', passed: a };
  };
  const views: Array<GoalView | undefined> = [];
  return {
    goal: new SessionGoal(
      run,
      (v) => views.push(v),
      () => clock.t,
    ),
    views,
    clock,
  };
}

const turn = (goal: SessionGoal, clock: { t: number }, ms: number, events: SessionEvent[] = []): void => {
  goal.observe({ type: 'turn_start', turnId: 't' });
  clock.t += ms;
  for (const e of events) goal.observe(e);
  goal.observe({ type: 'turn_end', reason: 'end_turn', steps: 1, usage: { ...emptyUsage(), inputTokens: 100, outputTokens: 10 }, text: '' });
};

describe('what a goal counts', () => {
  it("a turn's wall time and a check's, against --time; a compaction's tokens in the turn it ran in, once", async () => {
    const { goal, clock } = clocked();
    goal.set(parseGoalArgs('x --check "make" --time 8s'));
    await goal.next({ planMode: false, signal });
    expect(goal.current?.used.ms).toBe(2_000);
    const compaction = { usage: { ...emptyUsage(), inputTokens: 1_000, outputTokens: 200 } } as unknown as CompactionRecord;
    turn(goal, clock, 3_000, [{ type: 'compaction_end', record: compaction }]);
    expect(goal.current?.used).toEqual({ tokens: 1_310, turns: 1, ms: 5_000 });
    turn(goal, clock, 1_000);
    // the compaction counted in its own turn only: the next turn starts from nothing
    expect(goal.current?.used).toEqual({ tokens: 1_420, turns: 2, ms: 6_000 });
    // an end without its start counts no time
    goal.observe({ type: 'turn_end', reason: 'end_turn', steps: 1, usage: emptyUsage(), text: '' });
    expect(goal.current?.used.ms).toBe(6_000);
    expect(await goal.next({ planMode: false, signal })).toContain('[Goal stopped: the time budget (8s) ran out]');
    expect(goal.view()).toMatchObject({ status: 'budget_limited', reason: 'the time budget (8s) ran out', footer: 'goal: budget-limited · 3 turns' });
  });

  it('keeps the last five checks, and a check that cannot run fails with why', async () => {
    const { goal, clock, views } = clocked([false, false, false, false, false, 'no shell']);
    goal.set(parseGoalArgs('x --check "make"'));
    for (let i = 0; i < 6; i++) {
      await goal.next({ planMode: false, signal });
      turn(goal, clock, 10);
    }
    const checks = goal.current?.checks ?? [];
    expect(checks).toHaveLength(5);
    expect(checks.at(-1)).toMatchObject({ passed: false, output: 'The check could not run: no shell' });
    expect(goal.view()?.lastCheck?.output).toBe('The check could not run: no shell');
    expect(views.at(-1)?.lastCheck?.output).toBe('The check could not run: no shell');
  });

  it("a paused goal's turns and checks count in its total only; nothing is counted once it is complete", async () => {
    const { goal, clock } = clocked([false, true]);
    goal.set(parseGoalArgs('x --check "make"'));
    await goal.next({ planMode: false, signal });
    goal.pause('by hand');
    turn(goal, clock, 500);
    expect(goal.current).toMatchObject({ used: { turns: 0, ms: 2_000 }, total: { turns: 1, ms: 2_500 } });
    goal.resume();
    await goal.next({ planMode: false, signal });
    expect(goal.current?.status).toBe('complete');
    turn(goal, clock, 500);
    expect(goal.current?.total.turns).toBe(1);
  });
});

describe('the goal as the model and the person read it', () => {
  it("the Goal tool's read and claim, and the ledger's section", async () => {
    const { goal } = clocked([false]);
    const tool = createGoalTool(goal) as AnyTool;
    goal.set(parseGoalArgs('ship it --check "npm test" --turns 3'));
    expect((await tool.run({ action: 'read' }, { cwd: '.', signal })).content).toBe('Objective (active): ship it\nCheck: npm test\nBudget: 3 turns left');
    const claim = await tool.run({ action: 'complete' }, { cwd: '.', signal });
    expect(claim).toEqual({ content: 'Not accepted: the check `npm test` failed:\nFAIL\nKeep working on the objective.', isError: true });
    expect(goal.describe()).toBe('Objective (active): ship it\nCheck: npm test\nBudget: 3 turns left\nLast check failed:\nFAIL');
    expect(goal.ledger()).toEqual({ title: 'Goal', text: 'Objective (active): ship it\nCheck: npm test\nLast check failed:\nFAIL' });
    expect(tool.summarize({ action: 'complete' })).toBe('claim the goal is met');
    expect(tool.summarize({ action: 'read' })).toBe('read the goal');
    goal.pause('by hand');
    expect(goal.ledger()?.text.split('\n')[0]).toBe('Objective (paused): ship it');
    const plain = clocked().goal;
    plain.set(parseGoalArgs('tidy up'));
    expect(plain.describe()).toBe('Objective (active): tidy up\nNo check: the goal is done when you call Goal with action "complete".');
    expect(plain.ledger()).toEqual({ title: 'Goal', text: 'Objective (active): tidy up' });
    expect(clocked().goal.describe()).toBe('There is no goal.');
    expect(await clocked().goal.claim(signal)).toEqual({ accepted: false, text: 'There is no open goal.' });
  });

  it("/goal's answers: set, replaced, paused (while a turn runs or not), resumed, cleared", () => {
    const goals = new Goals(async () => ({ output: '', passed: false }));
    goals.open('s1');
    const idle = { id: 's1', busy: false };
    expect(goalCommand(goals, idle, 'tidy up')).toBe('Goal set: tidy up\nNo check: the model says when it is done.');
    expect(goalCommand(goals, idle, 'ship it --check "npm test"')).toBe('Goal set (it replaces the previous one): ship it\nCheck: npm test');
    expect(goalCommand(goals, { id: 's1', busy: true }, ' pause ')).toBe('The goal is paused: the running turn ends as it would, and no other starts for it.');
    expect(() => goalCommand(goals, idle, 'pause')).toThrow('no active goal to pause (it is paused)');
    expect(goalCommand(goals, idle, 'resume')).toBe('Resuming the goal: ship it');
    expect(() => goalCommand(goals, idle, 'resume')).toThrow('the goal is active already');
    expect(goalCommand(goals, idle, 'pause')).toBe('The goal is paused.');
    expect(goalCommand(goals, idle, 'clear')).toBe('The goal is cleared.');
    expect(goalCommand(goals, idle, 'clear')).toBe('There was no goal.');
    expect(() => goalCommand(goals, idle, 'pause')).toThrow(/^no active goal to pause$/);
    expect(() => goalCommand(goals, { id: 'sub', busy: false }, '')).toThrow('this session has no goals');
  });
});

describe("a goal's moves, each told", () => {
  it('pause, resume and clear each tell the front ends; resume drops the reason; clearing nothing tells nothing', () => {
    const { goal, views } = clocked();
    expect(goal.clear()).toBe(false);
    expect(views).toEqual([]);
    goal.set(parseGoalArgs('x --turns 4'));
    expect(views.at(-1)).toMatchObject({ status: 'active', footer: 'goal: active · 0/4 turns' });
    expect(goal.pause('by hand')).toBe(true);
    expect(views.at(-1)).toMatchObject({ status: 'paused', reason: 'by hand' });
    // a second pause finds nothing active
    expect(goal.pause('again')).toBe(false);
    expect(views).toHaveLength(2);
    goal.resume();
    expect(views.at(-1)?.status).toBe('active');
    expect(views.at(-1)).not.toHaveProperty('reason');
    expect(goal.current).not.toHaveProperty('reason');
    expect(goal.clear()).toBe(true);
    expect(views).toHaveLength(4);
    expect(views.at(-1)).toBeUndefined();
    expect(goal.status()).toMatch(/^No goal\. \/goal <objective>/);
    expect(() => goal.resume()).toThrow('there is no goal to resume');
  });

  it("a turn's end tells the use; a refused, blocked or stopped turn pauses the goal with why", () => {
    const { goal, views, clock } = clocked();
    goal.set(parseGoalArgs('x'));
    turn(goal, clock, 10);
    expect(views.at(-1)).toMatchObject({ status: 'active', used: { tokens: 110, turns: 1, ms: 10 } });
    for (const reason of ['refusal', 'blocked', 'stopped'] as const) {
      const g = clocked().goal;
      g.set(parseGoalArgs('x'));
      g.observe({ type: 'turn_start', turnId: 't' });
      g.observe({ type: 'turn_end', reason, steps: 1, usage: emptyUsage(), text: '' });
      expect(g.current, reason).toMatchObject({ status: 'paused', reason: `the turn ended (${reason})` });
    }
    // a turn that ran out of steps goes on
    goal.observe({ type: 'turn_end', reason: 'max_steps', steps: 1, usage: emptyUsage(), text: '' });
    expect(goal.current?.status).toBe('active');
  });

  it('a complete goal cannot be resumed or claimed again, and leaves the ledger; a budget-limited one reads so there', async () => {
    const { goal } = clocked([true]);
    goal.set(parseGoalArgs('x --check "make"'));
    expect(await goal.next({ planMode: false, signal })).toBeUndefined();
    expect(goal.current).toMatchObject({ status: 'complete', reason: 'the check passed' });
    expect(goal.ledger()).toBeUndefined();
    expect(() => goal.resume()).toThrow('the goal is complete');
    expect(await goal.claim(signal)).toEqual({ accepted: false, text: 'There is no open goal.' });
    const limited = clocked();
    limited.goal.set(parseGoalArgs('y --turns 1'));
    await limited.goal.next({ planMode: false, signal });
    turn(limited.goal, limited.clock, 10);
    expect(await limited.goal.next({ planMode: false, signal })).toContain('[Goal stopped: the turn budget (1 turn) ran out]');
    expect(limited.goal.ledger()?.text).toBe('Objective (budget-limited): y');
    // a wrap-up turn's end is told too (its total), and no other turn follows
    limited.views.length = 0;
    turn(limited.goal, limited.clock, 10);
    expect(limited.views.at(-1)).toMatchObject({ status: 'budget_limited', used: { turns: 1 } });
    expect(await limited.goal.next({ planMode: false, signal })).toBeUndefined();
  });

  it('a continuation says the budget left, and the latest failed check with its command; without a budget it says none', async () => {
    const outputs = ['first failure', 'second failure'];
    const { goal, clock } = clocked();
    const checked = new SessionGoal(
      async () => ({ output: outputs.shift() ?? 'x', passed: false }),
      () => {},
      () => clock.t,
    );
    checked.set(parseGoalArgs('x --check "make" --turns 3'));
    expect(await checked.next({ planMode: false, signal })).toContain('Check: `make` — it failed, printing:\nfirst failure');
    turn(checked, clock, 10);
    const cont = await checked.next({ planMode: false, signal });
    expect(cont).toContain('Check: `make` — it failed, printing:\nsecond failure\nBudget: 2 turns left.\n');
    goal.set(parseGoalArgs('y'));
    expect(await goal.next({ planMode: false, signal })).toContain('No check command: the goal is done when you say so');
    turn(goal, clock, 10);
    const plain = await goal.next({ planMode: false, signal });
    expect(plain).not.toContain('Budget:');
    expect(plain).toContain('[Goal not done yet');
  });

  it("a resumed session's paused goal keeps its own reason; an active one is paused as resumed; nothing saved is no goal", () => {
    const { goal } = clocked();
    goal.restore({ objective: 'o', status: 'paused', reason: 'by hand' }, true);
    expect(goal.current).toMatchObject({ status: 'paused', reason: 'by hand' });
    goal.restore({ objective: 'o', status: 'active' }, true);
    expect(goal.current).toMatchObject({ status: 'paused', reason: 'the session was resumed' });
    goal.restore({ objective: 'o', status: 'active' }, false);
    expect(goal.current).not.toHaveProperty('reason');
    goal.restore(undefined, true);
    expect(goal.current).toBeUndefined();
    expect(goal.view()).toBeUndefined();
  });

  it("a claim's check while the goal is paused counts in its total only", async () => {
    const { goal } = clocked([false]);
    goal.set(parseGoalArgs('x --check "make"'));
    goal.pause('by hand');
    expect(await goal.claim(signal)).toMatchObject({ accepted: false });
    expect(goal.current).toMatchObject({ used: { ms: 0 }, total: { ms: 2_000 } });
  });
});

describe('what the front ends and the model see between turns', () => {
  it("a check's result is told as it lands, before any turn; completing and running out of budget are told too", async () => {
    const { goal, views } = clocked([false, true]);
    goal.set(parseGoalArgs('x --check "make" --turns 1'));
    views.length = 0;
    expect(await goal.next({ planMode: false, signal })).toContain('[Goal set by the user');
    // mutation: check() not telling: the failed check shows only at the next turn's end
    expect(views.at(-1)).toMatchObject({ status: 'active', lastCheck: { passed: false, output: 'FAIL' } });
    const limited = clocked([false]);
    limited.goal.set(parseGoalArgs('y --turns 1'));
    await limited.goal.next({ planMode: false, signal });
    turn(limited.goal, limited.clock, 10);
    expect(await limited.goal.next({ planMode: false, signal })).toContain('[Goal stopped');
    expect(limited.views.at(-1)).toMatchObject({ status: 'budget_limited', reason: 'the turn budget (1 turn) ran out' });
    const done = clocked([true]);
    done.goal.set(parseGoalArgs('z --check "make"'));
    expect(await done.goal.next({ planMode: false, signal })).toBeUndefined();
    expect(done.views.at(-1)).toMatchObject({ status: 'complete', reason: 'the check passed' });
  });

  it('a goal restored active (not a resumed session) asks for no turn until one of its own ends', async () => {
    const { goal, clock } = clocked();
    goal.restore({ objective: 'o', status: 'active' }, false);
    expect(await goal.next({ planMode: false, signal })).toBeUndefined();
    turn(goal, clock, 10);
    expect(await goal.next({ planMode: false, signal })).toContain('[Goal not done yet');
  });

  it("the session's own abort during the check asks for no turn and leaves the goal active", async () => {
    const session = new AbortController();
    const goal = new SessionGoal(
      async () => {
        session.abort();
        return { output: 'FAIL', passed: false };
      },
      () => {},
    );
    goal.set(parseGoalArgs('x --check "make"'));
    expect(await goal.next({ planMode: false, signal: session.signal })).toBeUndefined();
    expect(goal.current?.status).toBe('active');
  });

  it("keeps a check's last 2,000 characters and quotes its last 800 in the next message", async () => {
    const output = Array.from({ length: 2_500 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    const goal = new SessionGoal(
      async () => ({ output, passed: false }),
      () => {},
    );
    goal.set(parseGoalArgs('x --check "make"'));
    const message = await goal.next({ planMode: false, signal });
    const kept = goal.current?.checks[0]?.output ?? '';
    expect(kept).toBe(`[… 500 characters cut]\n${output.slice(-2_000)}`);
    expect(message).toContain(`[… ${kept.length - 800} characters cut]\n${kept.slice(-800)}`);
  });
});

describe('the latest check wherever a goal is read, and what each move leaves pending', () => {
  it("/goal, the ledger, the Goal tool's read and a refused claim quote the newest of several checks", async () => {
    const outputs = ['first: 3 failed', 'second: 2 failed', 'third: 1 failed'];
    const goal = new SessionGoal(
      async () => ({ output: outputs.shift() ?? 'x', passed: false }),
      () => {},
      () => 0,
    );
    goal.set(parseGoalArgs('x --check "make"'));
    await goal.next({ planMode: false, signal });
    goal.observe({ type: 'turn_end', reason: 'end_turn', steps: 1, usage: emptyUsage(), text: '' });
    await goal.next({ planMode: false, signal });
    // mutation: `checks.at(-0)` (the oldest) in statusText, ledger or describe
    expect(goal.status()).toContain('Last check (failed, 1970-01-01T00:00:00.000Z):\nsecond: 2 failed');
    expect(goal.status()).not.toContain('first');
    expect(goal.ledger()?.text).toBe('Objective (active): x\nCheck: make\nLast check failed:\nsecond: 2 failed');
    expect(goal.describe()).toBe('Objective (active): x\nCheck: make\nLast check failed:\nsecond: 2 failed');
    expect(goal.view()?.lastCheck?.output).toBe('second: 2 failed');
    // the claim's own check is the newest: its output is what it quotes
    expect((await goal.claim(signal)).text).toBe('Not accepted: the check `make` failed:\nthird: 1 failed\nKeep working on the objective.');
  });

  it('a claim whose check passes completes the goal, told, with why', async () => {
    const { goal, views } = clocked([true]);
    goal.set(parseGoalArgs('x --check "make"'));
    expect(await goal.claim(signal)).toEqual({
      accepted: true,
      text: 'The check passed; the goal is complete. End your turn with a short summary of what was done.',
    });
    // mutation: claim() not completing it: the goal would stay active and ask for more turns
    expect(goal.current).toMatchObject({ status: 'complete', reason: 'the check passed' });
    expect(views.at(-1)).toMatchObject({ status: 'complete' });
    expect(await goal.next({ planMode: false, signal })).toBeUndefined();
  });

  it('a cleared goal leaves no turn pending: a goal restored after it waits for a turn of its own', async () => {
    const { goal } = clocked();
    goal.set(parseGoalArgs('x'));
    // mutation: clear() keeping startPending, the restored goal would start at once
    goal.clear();
    goal.restore({ objective: 'o', status: 'active' }, false);
    expect(await goal.next({ planMode: false, signal })).toBeUndefined();
    const paused = clocked().goal;
    paused.set(parseGoalArgs('x'));
    // pause() drops the pending start too
    paused.pause('by hand');
    paused.restore({ objective: 'o', status: 'active' }, false);
    expect(await paused.next({ planMode: false, signal })).toBeUndefined();
  });

  it('after a continuation nothing is pending: no second turn until one ends', async () => {
    const { goal, clock } = clocked();
    goal.set(parseGoalArgs('x'));
    expect(await goal.next({ planMode: false, signal })).toContain('[Goal set by the user');
    expect(await goal.next({ planMode: false, signal })).toBeUndefined();
    turn(goal, clock, 10);
    expect(await goal.next({ planMode: false, signal })).toContain('[Goal not done yet');
    expect(await goal.next({ planMode: false, signal })).toBeUndefined();
  });

  it('the wrap-up leaves no turn pending: a goal restored after it waits for a turn of its own', async () => {
    const { goal, clock } = clocked();
    goal.set(parseGoalArgs('x --turns 1'));
    await goal.next({ planMode: false, signal });
    turn(goal, clock, 10);
    expect(await goal.next({ planMode: false, signal })).toContain('[Goal stopped');
    // mutation: the wrap-up leaving a turn pending: a restored active goal would start at once
    goal.restore({ objective: 'o', status: 'active' }, false);
    expect(await goal.next({ planMode: false, signal })).toBeUndefined();
  });
});
