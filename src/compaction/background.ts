// The background summary of one session (issue 43): past the prefire threshold the summary of a
// snapshot of the history is written while the session goes on with the full history; when it
// is ready and the auto threshold is reached, its checkpoint is assembled with everything that
// came after the snapshot, written to the provider's cache by a warm-up request, and swapped in
// at the next boundary. It owns the one job in flight (its abort, its deadline, its warm-up),
// never the history: what it plans goes back through the engine to the session's commit path,
// and the job ends when that commit names its compaction (or when it is cancelled).
import type { CompactionConfig } from '../config/schema.js';
import type { Message } from '../llm/messages.js';
import type { Ledger } from '../ledger/types.js';
import type { Thresholds } from './budget.js';
import type { CompactionContext, Warm } from './engineDeps.js';
import type { Guards } from './guards.js';
import { assembleHead } from './headAssembly.js';
import { draftHead, summarizeHead } from './headPlan.js';
import { selectSplit } from './split.js';
import type { HeadDeps, HeadDraft, LlmRun } from './headSummary.js';
import type { Measurement } from './meter.js';
import { bareRecord, CANCELLED, type Emit, type Outcome } from './outcome.js';

/** What the gauge and the status line show of a job in flight. */
export interface PendingCompaction {
  trigger: 'auto' | 'manual';
  startedAt: number;
  /** The summary is written and waits for its swap (and warm-up). */
  ready: boolean;
}

export interface JobStart {
  trigger: 'auto' | 'manual';
  startedAt: number;
  deadlineMs: number;
  /** Writes the draft (headPlan.ts draftHead) under the job's signal. */
  run: (signal: AbortSignal, emit: Emit) => Promise<HeadDraft | Outcome>;
  emit: Emit;
  /** The job settled (its draft is ready, or it failed): a session at rest may swap now. */
  settled: () => void;
}

interface WarmState {
  /** The checkpoint the warm-up sent, reused byte for byte at the swap. */
  checkpoint: { message: Message; ledger: Ledger | undefined };
  /** The warm-up covered the history's first `upTo` messages. */
  upTo: number;
  lastId: string | undefined;
  done: boolean;
  promise: Promise<void>;
}

export class BackgroundJob {
  readonly trigger: 'auto' | 'manual';
  readonly startedAt: number;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private result: HeadDraft | Outcome | undefined;
  /** Set when the deadline cancelled the summary request. */
  timedOut = false;
  warm: WarmState | undefined;
  readonly done: Promise<void>;

  constructor(
    start: JobStart,
    private readonly deadlineMs: number,
  ) {
    this.trigger = start.trigger;
    this.startedAt = start.startedAt;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new Error(`the summarizer did not answer within ${Math.round(deadlineMs / 1000)} s`));
    }, deadlineMs);
    this.timer.unref?.();
    // started a microtask later: the job is the engine's before its first event (the gauge reads it at compaction_start)
    this.done = Promise.resolve()
      .then(() => start.run(this.controller.signal, start.emit))
      .catch((e: unknown): Outcome => {
        const reason = this.controller.signal.aborted ? CANCELLED : e instanceof Error ? e.message : String(e);
        return { record: bareRecord(Date.now(), start.trigger, 0, start.startedAt, { status: 'failed', reason }) };
      })
      .then((r) => {
        clearTimeout(this.timer);
        this.result = r;
        if (!this.controller.signal.aborted || this.timedOut) start.settled();
      });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The draft once written; undefined while it runs or when the job ended otherwise. */
  draft(): HeadDraft | undefined {
    return this.result && 'snapshot' in this.result ? this.result : undefined;
  }

  /** How the job ended when it wrote no draft: its failed (or ineffective) outcome, the deadline named as its reason. */
  ended(): Outcome | undefined {
    const r = this.result;
    return r && !('snapshot' in r) ? this.named(r) : undefined;
  }

  settledNow(): boolean {
    return this.result !== undefined;
  }

  /** Waits for the job up to `ms`: at the hard limit a summary about to arrive beats none. */
  within(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([this.done, new Promise<void>((r) => (timer = setTimeout(r, ms)))]).finally(() => clearTimeout(timer));
  }

  private named(o: Outcome): Outcome {
    if (!this.timedOut || o.record.reason !== CANCELLED) return o;
    const reason = `the summarizer did not answer within ${Math.round(this.deadlineMs / 1000)} s: cancelled, tried again later`;
    return { ...o, record: { ...o.record, reason } };
  }

  view(): PendingCompaction {
    return { trigger: this.trigger, startedAt: this.startedAt, ready: this.draft() !== undefined };
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.controller.abort(new Error(CANCELLED));
  }
}

/** What the boundary decisions need of the engine. */
export interface BackgroundHost {
  cfg: CompactionConfig;
  ladder: Thresholds;
  guards: Guards;
  now: () => number;
  head: () => HeadDeps;
  warm: Warm | undefined;
  /** The job (or its warm-up) settled: a session at rest may take its next step now. */
  settled: () => void;
}

/** What a boundary did: the attempts to commit, and whether the synchronous auto compaction is to be left out. */
export interface BoundaryStep {
  outcomes: Outcome[];
  handled: boolean;
}

/** How long the hard limit waits for a summary in flight before it compacts without one (the issue's bound between two steps is 2 s: half a second leaves the step its room). */
export const HARD_LIMIT_GRACE_MS = 500;

/** The reason a compaction without a summary names, from what became of the background job. */
const hardLimitReason = (job: BackgroundJob | undefined, now: number, lastFailure: string | undefined): string =>
  job
    ? `the summary started ${Math.round((now - job.startedAt) / 1000)} s earlier had not arrived when the context reached its hard limit`
    : `the context reached its hard limit with no summary ready${lastFailure ? ` (the last summary failed: ${lastFailure})` : ''}`;

/**
 * Where an automatic background summary starts: `compaction.prefire` of the auto threshold, or by
 * default the auto threshold less the tail the synchronous path keeps (`tailTokens` as fitted to
 * the window). What comes after the snapshot is kept verbatim at the swap, so a summary started
 * earlier leaves a larger context than the synchronous path's and the session compacts more often.
 */
export function prefirePoint(cfg: CompactionConfig, auto: number, tailTokens: number): number {
  return cfg.prefire !== undefined ? Math.round(cfg.prefire * auto) : Math.max(0, auto - tailTokens);
}

/** The tail an automatic snapshot keeps: the synchronous path's tail budget less the growth still to come before the auto threshold. */
function projectedTail(head: HeadDeps, measured: Measurement, tokens: number, auto: number): number {
  const { tailTokens } = head.budgets(measured.systemRaw + measured.toolsRaw);
  return Math.max(0, tailTokens - Math.max(0, auto - tokens));
}

/**
 * The session's background compaction: one job at a time, its decisions at each boundary
 * (before a model call, or at rest), the swap and its warm-up, the fallback at the hard limit.
 */
export class BackgroundCompaction {
  private job: BackgroundJob | undefined;
  /** The failure last shown: the same failure again is recorded, not shown again. */
  private lastShown: string | undefined;
  private lastFailure: string | undefined;
  /** The context at the last boundaries before a model call: the next step's growth is guessed from theirs. */
  private seen: number[] = [];

  constructor(private readonly host: BackgroundHost) {}

  pending(): PendingCompaction | undefined {
    return this.job?.view();
  }

  cancel(): boolean {
    const job = this.job;
    if (!job) return false;
    job.cancel();
    this.job = undefined;
    return true;
  }

  /** The job's draft was committed (or the history moved on without it): the job is over. */
  committed(compactionId: string): void {
    if (this.job?.draft()?.id === compactionId) this.job = undefined;
  }

  /** Starts a summary in the background on this history (a manual one replaces an automatic one). */
  start(trigger: 'auto' | 'manual', ctx: CompactionContext, measured: Measurement, tokens: number, focus: string | undefined, emit: Emit): BackgroundJob {
    this.cancel();
    const head = this.host.head();
    // an automatic draft is swapped in at the auto threshold with everything after its snapshot
    // kept verbatim: the snapshot keeps only what the synchronous path would keep less what will
    // have come after it by then, so the context after the swap is about the synchronous path's
    const tailBudget = trigger === 'auto' ? projectedTail(head, measured, tokens, this.dueAt(tokens)) : undefined;
    const deadlineMs = this.host.cfg.summaryDeadlineSeconds * 1000;
    const job = new BackgroundJob(
      {
        trigger,
        startedAt: this.host.now(),
        deadlineMs,
        emit,
        settled: () => this.host.settled(),
        run: (signal, jobEmit) =>
          draftHead(head, {
            trigger,
            ctx,
            measured,
            tokensBefore: tokens,
            focus,
            restore: true,
            signal,
            emit: jobEmit,
            background: true,
            ...(tailBudget !== undefined ? { tailBudget } : {}),
          }),
      },
      deadlineMs,
    );
    this.job = job;
    return job;
  }

  /** Waits for the job in flight (-p /compact, a print run's end); false when there is none. */
  async settle(): Promise<BackgroundJob | undefined> {
    const job = this.job;
    if (!job) return undefined;
    await job.done;
    const w = job.warm;
    if (w && !w.done) await w.promise;
    return job;
  }

  /**
   * One boundary. A failed job is recorded (and shown once); a ready draft is swapped in when it
   * is due (a manual one at once, an automatic one from the auto threshold), after its warm-up;
   * at the hard limit with no summary ready a compaction without a summary is applied; past the
   * prefire threshold a job starts. `idle`: the session is at rest, nothing is started; `ending`:
   * a print run ends, a draft already written is swapped in though not due (cancelled, its summary would be paid for nothing).
   */
  async step(
    ctx: CompactionContext,
    measured: Measurement,
    tokens: number,
    emit: Emit,
    at: { idle: boolean; warm: boolean; ending?: boolean },
  ): Promise<BoundaryStep> {
    const { ladder } = this.host;
    const job = this.job;
    const hard = tokens >= ladder.blocking;
    const growth = at.idle ? 0 : this.grown(tokens);
    // a job started at the boundary before this one may be a moment from done: the fallback waits that long for it
    if (job && hard && !job.settledNow()) await job.within(HARD_LIMIT_GRACE_MS);
    if (job) {
      const failed = job.ended();
      if (failed) {
        this.job = undefined;
        return { outcomes: [this.failure(job, failed, emit)], handled: true };
      }
      const draft = job.draft();
      // an automatic swap is due at the auto threshold, or at the hard limit while the cooldown after
      // the last compaction holds (as the synchronous path's compaction is: as often, no more)
      const dueAt = job.trigger === 'auto' ? this.dueAt(tokens) : ladder.auto;
      const due = job.trigger === 'manual' || tokens >= dueAt || (at.ending === true && draft !== undefined);
      // one step before the threshold (at the growth of the last step) the warm-up goes out beside
      // that step's request, so the swap at the threshold finds it done: no step at the full size waits for it
      const ahead = !due && at.warm && !at.idle && tokens + growth >= dueAt;
      if (draft && (due || ahead)) {
        const swapped = await this.swap(job, draft, ctx, tokens, hard, at.warm, !due);
        if (swapped === 'later') return { outcomes: [], handled: due };
        if (swapped !== 'diverged') return { outcomes: [swapped], handled: true };
        this.cancel(); // the history moved under it (a rewind, an /uncompact): planned again below
      } else if (draft || !job.settledNow()) {
        if (!hard) return { outcomes: [], handled: tokens >= ladder.auto };
        this.cancel();
        return { outcomes: [await this.fallback(ctx, measured, tokens, hardLimitReason(job, this.host.now(), undefined), emit)], handled: true };
      } else this.job = undefined;
    }
    if (at.idle || !this.host.cfg.auto) return { outcomes: [], handled: false };
    if (hard && this.host.guards.mayRunAuto(tokens).run)
      return { outcomes: [await this.fallback(ctx, measured, tokens, hardLimitReason(undefined, this.host.now(), this.lastFailure), emit)], handled: true };
    if (!this.prefires(ctx, measured, tokens, growth) || !this.host.guards.mayPrefire()) return { outcomes: [], handled: false };
    this.start('auto', ctx, measured, tokens, undefined, emit);
    return { outcomes: [], handled: tokens >= ladder.auto };
  }

  /**
   * Whether an automatic summary starts now: past `compaction.prefire` of the auto threshold when
   * it is set; by default once what is still to come before the auto threshold is no more than
   * the tail the synchronous path would keep now (its turns within `tailTokens`): what follows the
   * snapshot is kept verbatim at the swap, so the context after it is about the synchronous path's.
   */
  private prefires(ctx: CompactionContext, measured: Measurement, tokens: number, growth: number): boolean {
    const { cfg } = this.host;
    const head = this.host.head();
    const budget = head.budgets(measured.systemRaw + measured.toolsRaw).tailTokens;
    const due = this.dueAt(tokens);
    if (tokens < prefirePoint(cfg, due, budget)) return false;
    if (cfg.prefire !== undefined || tokens >= due) return true;
    const kept = selectSplit(ctx.history, { tailTurns: cfg.tailTurns, tailTokens: budget }, (m) => head.ratio * head.deps.counter.countMessage(m));
    return tokens >= due - kept.tailTokens + growth;
  }

  /** Where an automatic swap is due: the auto threshold, or the hard limit while the cooldown after the last compaction holds. */
  private dueAt(tokens: number): number {
    return this.host.guards.coolingDown(tokens) ? this.host.ladder.blocking : this.host.ladder.auto;
  }

  /** The larger growth of the last two steps (a tool call's result and an answer alternate): the next step's, guessed. */
  private grown(tokens: number): number {
    this.seen = [...this.seen.slice(-2), tokens];
    const [a, b, c] = this.seen;
    return a === undefined || b === undefined || c === undefined ? 0 : Math.max(b - a, c - b, 0);
  }

  /** The swap: the draft assembled with what followed it, warmed first where the cache applies. */
  private async swap(
    job: BackgroundJob,
    draft: HeadDraft,
    ctx: CompactionContext,
    tokens: number,
    force: boolean,
    warmFirst: boolean,
    ahead = false,
  ): Promise<Outcome | 'later' | 'diverged'> {
    const w = job.warm;
    if ((w && !w.done && !force) || (w && ahead)) return 'later';
    const history = ctx.history;
    const reuse = w?.done && w.upTo <= history.length && history[w.upTo - 1]?.id === w.lastId ? w.checkpoint : undefined;
    const a = await assembleHead(this.host.head(), draft, { history, tokensBefore: tokens, restore: true, signal: job.signal, force, checkpoint: reuse });
    if (a === 'wait') return 'later';
    if (a === 'diverged') return a;
    if (!a.outcome.commit || !a.messages || !a.checkpoint) {
      // not yet due: the swap at the threshold decides
      if (ahead) return 'later';
      this.job = undefined;
      return a.outcome;
    }
    const warm = warmFirst ? this.host.warm : undefined;
    // the first request after the swap is this history: warmed (unless it is the checkpoint
    // alone, closing a thinking loop, or the hard limit leaves no time), it reads it from the cache
    if (!warm || reuse || force || a.closesLoop) return ahead ? 'later' : a.outcome;
    const messages = a.messages;
    const state: WarmState = { checkpoint: a.checkpoint, upTo: history.length, lastId: history.at(-1)?.id, done: false, promise: Promise.resolve() };
    state.promise = warm(messages, job.signal)
      .catch(() => undefined) // a failed warm-up leaves a cold swap, nothing worse
      .then(() => {
        state.done = true;
        if (!job.signal.aborted) this.host.settled();
      });
    job.warm = state;
    return 'later';
  }

  /**
   * /compact that waits for its summary (-p /compact), under the summary deadline: a summarizer
   * that does not answer in time gets a compaction without a summary instead.
   */
  async manual(run: LlmRun): Promise<Outcome> {
    const { ctx, measured, tokensBefore, signal, emit } = run;
    const job = this.start('manual', ctx, measured, tokensBefore, run.focus, emit);
    const cancel = (): void => void this.cancel();
    signal.addEventListener('abort', cancel, { once: true });
    await job.done;
    signal.removeEventListener('abort', cancel);
    if (job.timedOut && !job.draft()) {
      this.cancel();
      return summarizeHead(this.host.head(), { ...run, summaryless: `the summarizer did not answer within ${this.host.cfg.summaryDeadlineSeconds} s` });
    }
    const [outcome] = (await this.step(ctx, measured, tokensBefore, emit, { idle: true, warm: false })).outcomes;
    this.cancel();
    return outcome ?? { record: bareRecord(this.host.now(), 'manual', tokensBefore, job.startedAt, { status: 'failed', reason: CANCELLED }) };
  }

  /** A summary without a summary request: the ledger, the person's words and Recall handles (the hard limit). */
  private async fallback(ctx: CompactionContext, measured: Measurement, tokens: number, reason: string, emit: Emit): Promise<Outcome> {
    const signal = new AbortController().signal;
    return summarizeHead(this.host.head(), { trigger: 'auto', ctx, measured, tokensBefore: tokens, restore: true, signal, emit, summaryless: reason });
  }

  /** A job that wrote no draft: counted against the breaker (a cancel is not), shown once per distinct failure. */
  private failure(job: BackgroundJob, outcome: Outcome, emit: Emit): Outcome {
    const reason = outcome.record.reason ?? 'unknown error';
    if (outcome.record.status === 'failed' && reason !== CANCELLED) {
      this.lastFailure = reason;
      if (job.trigger === 'auto') {
        const opened = this.host.guards.autoFailed(reason);
        if (opened) emit({ type: 'compaction_skipped', trigger: 'auto', reason: opened });
      }
    }
    if (reason === this.lastShown) {
      // recorded, not shown again: the live row closes quietly
      emit({ type: 'compaction_skipped', trigger: job.trigger, reason });
      return { ...outcome, skipped: true };
    }
    this.lastShown = reason;
    return outcome;
  }
}
