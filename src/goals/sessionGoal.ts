// One session's goal, live: the state (goal.ts) and its moves. The front end that drives the
// session shows it every event (observe: a turn's end adds its tokens, time and count; Esc or an
// error pauses it) and asks `next` whenever the session is idle and nobody waits to be heard: the
// check runs, and the answer is the message of the next turn (a continuation, or the one wrap-up
// turn when a budget ran out), or nothing. The Goal tool reads it and claims completion.
// What it never does: run a turn itself, or decide for the person (a resumed goal stays paused).
import { addUsage, emptyUsage, type Usage } from '../llm/messages.js';
import { promptText } from '../promptText.js';
import type { SessionEvent } from '../protocol/events.js';
import type { GoalView } from '../protocol/views.js';
import CONTINUE from './continue.md';
import {
  budgetLeft,
  CHECK_OUTPUT_CHARS,
  footerText,
  type Goal,
  type GoalArgs,
  MAX_CHECKS,
  newGoal,
  QUOTED_OUTPUT_CHARS,
  readGoal,
  spentBudget,
  statusText,
  tail,
} from './goal.js';
import START from './start.md';
import WRAP_UP from './wrapUp.md';

/** Runs a goal's check as Bash runs a command (the same runner, cwd, environment and sandbox). */
export type CheckRunner = (command: string, signal: AbortSignal) => Promise<{ output: string; passed: boolean }>;

/** Billed tokens of a turn: its input, cached or not, and its output. */
const billed = (u: Usage): number => u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens + u.outputTokens;

export class SessionGoal {
  private goal: Goal | undefined;
  /** Set or resumed, no turn since: the next turn starts the work. */
  private startPending = false;
  /** A goal turn ended since the last check. */
  private turnEnded = false;
  private turnStartedAt: number | undefined;
  /** The check `next` runs, while it runs (Esc stops it). */
  private checking: AbortController | undefined;
  private turnUsage = emptyUsage();

  constructor(
    private readonly runCheck: CheckRunner,
    /** The goal changed (the front ends' footer and event streams). */
    private readonly changed: (view: GoalView | undefined) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** What an earlier run saved. A goal still active there is paused: it goes on only after `/goal resume`. */
  restore(saved: unknown, resumed: boolean): void {
    const g = readGoal(saved);
    if (g && resumed && g.status === 'active') {
      g.status = 'paused';
      g.reason = 'the session was resumed';
    }
    this.goal = g;
  }

  save(): unknown {
    return this.goal;
  }

  /** The ledger's section: the objective verbatim, the check and the last check's result. */
  ledger(): { title: string; text: string } | undefined {
    const g = this.goal;
    if (!g || g.status === 'complete') return undefined;
    const last = g.checks.at(-1);
    return {
      title: 'Goal',
      text: [
        `Objective (${g.status === 'active' ? 'active' : g.status.replace('_', '-')}): ${g.objective}`,
        g.check ? `Check: ${g.check}` : '',
        last ? `Last check ${last.passed ? 'passed' : 'failed'}:\n${tail(last.output, QUOTED_OUTPUT_CHARS)}` : '',
      ]
        .filter((l) => l !== '')
        .join('\n'),
    };
  }

  get current(): Readonly<Goal> | undefined {
    return this.goal;
  }

  view(): GoalView | undefined {
    const g = this.goal;
    if (!g) return undefined;
    const last = g.checks.at(-1);
    return {
      objective: g.objective,
      status: g.status,
      ...(g.check ? { check: g.check } : {}),
      ...(g.reason ? { reason: g.reason } : {}),
      budget: g.budget,
      used: g.used,
      footer: footerText(g),
      ...(last ? { lastCheck: last } : {}),
    };
  }

  status(): string {
    return this.goal ? statusText(this.goal) : 'No goal. /goal <objective> [--check "<command>"] [--tokens N] [--turns N] [--time 30m] sets one.';
  }

  set(args: GoalArgs): void {
    this.goal = newGoal(args.objective, args.check, args.budget, this.now());
    this.startPending = true;
    this.turnEnded = false;
    this.tell();
  }

  pause(reason: string): boolean {
    const g = this.goal;
    if (g?.status !== 'active') return false;
    g.status = 'paused';
    g.reason = reason;
    this.startPending = this.turnEnded = false;
    this.tell();
    return true;
  }

  /** A paused goal goes on; a budget-limited one gets the same budget again. */
  resume(): void {
    const g = this.goal;
    if (!g) throw new Error('there is no goal to resume: /goal <objective> sets one');
    if (g.status === 'complete') throw new Error('the goal is complete: /goal <objective> sets a new one');
    if (g.status === 'active') throw new Error('the goal is active already');
    if (g.status === 'budget_limited') g.used = { tokens: 0, turns: 0, ms: 0 };
    g.status = 'active';
    delete g.reason;
    this.startPending = true;
    this.turnEnded = false;
    this.tell();
  }

  clear(): boolean {
    const had = this.goal !== undefined;
    this.goal = undefined;
    this.startPending = this.turnEnded = false;
    if (had) this.tell();
    return had;
  }

  /** Every event of the session: a turn's end counts against the budgets; Esc and failures pause the goal. */
  observe(e: SessionEvent): void {
    if (e.type === 'turn_start') {
      this.turnStartedAt = this.now();
      this.turnUsage = emptyUsage();
    } else if (e.type === 'compaction_end') {
      // a compaction's summary is billed like a turn's tokens
      this.turnUsage = addUsage(this.turnUsage, e.record.usage);
    } else if (e.type === 'turn_end') {
      const g = this.goal;
      if (!g || g.status === 'complete') return;
      const usage = addUsage(this.turnUsage, e.usage);
      const ms = this.turnStartedAt !== undefined ? this.now() - this.turnStartedAt : 0;
      this.turnStartedAt = undefined;
      // a paused or budget-limited goal's turns (the wrap-up, the person's own) count in its total only
      this.spend({ tokens: billed(usage), turns: 1, ms }, g.status === 'active');
      if (g.status !== 'active') return this.tell();
      if (e.reason === 'aborted') return void this.pause('interrupted (Esc)');
      if (e.reason === 'error' || e.reason === 'refusal' || e.reason === 'blocked' || e.reason === 'stopped')
        return void this.pause(`the turn ended (${e.reason})`);
      this.turnEnded = true;
      this.tell();
    }
  }

  /**
   * The session is idle and nobody's input waits: the message of the next turn for the goal, or
   * undefined (no goal, not active, plan mode, nothing happened since). The check runs first
   * when a turn ended (or the goal was just set or resumed): a pass completes the goal.
   */
  async next(opts: { planMode: boolean; signal: AbortSignal }): Promise<string | undefined> {
    const g = this.goal;
    if (!g) return undefined;
    if (g.status !== 'active' || opts.planMode || !(this.turnEnded || this.startPending)) return undefined;
    if (g.check) {
      const ac = new AbortController();
      this.checking = ac;
      const passed = await this.check(AbortSignal.any([opts.signal, ac.signal])).finally(() => (this.checking = undefined));
      if (opts.signal.aborted || ac.signal.aborted) return undefined;
      if (passed) return (this.complete('the check passed'), undefined);
    }
    const spent = spentBudget(g);
    if (spent) {
      g.status = 'budget_limited';
      g.reason = spent;
      this.startPending = this.turnEnded = false;
      this.tell();
      return promptText(WRAP_UP, { reason: spent, objective: g.objective });
    }
    const starting = this.startPending;
    this.startPending = this.turnEnded = false;
    const last = g.checks.at(-1);
    const check = g.check
      ? `Check: \`${g.check}\`${last ? ` — it failed, printing:\n${tail(last.output, QUOTED_OUTPUT_CHARS)}` : ''}`
      : 'No check command: the goal is done when you say so (Goal, action "complete").';
    if (starting) return promptText(START, { objective: g.objective, check });
    const left = budgetLeft(g);
    return promptText(CONTINUE, { objective: g.objective, check, budget: left ? `Budget: ${left}.\n` : '' });
  }

  /** Esc between turns: the check `next` runs is stopped and the goal paused; false when no check runs. */
  interrupt(): boolean {
    if (!this.checking) return false;
    this.checking.abort();
    this.pause('interrupted (Esc)');
    return true;
  }

  /** The Goal tool's "complete": accepted without a check, or when the check passes now. */
  async claim(signal: AbortSignal): Promise<{ accepted: boolean; text: string }> {
    const g = this.goal;
    if (!g || g.status === 'complete') return { accepted: false, text: 'There is no open goal.' };
    if (!g.check) {
      this.complete('the model said it is done');
      return { accepted: true, text: 'The goal is marked complete. End your turn with a short summary of what was done.' };
    }
    const passed = await this.check(signal);
    if (passed) {
      this.complete('the check passed');
      return { accepted: true, text: `The check passed; the goal is complete. End your turn with a short summary of what was done.` };
    }
    const last = g.checks.at(-1)!;
    return {
      accepted: false,
      text: `Not accepted: the check \`${g.check}\` failed:\n${tail(last.output, QUOTED_OUTPUT_CHARS)}\nKeep working on the objective.`,
    };
  }

  /** The Goal tool's "read". */
  describe(): string {
    const g = this.goal;
    if (!g) return 'There is no goal.';
    const left = budgetLeft(g);
    const last = g.checks.at(-1);
    return [
      `Objective (${g.status}): ${g.objective}`,
      g.check ? `Check: ${g.check}` : 'No check: the goal is done when you call Goal with action "complete".',
      left ? `Budget: ${left}` : '',
      last ? `Last check ${last.passed ? 'passed' : 'failed'}:\n${tail(last.output, QUOTED_OUTPUT_CHARS)}` : '',
    ]
      .filter((l) => l !== '')
      .join('\n');
  }

  private async check(signal: AbortSignal): Promise<boolean> {
    const g = this.goal!;
    const started = this.now();
    const r = await this.runCheck(g.check!, signal).catch((e: unknown) => ({ output: `The check could not run: ${(e as Error).message}`, passed: false }));
    this.spend({ tokens: 0, turns: 0, ms: this.now() - started }, g.status === 'active');
    g.checks = [...g.checks, { at: this.now(), passed: r.passed, output: tail(r.output, CHECK_OUTPUT_CHARS) }].slice(-MAX_CHECKS);
    this.tell();
    return r.passed;
  }

  private complete(reason: string): void {
    const g = this.goal!;
    g.status = 'complete';
    g.reason = reason;
    this.startPending = this.turnEnded = false;
    this.tell();
  }

  private spend(d: { tokens: number; turns: number; ms: number }, againstBudget: boolean): void {
    const g = this.goal!;
    const add = (u: Goal['used']) => ({ tokens: u.tokens + d.tokens, turns: u.turns + d.turns, ms: u.ms + d.ms });
    g.total = add(g.total);
    if (againstBudget) g.used = add(g.used);
  }

  private tell(): void {
    this.changed(this.view());
  }
}
