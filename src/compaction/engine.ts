import type { CompactionConfig } from '../config/schema.js';
import type { CompactionRecord } from '../history/compaction.js';
import type { OverflowInfo } from '../llm/errors.js';
import type { Message } from '../llm/messages.js';
import type { ToolSpec } from '../llm/provider.js';
import { compactionBudgets, contextUsage, thresholds, type ContextUsage, type Thresholds } from './budget.js';
import { Guards, normalizeState, type CompactionState } from './guards.js';
import { anchorOnCount, calibrate, measure, sentRaw, type Measurement } from './meter.js';
import { ledgerTokens } from './ledgerStep.js';
import { openThinkingLoop } from './openLoop.js';
import { contextRaw, liveThinkingRaw, type ThinkingRoom } from './thinkingRoom.js';
import { microOutcome, microWorth, planMicro, type MicroPlan } from './microPlan.js';
import { BackgroundCompaction, prefirePoint, type PendingCompaction } from './background.js';
import { detectSilentOverflow, reactiveTailBudget } from './overflow.js';
import { Summarizer } from './summarize.js';
import { adoptReported, needsExactCounts, observeUncounted, partsKey, reportOf, roughTokens } from './uncounted.js';
import { bareRecord, CANCELLED, type Emit, type Outcome } from './outcome.js';
import { summarizeHead } from './headPlan.js';
import type { HeadDeps, LlmRun } from './headSummary.js';
import type { CompactionContext, EngineDeps } from './engineDeps.js';

export type { CompactionContext, EngineDeps } from './engineDeps.js';
export type CompactionOutcome = Outcome;

export interface ResponseObservation {
  /** Our calibrated estimate of the request, before this observation calibrated it. */
  estimated: number;
  /** The model's ratio after the observation. */
  ratio: number;
  /** Set when the reply looks like the server truncated the prompt instead of failing. */
  silentOverflow?: string;
  /** Figures to pass to reactive() when silentOverflow is set. */
  overflow?: OverflowInfo;
}

/** Share of the window around the auto threshold within which an exact count is worth one call. */
const EXACT_BAND = 0.03;

/**
 * The compaction engine of one session: token accounting (anchored, calibrated), the threshold
 * ladder, the tiers (micro, auto, reactive, manual) and their guards. It never mutates what it
 * is given: a successful compaction comes back as a CompactionCommit (history/compaction.ts)
 * for the session to commit to its log; a failed one changes nothing.
 */
export class CompactionEngine {
  private readonly deps: EngineDeps;
  private readonly cfg: CompactionConfig;
  private readonly ladder: Thresholds;
  private readonly summarizer: Summarizer;
  private readonly now: () => number;
  private readonly model: string;
  private readonly room: ThinkingRoom;
  private st: CompactionState;
  private readonly guards: Guards;
  /** The history (length:last id) an exact count was last asked for. */
  private exactFor: string | undefined;
  /** compaction.background: the summary written while the session goes on (background.ts). */
  private readonly bg: BackgroundCompaction | undefined;

  constructor(deps: EngineDeps, state?: CompactionState | unknown) {
    this.deps = deps;
    this.cfg = deps.config;
    this.ladder = thresholds(deps.limits, deps.config);
    this.summarizer = new Summarizer(deps.summarizer, deps.counter);
    this.now = deps.now ?? Date.now;
    this.model = deps.model ?? deps.limits.name ?? deps.summarizer.model;
    this.room = deps.thinkingRoom ?? 'all';
    this.st = normalizeState(state);
    this.guards = new Guards(this.st, this.cfg, this.ladder);
    this.bg = this.cfg.background
      ? new BackgroundCompaction({
          cfg: this.cfg,
          ladder: this.ladder,
          guards: this.guards,
          now: this.now,
          head: () => this.headDeps(),
          warm: deps.warm,
          settled: () => deps.backgroundSettled?.(),
        })
      : undefined;
  }

  /** The background compaction in flight, for the gauge and the status line. */
  pending(): PendingCompaction | undefined {
    return this.bg?.pending();
  }

  /** Cancels the background compaction in flight (Esc, /compact cancel, the session's end); false when there was none. */
  cancelBackground(): boolean {
    return this.bg?.cancel() ?? false;
  }

  /** Waits for the background compaction in flight to settle (a print run's end); then atRest() swaps it in if due. */
  async settleBackground(): Promise<boolean> {
    return (await this.bg?.settle()) !== undefined;
  }

  /** /compact in the TUI: the summary is written in the background and swapped in at the next boundary. */
  async startManual(ctx: CompactionContext, focus: string | undefined, emit: Emit): Promise<boolean> {
    if (!this.bg) return false;
    await this.deps.counter.load();
    const measured = this.measureCtx(ctx);
    this.bg.start('manual', ctx, measured, measured.tokens, focus?.trim() ? focus.trim() : undefined, emit);
    return true;
  }

  /** The session is at rest: a background job that settled is recorded, or swapped in when due. */
  async atRest(ctx: CompactionContext, emit: Emit, ending = false): Promise<Outcome[]> {
    if (!this.bg?.pending() || ctx.history.length === 0) return [];
    await this.deps.counter.load();
    const measured = this.measureCtx(ctx);
    const step = await this.bg.step(ctx, measured, measured.tokens, emit, { idle: true, warm: true, ending });
    return step.outcomes.map((o) => this.booked(o));
  }

  /** The guard state to store in the session's meta (a copy; plain JSON). */
  state(): CompactionState {
    return structuredClone(this.st);
  }

  thresholds(): Thresholds {
    return this.ladder;
  }

  /** reported ÷ estimated input tokens for the session model (1 until a reply calibrates it). */
  ratio(): number {
    return this.st.calibration[this.model]?.ratio ?? 1;
  }

  /** Tokens the next request would carry: the anchor plus what is new, calibrated. */
  tokens(ctx: CompactionContext): number {
    adoptReported(this.deps.counter, ctx, this.st, this.model, this.room);
    return measure(this.deps.counter, ctx, this.st.anchor, this.ratio(), this.room).tokens;
  }

  /** Tokens a request of another history would carry (a what-if: the accounting's anchor is left as it is). */
  tokensIf(ctx: CompactionContext): number {
    return measure(this.deps.counter, ctx, this.st.anchor, this.ratio(), this.room).tokens;
  }

  usage(ctx: CompactionContext): ContextUsage {
    const tokens = this.deps.counter.ready ? this.measureCtx(ctx).tokens : roughTokens(this.deps.counter, ctx, this.st.reported, this.ratio(), this.room);
    const compacting = this.bg?.pending();
    return contextUsage(tokens, this.ladder, {
      autoCompactEnabled: this.cfg.auto && !this.guards.stopped(),
      notice: this.guards.notice(),
      ...(compacting ? { compacting } : {}),
    });
  }

  /**
   * Before every model call. Above the micro threshold, old tool outputs are cleared; when that
   * would not bring the context under the auto threshold (and the guards allow), auto compaction
   * runs instead, so the summary is written from the full outputs, and clearing remains the
   * fallback should the summary fail. Apply the outcomes' changes in order.
   */
  async beforeCall(ctx: CompactionContext, signal: AbortSignal, emit: Emit): Promise<Outcome[]> {
    if (!this.deps.counter.ready) {
      // an upper bound below every threshold settles it: measuring would find nothing to do; the background
      // summary's prefire threshold (a write-ahead, not a limit) is judged on the gauge's rough figure
      const prefire =
        this.bg &&
        roughTokens(this.deps.counter, ctx, this.st.reported, this.ratio(), this.room) >= prefirePoint(this.cfg, this.ladder.auto, this.budgets(0).tailTokens);
      if (!this.bg?.pending() && !prefire && !needsExactCounts(this.deps.counter, ctx, this.ladder, this.ratio(), this.st.reported, this.mayTruncate())) {
        this.guards.measured(0); // under every threshold
        return [];
      }
      await this.deps.counter.load();
    }
    const measured = await this.exactNearThreshold(ctx, this.measureCtx(ctx), signal);
    const tokens = measured.tokens;
    this.guards.measured(tokens);
    if (ctx.history.length === 0) return [];
    // the background summary: a swap due, a failure to record, the fallback at the hard limit, a job to start
    const step = this.bg ? await this.bg.step(ctx, measured, tokens, emit, { idle: false, warm: true }) : { outcomes: [], handled: false };
    if (step.outcomes.length > 0) return step.outcomes.map((o) => this.booked(o));
    if (!this.cfg.auto || tokens < this.ladder.micro) return [];
    // clearing rewrites the cached prompt from the first cleared output on: microPolicy.ts says when it is worth it
    // `plan` is what could be cleared; `micro` that, when worth it now; a plan not worth it still
    // serves as the fallback when auto compaction cannot run or fails
    // inside a tool loop whose replies think, clearing waits for the loop's end (openLoop.ts)
    const plan = openThinkingLoop(ctx.history) === undefined ? planMicro(this.deps, this.cfg, this.ratio(), ctx, measured, 1) : undefined;
    const micro =
      plan && microWorth(this.deps, this.cfg, this.ladder, plan, tokens, { lastResponseAt: this.st.lastResponseAt, now: this.now() }) ? plan : undefined;
    const afterMicro = micro ? micro.tokensAfter : tokens;
    if (afterMicro < this.ladder.auto) return micro ? [this.commitMicro(ctx, measured, micro, emit)] : [];
    // past the auto threshold with a summary on its way: the session goes on with the full history
    if (step.handled) return [];
    const decision = this.guards.mayRunAuto(plan ? plan.tokensAfter : tokens);
    if (!decision.run) {
      if (decision.tell) emit({ type: 'compaction_skipped', trigger: 'auto', reason: decision.tell });
      return plan ? [this.commitMicro(ctx, measured, plan, emit)] : [];
    }
    const outcome = await this.summarizeHead({ trigger: 'auto', ctx, measured, tokensBefore: tokens, restore: true, signal, emit });
    const { record } = outcome;
    if (record.status === 'applied') this.guards.applied(record.tokensAfter, { automatic: true, cooldown: true });
    else if (record.status === 'ineffective') this.guards.ineffective(record.tokensBefore);
    else if (record.reason !== CANCELLED) {
      const opened = this.guards.autoFailed(record.reason ?? 'unknown error');
      if (opened) emit({ type: 'compaction_skipped', trigger: 'auto', reason: opened });
    }
    if (outcome.commit || !plan || record.reason === CANCELLED) return [outcome];
    return [outcome, this.commitMicro(ctx, measured, plan, emit)];
  }

  /**
   * After the provider rejected the prompt as too long (or a silent overflow): compacts with a
   * tail sized to close the reported gap. Runs whatever the breaker, cooldown or auto setting;
   * attempt counts from 1 within a turn, and past maxReactiveAttempts it fails with advice.
   */
  async reactive(ctx: CompactionContext, overflow: OverflowInfo | undefined, attempt: number, signal: AbortSignal, emit: Emit): Promise<Outcome> {
    await this.deps.counter.load();
    const measured = this.measureCtx(ctx);
    if (attempt > this.cfg.maxReactiveAttempts) {
      const n = this.cfg.maxReactiveAttempts;
      const reason =
        `the prompt is still too long after ${n} compaction${n === 1 ? '' : 's'} in this turn. ` +
        'Use /clear to start a fresh conversation (the archive keeps everything), or switch to a model with a larger context window.';
      emit({ type: 'compaction_skipped', trigger: 'reactive', reason });
      return { record: bareRecord(this.now(), 'reactive', measured.tokens, this.now(), { status: 'failed', reason }), skipped: true };
    }
    const fixedRaw = measured.systemRaw + measured.toolsRaw;
    const budgets = this.budgets(fixedRaw);
    const pinnedRaw = ctx.history.reduce((sum, m) => (m.pinned ? sum + this.deps.counter.countMessage(m) : sum), 0);
    const tailBudget = reactiveTailBudget({
      overflow,
      estimatedTokens: measured.tokens,
      thresholds: this.ladder,
      // the ledger goes beside the checkpoint (ledgerStep.ts)
      fixedTokens:
        this.ratio() * (fixedRaw + pinnedRaw) + budgets.summaryMaxTokens + (this.deps.ledger && this.cfg.ledger ? ledgerTokens(this.ladder.effective) : 0),
      tailTokens: budgets.tailTokens,
      attempt,
    });
    const outcome = await this.summarizeHead({ trigger: 'reactive', ctx, measured, tokensBefore: measured.tokens, tailBudget, restore: false, signal, emit });
    if (outcome.record.status === 'applied') this.guards.applied(outcome.record.tokensAfter, { automatic: true, cooldown: false });
    return outcome;
  }

  /**
   * /compact [focus]: compacts now, whatever the thresholds and guards; the focus steers the
   * summary. It waits for the summary (-p /compact), under the summary deadline: a summarizer
   * that does not answer in time gets a compaction without a summary instead.
   */
  async manual(ctx: CompactionContext, focus: string | undefined, signal: AbortSignal, emit: Emit): Promise<Outcome> {
    await this.deps.counter.load();
    const measured = this.measureCtx(ctx);
    const f = focus?.trim() ? focus.trim() : undefined;
    const run: LlmRun = { trigger: 'manual', ctx, measured, tokensBefore: measured.tokens, focus: f, restore: true, signal, emit };
    return this.booked(this.bg ? await this.bg.manual(run) : await this.summarizeHead(run));
  }

  /** The guards hear of an LLM attempt about to be committed (the background path's outcomes and the manual one). */
  private booked(o: Outcome): Outcome {
    const r = o.record;
    if (r.trigger === 'micro') return o;
    if (r.status === 'applied') this.guards.applied(r.tokensAfter, { automatic: r.trigger !== 'manual', cooldown: r.trigger === 'auto' });
    else if (r.status === 'ineffective' && r.trigger === 'auto') this.guards.ineffective(r.tokensBefore);
    if (o.commit) this.forgetAnchor();
    return o;
  }

  /**
   * After each response: `reportedInputTokens` is what the provider counted for the request
   * (for Anthropic input + cache read + cache write). Calibrates the model's ratio, anchors the
   * accounting on the real figure, and flags a silent overflow (a server that truncated).
   */
  observeResponse(sent: { system: string; tools: readonly ToolSpec[]; messages: readonly Message[] }, reportedInputTokens: number): ResponseObservation {
    const { counter } = this.deps;
    if (!counter.ready) {
      const seen = observeUncounted(
        counter,
        sent.messages,
        reportedInputTokens,
        this.st.reported,
        this.ladder.contextWindow,
        partsKey(sent.system, sent.tools),
        this.mayTruncate(),
      );
      if (seen.reported) this.st.reported = seen.reported;
      else delete this.st.reported;
      delete this.st.anchor;
      if (seen.silent) return { estimated: seen.estimated, ratio: this.ratio(), silentOverflow: seen.silent.message, overflow: seen.silent.overflow };
      this.guards.progressed();
      return { estimated: reportedInputTokens, ratio: this.ratio() };
    }
    const raw = sentRaw(counter, { system: sent.system, tools: sent.tools, history: sent.messages }, this.st.anchor, this.room);
    const estimated = Math.round(this.ratio() * raw.total);
    // the last reported anchor (kept in the saved state) is the previous response of this conversation
    const a = this.st.anchor;
    const previous =
      a?.source === 'reported' ? { reported: a.tokens, estimated: Math.round(this.ratio() * (a.systemRaw + a.toolsRaw + a.rawMessages)) } : undefined;
    const silent = !this.mayTruncate()
      ? undefined
      : detectSilentOverflow({ reported: reportedInputTokens, estimated, contextWindow: this.ladder.contextWindow, previous });
    if (silent) {
      this.forgetAnchor();
      return { estimated, ratio: this.ratio(), silentOverflow: silent.message, overflow: silent.overflow };
    }
    this.guards.progressed();
    this.st.lastResponseAt = this.now();
    calibrate(this.st.calibration, this.model, reportedInputTokens, raw.total);
    const report = reportOf(sent.messages, reportedInputTokens, partsKey(sent.system, sent.tools));
    if (report) {
      this.st.anchor = anchorOnCount(report, raw);
      this.st.reported = report;
    }
    return { estimated, ratio: this.ratio() };
  }

  /**
   * The session committed this compaction and its history is now `history`: the accounting
   * re-anchors on it (its estimate, until the next response reports the real figure).
   */
  committed(record: CompactionRecord, history: readonly Message[], sent: { system: string; tools: readonly ToolSpec[] }): void {
    this.bg?.committed(record.id);
    const { counter } = this.deps;
    const first = history[0];
    const last = history[history.length - 1];
    if (!first || !last || !counter.ready) {
      this.forgetAnchor();
      return;
    }
    const live = liveThinkingRaw(counter, history, this.room);
    this.st.anchor = {
      count: history.length,
      firstId: first.id,
      lastId: last.id,
      rawMessages: contextRaw(counter, history, this.room),
      ...(live > 0 ? { liveThinking: live } : {}),
      systemRaw: counter.countSystem(sent.system),
      toolsRaw: counter.countToolSpecs(sent.tools),
      tokens: record.tokensAfter,
      source: 'estimate',
    };
  }

  /** The history was replaced outside compaction (a /rewind): the next count starts from estimates. */
  historyReplaced(): void {
    this.forgetAnchor();
  }

  /** The server may truncate a prompt silently (an OpenAI-compatible one): its replies are watched for it, and its counts bound nothing. */
  private mayTruncate(): boolean {
    return this.deps.silentOverflowDetection !== false;
  }

  /** What the accounting anchored on no longer describes the history: both the anchor and the provider's last count go. */
  private forgetAnchor(): void {
    delete this.st.anchor;
    delete this.st.reported;
  }

  /** A user turn finished: the cooldown counts down, a thrash stop lifts. */
  turnCompleted(): void {
    this.guards.turnEnded();
  }

  /**
   * Where the provider counts exactly and the estimate sits within EXACT_BAND of the auto
   * threshold (where an estimate's error decides whether to compact), one count call replaces
   * the estimate: at most once per history, and not when the provider's own figure for a prefix
   * anchors it and what was added since is small.
   */
  private async exactNearThreshold(ctx: CompactionContext, m: Measurement, signal: AbortSignal): Promise<Measurement> {
    const count = this.deps.countExact;
    const last = ctx.history.at(-1);
    if (!count || !last || !this.cfg.auto) return m;
    const band = Math.max(1_000, Math.round(EXACT_BAND * this.ladder.contextWindow));
    if (Math.abs(m.tokens - this.ladder.auto) > band) return m;
    const key = `${ctx.history.length}:${last.id}`;
    // anchored on the provider's figure, only the new part is estimated: too little to be off by much
    const anchor = m.anchor;
    if (this.exactFor === key || (anchor?.source === 'reported' && m.tokens - anchor.tokens < band)) return m;
    this.exactFor = key;
    try {
      const exact = await count(ctx, signal);
      return exact > 0 ? { ...m, tokens: exact } : m;
    } catch {
      return m; // an estimate is still an answer
    }
  }

  private measureCtx(ctx: CompactionContext): Measurement {
    adoptReported(this.deps.counter, ctx, this.st, this.model, this.room);
    const m = measure(this.deps.counter, ctx, this.st.anchor, this.ratio(), this.room);
    if (m.anchor && m.anchor !== this.st.anchor) this.st.anchor = m.anchor;
    return m;
  }

  private budgets(fixedRaw: number) {
    return compactionBudgets(this.ladder, this.cfg, this.ratio() * fixedRaw, this.deps.summarizer.limits.maxOutputTokens);
  }

  private commitMicro(ctx: CompactionContext, measured: Measurement, plan: MicroPlan, emit: Emit): Outcome {
    this.forgetAnchor();
    return microOutcome(ctx, measured, plan, this.now, emit);
  }

  private headDeps(): HeadDeps {
    return {
      deps: this.deps,
      summarizer: this.summarizer,
      now: this.now,
      ratio: this.ratio(),
      budgets: (raw) => this.budgets(raw),
      effective: this.ladder.effective,
    };
  }

  private async summarizeHead(run: LlmRun): Promise<Outcome> {
    const outcome = await summarizeHead(this.headDeps(), run);
    // the accounting re-anchors on the committed history (committed())
    if (outcome.commit) this.forgetAnchor();
    return outcome;
  }
}

export { CANCELLED, type Emit, type Outcome } from './outcome.js';
