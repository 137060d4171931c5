import { describe, expect, it } from 'vitest';
import {
  budgetLeft,
  budgetUsed,
  duration,
  footerText,
  type Goal,
  newGoal,
  parseDuration,
  parseGoalArgs,
  readGoal,
  spentBudget,
  statusText,
  tail,
} from '../../src/goals/goal.js';

// The pure side of a goal: its budgets spent and left, how it reads in /goal, the footer and a
// saved session, and the durations the person writes.

const goal = (over: Partial<Goal> = {}): Goal => ({ ...newGoal('ship it', undefined, {}, 0), ...over });

describe("a goal's budgets", () => {
  it('spent: each budget once its use reaches it, the first spent named', () => {
    expect(spentBudget(goal({ budget: { turns: 2 }, used: { tokens: 0, turns: 1, ms: 0 } }))).toBeUndefined();
    expect(spentBudget(goal({ budget: { turns: 1 }, used: { tokens: 0, turns: 1, ms: 0 } }))).toBe('the turn budget (1 turn) ran out');
    expect(spentBudget(goal({ budget: { turns: 3 }, used: { tokens: 0, turns: 4, ms: 0 } }))).toBe('the turn budget (3 turns) ran out');
    // a use without that budget spends nothing
    expect(spentBudget(goal({ budget: { tokens: 5_000 }, used: { tokens: 10, turns: 99, ms: 10_000_000 } }))).toBeUndefined();
    expect(spentBudget(goal({ budget: { tokens: 5_000 }, used: { tokens: 5_000, turns: 0, ms: 0 } }))).toBe('the token budget (5,000 tokens) ran out');
    expect(spentBudget(goal({ budget: { ms: 90_000 }, used: { tokens: 0, turns: 0, ms: 90_000 } }))).toBe('the time budget (1m30s) ran out');
  });

  it('left and used, as /goal and the continuation say them', () => {
    const g = goal({ budget: { turns: 5, tokens: 100_000, ms: 1_800_000 }, used: { tokens: 31_200, turns: 4, ms: 240_000 } });
    expect(budgetLeft(g)).toBe('1 turn, 68,800 tokens, 26m left');
    expect(budgetUsed(g)).toBe('4/5 turns, 31,200/100,000 tokens, 4m/30m');
    const over = goal({ budget: { turns: 2, tokens: 10 }, used: { tokens: 50, turns: 3, ms: 0 } });
    expect(budgetLeft(over)).toBe('0 turns, 0 tokens left');
    expect(budgetLeft(goal())).toBe('');
    expect(budgetUsed(goal({ used: { tokens: 1_234, turns: 2, ms: 5_000 } }))).toBe('2 turns, 1,234 tokens, 5s');
  });

  it('the footer: the status, and turns against the turn budget when there is one', () => {
    expect(footerText(goal())).toBe('goal: active · 0 turns');
    expect(footerText(goal({ status: 'budget_limited', used: { tokens: 0, turns: 1, ms: 0 } }))).toBe('goal: budget-limited · 1 turn');
    expect(footerText(goal({ status: 'paused', budget: { turns: 5 }, used: { tokens: 0, turns: 2, ms: 0 } }))).toBe('goal: paused · 2/5 turns');
  });

  it("/goal's status: why it stands, its check, its use over its life, the last check and what the person can do", () => {
    const g = goal({
      check: 'npm test',
      status: 'paused',
      reason: 'interrupted (Esc)',
      used: { tokens: 0, turns: 1, ms: 0 },
      total: { tokens: 0, turns: 3, ms: 0 },
      checks: [{ at: 0, passed: false, output: '1 failed' }],
    });
    expect(statusText(g)).toBe(
      [
        'Goal (paused: interrupted (Esc)): ship it',
        'Check: npm test',
        'Used: 1 turns, 0 tokens, 0s (3 turns in all)',
        'Last check (failed, 1970-01-01T00:00:00.000Z):\n1 failed',
        '/goal resume goes on with it.',
      ].join('\n'),
    );
    expect(statusText(goal())).toBe(
      [
        'Goal (active): ship it',
        'Check: none (the model says when it is done)',
        'Used: 0 turns, 0 tokens, 0s',
        'No check has run yet.',
        '/goal pause stops it after this turn; /goal clear drops it.',
      ].join('\n'),
    );
    expect(
      statusText(goal({ status: 'complete' }))
        .split('\n')
        .at(-1),
    ).toBe('No check has run yet.');
  });
});

describe('durations and texts', () => {
  it('reads "1h30m", "90s", " 30m " and refuses what is none', () => {
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration(' 30m ')).toBe(1_800_000);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('2h')).toBe(7_200_000);
    for (const none of ['', '  ', 'soon', '30', '1m1h']) expect(parseDuration(none), none).toBeUndefined();
  });

  it('writes 45s, 1m, 1m5s, 1h, 1h1m', () => {
    expect([44_600, 60_000, 65_000, 3_600_000, 3_660_000, 3_601_000].map(duration)).toEqual(['45s', '1m', '1m5s', '1h', '1h1m', '1h']);
  });

  it('/goal refuses a check of only spaces', () => {
    expect(() => parseGoalArgs('x --check "  "')).toThrow('/goal: --check needs a command');
  });

  it("keeps a long text's tail, saying how much was cut", () => {
    expect(tail('abcdef', 6)).toBe('abcdef');
    expect(tail('abcdef', 2)).toBe('[… 4 characters cut]\nef');
  });

  it('reads a saved goal back: its budgets, uses, checks (the last five) and reason; nonsense left out', () => {
    const checks = Array.from({ length: 7 }, (_, i) => ({ at: i, passed: i % 2 === 0, output: `run ${i}` }));
    const back = readGoal({
      objective: 'o',
      check: 'make',
      status: 'budget_limited',
      reason: 'the turn budget (2 turns) ran out',
      budget: { turns: 2, tokens: 'many', ms: 60_000 },
      used: { tokens: 5, turns: 2, ms: Number.NaN },
      checks: [...checks, { passed: 'yes', output: 'x' }],
      setAt: 7,
    });
    // strictly: a budget read as none is no key at all (the status and footer test for the key)
    expect(back).toStrictEqual({
      objective: 'o',
      check: 'make',
      budget: { turns: 2, ms: 60_000 },
      used: { tokens: 5, turns: 2, ms: 0 },
      total: { tokens: 0, turns: 0, ms: 0 },
      status: 'budget_limited',
      reason: 'the turn budget (2 turns) ran out',
      checks: checks.slice(2),
      setAt: 7,
    });
    expect(readGoal({ objective: 'o', check: '' })).not.toHaveProperty('check');
    expect(readGoal({ objective: 'o', used: { tokens: -5, turns: 1 } })?.used).toEqual({ tokens: 0, turns: 1, ms: 0 });
    expect(readGoal(null)).toBeUndefined();
    expect(readGoal({ objective: '' })).toBeUndefined();
  });
});

describe("/goal's flags at their edges", () => {
  it('takes --flag=value, escaped quotes in a check, and refuses a zero, a fraction or a quoted flag', () => {
    expect(parseGoalArgs('x --check=make --turns=2')).toEqual({ objective: 'x', check: 'make', budget: { turns: 2 } });
    expect(parseGoalArgs('x --check "echo \\"hi\\""').check).toBe('echo "hi"');
    expect(parseGoalArgs('x --tokens 1,500').budget).toEqual({ tokens: 1_500 });
    expect(parseGoalArgs('x --time 1s').budget).toEqual({ ms: 1_000 });
    expect(() => parseGoalArgs('x --turns 0')).toThrow('--turns "0" is not a positive whole number');
    expect(() => parseGoalArgs('x --tokens 1.5')).toThrow('--tokens "1.5" is not a positive whole number');
    expect(() => parseGoalArgs('x --time 0m')).toThrow('--time "0m" is not a duration');
    expect(() => parseGoalArgs('x --turns 3 "--time" 5m')).toThrow('unexpected "--time" after the flags');
    expect(() => parseGoalArgs('   ')).toThrow('usage: /goal <objective>');
  });

  it('a saved budget of 0, or one not a finite number, is none; a saved use of 0 stays', () => {
    expect(readGoal({ objective: 'o', budget: { turns: 0, tokens: Number.POSITIVE_INFINITY, ms: 1 } })?.budget).toStrictEqual({ ms: 1 });
    expect(readGoal({ objective: 'o', used: { tokens: 0, turns: 2, ms: 3 }, total: 'x' })).toMatchObject({
      used: { tokens: 0, turns: 2, ms: 3 },
      total: { tokens: 0, turns: 0, ms: 0 },
    });
    expect(readGoal({ objective: 'o', reason: 5 })).not.toHaveProperty('reason');
    expect(readGoal('o')).toBeUndefined();
    expect(readGoal(['o'])).toBeUndefined();
  });

  it('a new goal without a check has no check key; its clock is the one given', () => {
    expect(newGoal('o', undefined, {}, 5)).toStrictEqual({
      objective: 'o',
      budget: {},
      used: { tokens: 0, turns: 0, ms: 0 },
      total: { tokens: 0, turns: 0, ms: 0 },
      status: 'active',
      checks: [],
      setAt: 5,
    });
    expect(newGoal('o', '', {}, 5)).not.toHaveProperty('check');
  });
});
