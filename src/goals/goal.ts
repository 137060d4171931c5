// A goal as data: the objective the person gave verbatim, the command that decides it is met
// (its check), its budgets and what it used, its status and the last checks' results. The
// session saves it (its capability's state slice), the ledger carries its objective and last
// check through every compaction. Here: the shape, reading a saved one forgivingly, parsing
// `/goal`'s arguments, and the pure decisions (is a budget spent, what is left, how it reads).
// What it never does: run a command or a turn (sessionGoal.ts, the front ends).
import { fmtInt } from '../tools/format.js';

export type GoalStatus = 'active' | 'paused' | 'budget_limited' | 'complete';

export interface GoalBudget {
  /** Billed tokens: input (cached or not) and output. */
  tokens?: number;
  turns?: number;
  /** Wall time of the goal's turns and checks, in ms. */
  ms?: number;
}

export interface GoalUse {
  tokens: number;
  turns: number;
  ms: number;
}

export interface CheckResult {
  at: number;
  passed: boolean;
  /** The check's output as Bash returned it (its tail when long), with its exit status. */
  output: string;
}

export interface Goal {
  objective: string;
  check?: string;
  budget: GoalBudget;
  /** Used since the goal was set or last resumed from budget-limited (the budgets apply to this). */
  used: GoalUse;
  /** Used over the goal's whole life. */
  total: GoalUse;
  status: GoalStatus;
  /** Why it stands where it stands: which budget ended it, what completed it, why it paused. */
  reason?: string;
  /** The last checks, oldest first (at most MAX_CHECKS). */
  checks: CheckResult[];
  setAt: number;
}

/** Checks kept in the session's state: enough to see a trend, little enough to stay small. */
export const MAX_CHECKS = 5;
/** Characters of a check's output kept (its tail: test runners end with the summary). */
export const CHECK_OUTPUT_CHARS = 2_000;
/** Characters of the check's output a continuation message quotes. */
export const QUOTED_OUTPUT_CHARS = 800;

const zero = (): GoalUse => ({ tokens: 0, turns: 0, ms: 0 });

export function newGoal(objective: string, check: string | undefined, budget: GoalBudget, now = Date.now()): Goal {
  return { objective, ...(check ? { check } : {}), budget, used: zero(), total: zero(), status: 'active', checks: [], setAt: now };
}

/** The last `n` characters of a text, marked when cut. */
export function tail(text: string, n: number): string {
  return text.length <= n ? text : `[… ${text.length - n} characters cut]\n${text.slice(-n)}`;
}

/** The budget this goal has spent, named as the person reads it; undefined while none is. */
export function spentBudget(g: Goal): string | undefined {
  const { budget: b, used: u } = g;
  if (b.tokens !== undefined && u.tokens >= b.tokens) return `the token budget (${fmtInt(b.tokens)} tokens) ran out`;
  if (b.turns !== undefined && u.turns >= b.turns) return `the turn budget (${b.turns} turn${b.turns === 1 ? '' : 's'}) ran out`;
  if (b.ms !== undefined && u.ms >= b.ms) return `the time budget (${duration(b.ms)}) ran out`;
  return undefined;
}

/** What is left of each budget, e.g. "1 turn, 12,000 tokens left"; '' without budgets. */
export function budgetLeft(g: Goal): string {
  const { budget: b, used: u } = g;
  const parts: string[] = [];
  if (b.turns !== undefined) {
    const n = Math.max(0, b.turns - u.turns);
    parts.push(`${n} turn${n === 1 ? '' : 's'}`);
  }
  if (b.tokens !== undefined) parts.push(`${fmtInt(Math.max(0, b.tokens - u.tokens))} tokens`);
  if (b.ms !== undefined) parts.push(duration(Math.max(0, b.ms - u.ms)));
  return parts.length > 0 ? `${parts.join(', ')} left` : '';
}

/** What was used against each budget, e.g. "2/5 turns, 31,200/100,000 tokens, 4m/30m". */
export function budgetUsed(g: Goal): string {
  const { budget: b, used: u } = g;
  const of = (used: string, limit: string | undefined): string => (limit === undefined ? used : `${used}/${limit}`);
  return [
    of(`${u.turns}`, b.turns?.toString()) + ' turns',
    of(fmtInt(u.tokens), b.tokens !== undefined ? fmtInt(b.tokens) : undefined) + ' tokens',
    of(duration(u.ms), b.ms !== undefined ? duration(b.ms) : undefined),
  ].join(', ');
}

const STATUS_WORD: Record<GoalStatus, string> = { active: 'active', paused: 'paused', budget_limited: 'budget-limited', complete: 'complete' };

export const statusWord = (s: GoalStatus): string => STATUS_WORD[s];

/** The footer's few words: "goal: active · 2/5 turns". */
export function footerText(g: Goal): string {
  const turns = g.budget.turns !== undefined ? ` · ${g.used.turns}/${g.budget.turns} turns` : ` · ${g.used.turns} turn${g.used.turns === 1 ? '' : 's'}`;
  return `goal: ${statusWord(g.status)}${turns}`;
}

/** `/goal` without arguments: the objective, status, budget used and the last check's output. */
export function statusText(g: Goal): string {
  const last = g.checks.at(-1);
  return [
    `Goal (${statusWord(g.status)}${g.reason ? `: ${g.reason}` : ''}): ${g.objective}`,
    `Check: ${g.check ?? 'none (the model says when it is done)'}`,
    `Used: ${budgetUsed(g)}${g.total.turns !== g.used.turns ? ` (${g.total.turns} turns in all)` : ''}`,
    last ? `Last check (${last.passed ? 'passed' : 'failed'}, ${new Date(last.at).toISOString()}):\n${last.output}` : 'No check has run yet.',
    g.status === 'active' ? '/goal pause stops it after this turn; /goal clear drops it.' : g.status === 'complete' ? '' : '/goal resume goes on with it.',
  ]
    .filter((l) => l !== '')
    .join('\n');
}

/** "30m", "1h30m", "45s". */
export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${s % 60 ? `${s % 60}s` : ''}`;
  return `${Math.floor(m / 60)}h${m % 60 ? `${m % 60}m` : ''}`;
}

/** "30m", "1h", "90s", "1h30m" → ms; undefined when it is none of these. */
export function parseDuration(text: string): number | undefined {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text.trim());
  if (!m || text.trim() === '' || (!m[1] && !m[2] && !m[3])) return undefined;
  return ((Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) * 60 + Number(m[3] ?? 0)) * 1000;
}

export type GoalArgs = { objective: string; check?: string; budget: GoalBudget };

/** Words of an argument line, with "…" and '…' quoting (a check is a shell command with spaces). */
function words(line: string): Array<{ text: string; quoted: boolean }> {
  const out: Array<{ text: string; quoted: boolean }> = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    if (m[1] !== undefined) out.push({ text: m[1].replace(/\\(.)/g, '$1'), quoted: true });
    else if (m[2] !== undefined) out.push({ text: m[2], quoted: true });
    else out.push({ text: m[3]!, quoted: false });
  }
  return out;
}

/**
 * `/goal <objective> [--check "<command>"] [--tokens N] [--turns N] [--time 30m]`: the objective
 * is the text before the first flag, kept verbatim. Throws with the flag named when one is wrong.
 */
export function parseGoalArgs(line: string): GoalArgs {
  const flagAt = line.search(/(^|\s)--(check|tokens|turns|time)(\s|=|$)/);
  const objective = (flagAt < 0 ? line : line.slice(0, flagAt)).trim();
  if (!objective) throw new Error('usage: /goal <objective> [--check "<command>"] [--tokens N] [--turns N] [--time 30m]');
  const rest = words(flagAt < 0 ? '' : line.slice(flagAt).replace(/(--\w+)=/g, '$1 '));
  const budget: GoalBudget = {};
  let check: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i]!.text;
    const value = rest[i + 1];
    if (!/^--(check|tokens|turns|time)$/.test(flag) || rest[i]!.quoted)
      throw new Error(`/goal: unexpected "${flag}" after the flags (the objective goes first)`);
    if (!value) throw new Error(`/goal: ${flag} needs a value`);
    i++;
    if (flag === '--check') {
      if (!value.text.trim()) throw new Error('/goal: --check needs a command');
      check = value.text;
    } else if (flag === '--time') {
      const ms = parseDuration(value.text);
      if (ms === undefined || ms <= 0) throw new Error(`/goal: --time "${value.text}" is not a duration (e.g. 30m, 1h, 90s)`);
      budget.ms = ms;
    } else {
      const n = Number(value.text.replace(/[_,]/g, ''));
      if (!Number.isInteger(n) || n <= 0) throw new Error(`/goal: ${flag} "${value.text}" is not a positive whole number`);
      if (flag === '--tokens') budget.tokens = n;
      else budget.turns = n;
    }
  }
  return { objective, ...(check ? { check } : {}), budget };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
const limit = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined);
const use = (v: unknown): GoalUse => (isRecord(v) ? { tokens: count(v['tokens']), turns: count(v['turns']), ms: count(v['ms']) } : zero());

/** A goal as an earlier run saved it, read forgivingly; undefined when there is none (or it is unreadable). */
export function readGoal(saved: unknown): Goal | undefined {
  if (!isRecord(saved) || typeof saved['objective'] !== 'string' || saved['objective'] === '') return undefined;
  const status = (['active', 'paused', 'budget_limited', 'complete'] as const).find((s) => s === saved['status']) ?? 'paused';
  const b = isRecord(saved['budget']) ? saved['budget'] : {};
  const budget: GoalBudget = {};
  for (const k of ['tokens', 'turns', 'ms'] as const) {
    const n = limit(b[k]);
    if (n !== undefined) budget[k] = n;
  }
  const checks = Array.isArray(saved['checks'])
    ? saved['checks'].flatMap((c: unknown) =>
        isRecord(c) && typeof c['passed'] === 'boolean' && typeof c['output'] === 'string'
          ? [{ at: count(c['at']), passed: c['passed'], output: c['output'] }]
          : [],
      )
    : [];
  return {
    objective: saved['objective'],
    ...(typeof saved['check'] === 'string' && saved['check'] !== '' ? { check: saved['check'] } : {}),
    budget,
    used: use(saved['used']),
    total: use(saved['total']),
    status,
    ...(typeof saved['reason'] === 'string' ? { reason: saved['reason'] } : {}),
    checks: checks.slice(-MAX_CHECKS),
    setAt: count(saved['setAt']),
  };
}
