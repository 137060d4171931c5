import type { ModelLimits } from '../config/models.js';
import type { CompactionConfig } from '../config/schema.js';
import type { OverflowInfo } from '../llm/errors.js';
import { emptyUsage, newId, type Message, type Usage } from '../llm/messages.js';
import type { ToolSpec } from '../llm/provider.js';
import { historyProblems } from '../llm/validate.js';
import { compactionBudgets, contextUsage, thresholds, type ContextUsage, type Thresholds } from './budget.js';
import { assembleHistory, buildCheckpointMessage, checkpointSummary } from './checkpoint.js';
import {
  autoDecision,
  breakerMessage,
  clearExhausted,
  guardNotice,
  markTold,
  normalizeState,
  recordAutoFailure,
  recordCompactionApplied,
  recordExhausted,
  recordProgress,
  recordSuccess,
  recordTurn,
  type CompactionState,
} from './guards.js';
import { measure, MIN_CALIBRATION_TOKENS, rawMessagesOf, updateCalibration, type Measurement, type RequestParts } from './meter.js';
import { applyMicro, selectMicro, type DescribeToolUse, type MicroResult } from './micro.js';
import { microWorthIt, type MicroPolicy } from './microPolicy.js';
import { detectSilentOverflow, reactiveTailBudget } from './overflow.js';
import { buildRestoration, type ReadFile, type Restoration } from './restore.js';
import { partitionHead, selectSplit } from './split.js';
import { Summarizer, SummaryFailure, type SummarizerModel, type SummaryResult } from './summarize.js';
import { FILE_EDIT_TOOLS } from './modified.js';
import type { TokenCounter } from './tokens.js';
import { needsExactCounts, observeUncounted, roughTokens, type Reported } from './uncounted.js';
import type { CompactionChange, CompactionEvent, CompactionRecord, CompactionTrigger } from './types.js';

export interface EngineDeps {
  config: CompactionConfig;
  /** The session model's limits (a ResolvedModel's `name` is used when `model` is absent). */
  limits: ModelLimits & { name?: string };
  /** The session model's name: the key of its calibration ratio. Default limits.name, else the summarizer's model. */
  model?: string;
  /** Who writes summaries: compaction.model, or the session's model. */
  summarizer: SummarizerModel;
  counter: TokenCounter;
  /** Tools whose old results micro compaction may clear. */
  compactableTools: readonly string[];
  /** Tools whose `path` input is a file read or edited (restored after compaction); default FileRead, Edit, Write. */
  fileReadTools?: readonly string[];
  /** Key argument of a tool call for placeholders (the Tool's `summarize`); default: command / path / pattern / query. */
  describeToolUse?: DescribeToolUse;
  readFile?: ReadFile;
  now?: () => number;
  /**
   * Set when the summarizer is the session's own model and prompt caching is on: the summary is
   * asked of the session's request as it stands (inPlace.ts), so it reads the prompt cache.
   */
  inPlaceSummary?: { cacheKey?: string | undefined } | undefined;
  /** Prompt caching is on with entries living this long: micro compaction minds the cache (microPolicy.ts). */
  cacheTtlMs?: number | undefined;
  /** 'every-call' clears whenever something is clearable (for comparison in the benchmark). */
  microPolicy?: MicroPolicy | undefined;
  /** Watch replies for a server that truncated the prompt silently (OpenAI-compatible servers only); default true. */
  silentOverflowDetection?: boolean;
}

export type CompactionContext = RequestParts;
export type Emit = (event: CompactionEvent) => void;

/**
 * One compaction attempt, planned and not yet committed: `change` is present iff
 * record.status === 'applied'. The session commits it (or records the failure) and then
 * emits its compaction_end; `skipped` attempts were announced by compaction_skipped instead.
 */
export interface Outcome {
  record: CompactionRecord;
  change?: CompactionChange;
  skipped?: true;
}
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

interface MicroPlan {
  result: MicroResult;
  tokensAfter: number;
}

interface LlmRun {
  trigger: Exclude<CompactionTrigger, 'micro'>;
  ctx: CompactionContext;
  measured: Measurement;
  tokensBefore: number;
  focus?: string | undefined;
  /** Tail budget overriding the configured one (reactive). */
  tailBudget?: number;
  restore: boolean;
  signal: AbortSignal;
  emit: Emit;
}

/**
 * The compaction engine of one session: token accounting (anchored, calibrated), the threshold
 * ladder, the tiers (micro, auto, reactive, manual) and their guards. It never mutates what it
 * is given: a successful compaction comes back as a CompactionChange for the session to apply
 * and persist; a failed one changes nothing.
 */
export class CompactionEngine {
  private readonly deps: EngineDeps;
  private readonly cfg: CompactionConfig;
  private readonly ladder: Thresholds;
  private readonly summarizer: Summarizer;
  private readonly now: () => number;
  private readonly model: string;
  private st: CompactionState;
  /** The provider's count of the last request, while exact counts are not needed (see observeResponse). */
  private lastReported: Reported | undefined;

  constructor(deps: EngineDeps, state?: CompactionState | unknown) {
    this.deps = deps;
    this.cfg = deps.config;
    this.ladder = thresholds(deps.limits, deps.config);
    this.summarizer = new Summarizer(deps.summarizer, deps.counter);
    this.now = deps.now ?? Date.now;
    this.model = deps.model ?? deps.limits.name ?? deps.summarizer.model;
    this.st = normalizeState(state);
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
    return this.measureCtx(ctx).tokens;
  }

  usage(ctx: CompactionContext): ContextUsage {
    const tokens = this.deps.counter.ready ? this.measureCtx(ctx).tokens : roughTokens(this.deps.counter, ctx, this.lastReported, this.ratio());
    const stopped = this.st.breakerOpen || this.st.exhausted || this.st.thrashStopped;
    return contextUsage(tokens, this.ladder, { autoCompactEnabled: this.cfg.auto && !stopped, notice: guardNotice(this.st, this.cfg, this.ladder) });
  }

  /**
   * Before every model call. Above the micro threshold, old tool outputs are cleared; when that
   * would not bring the context under the auto threshold (and the guards allow), auto compaction
   * runs instead, so the summary is written from the full outputs, and clearing remains the
   * fallback should the summary fail. Apply the outcomes' changes in order.
   */
  async beforeCall(ctx: CompactionContext, signal: AbortSignal, emit: Emit): Promise<Outcome[]> {
    if (!this.deps.counter.ready) {
      // an upper bound below every threshold settles it: measuring would find nothing to do
      if (!needsExactCounts(this.deps.counter, ctx, this.ladder, this.ratio())) {
        if (this.st.exhausted) clearExhausted(this.st);
        return [];
      }
      await this.deps.counter.load();
    }
    const measured = this.measureCtx(ctx);
    const tokens = measured.tokens;
    if (this.st.exhausted && tokens < this.ladder.auto) clearExhausted(this.st);
    if (!this.cfg.auto || ctx.history.length === 0 || tokens < this.ladder.micro) return [];
    // clearing rewrites the cached prompt from the first cleared output on: microPolicy.ts says when it is worth it
    // `plan` is what could be cleared; `micro` that, when worth it now; a plan not worth it still
    // serves as the fallback when auto compaction cannot run or fails
    const plan = this.planMicro(ctx, measured, 1);
    const micro = plan && this.microWorth(plan, tokens) ? plan : undefined;
    const afterMicro = micro ? micro.tokensAfter : tokens;
    if (afterMicro < this.ladder.auto) return micro ? [this.commitMicro(ctx, measured, micro, emit)] : [];
    const decision = autoDecision(this.st, this.cfg, plan ? plan.tokensAfter : tokens, this.ladder);
    if (!decision.run) {
      if (decision.announce) {
        emit({ type: 'compaction_skipped', trigger: 'auto', reason: decision.reason });
        markTold(this.st);
      }
      return plan ? [this.commitMicro(ctx, measured, plan, emit)] : [];
    }
    const outcome = await this.llmCompact({ trigger: 'auto', ctx, measured, tokensBefore: tokens, restore: true, signal, emit });
    const { record } = outcome;
    if (record.status === 'applied') {
      recordSuccess(this.st);
      this.st.cooldownTurnsLeft = this.cfg.cooldownTurns;
      recordCompactionApplied(this.st);
      this.settleExhausted(record.tokensAfter);
    } else if (record.status === 'ineffective') {
      recordExhausted(this.st, record.tokensBefore);
    } else if (record.reason !== CANCELLED) {
      const wasOpen = this.st.breakerOpen;
      recordAutoFailure(this.st, this.cfg, record.reason ?? 'unknown error');
      if (this.st.breakerOpen && !wasOpen) {
        emit({ type: 'compaction_skipped', trigger: 'auto', reason: breakerMessage(this.st, this.cfg) });
        this.st.breakerTold = true;
      }
    }
    if (outcome.change || !plan || record.reason === CANCELLED) return [outcome];
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
      return { record: this.bareRecord('reactive', measured.tokens, this.now(), { status: 'failed', reason }), skipped: true };
    }
    const fixedRaw = measured.systemRaw + measured.toolsRaw;
    const budgets = this.budgets(fixedRaw);
    const pinnedRaw = ctx.history.reduce((sum, m) => (m.pinned ? sum + this.deps.counter.countMessage(m) : sum), 0);
    const tailBudget = reactiveTailBudget({
      overflow,
      estimatedTokens: measured.tokens,
      thresholds: this.ladder,
      fixedTokens: this.ratio() * (fixedRaw + pinnedRaw) + budgets.summaryMaxTokens,
      tailTokens: budgets.tailTokens,
      attempt,
    });
    const outcome = await this.llmCompact({ trigger: 'reactive', ctx, measured, tokensBefore: measured.tokens, tailBudget, restore: false, signal, emit });
    if (outcome.record.status === 'applied') {
      recordSuccess(this.st);
      recordCompactionApplied(this.st);
      this.settleExhausted(outcome.record.tokensAfter);
    }
    return outcome;
  }

  /** /compact [focus]: compacts now, whatever the thresholds and guards; the focus steers the summary. */
  async manual(ctx: CompactionContext, focus: string | undefined, signal: AbortSignal, emit: Emit): Promise<Outcome> {
    await this.deps.counter.load();
    const measured = this.measureCtx(ctx);
    const f = focus?.trim() ? focus.trim() : undefined;
    const outcome = await this.llmCompact({ trigger: 'manual', ctx, measured, tokensBefore: measured.tokens, focus: f, restore: true, signal, emit });
    if (outcome.record.status === 'applied') {
      recordSuccess(this.st);
      this.settleExhausted(outcome.record.tokensAfter);
    }
    return outcome;
  }

  /**
   * After each response: `reportedInputTokens` is what the provider counted for the request
   * (for Anthropic input + cache read + cache write). Calibrates the model's ratio, anchors the
   * accounting on the real figure, and flags a silent overflow (a server that truncated).
   */
  observeResponse(sent: { system: string; tools: readonly ToolSpec[]; messages: readonly Message[] }, reportedInputTokens: number): ResponseObservation {
    const { counter } = this.deps;
    if (!counter.ready) {
      const seen = observeUncounted(counter, sent.messages, reportedInputTokens, this.lastReported, this.ladder.contextWindow);
      this.lastReported = seen.reported;
      delete this.st.anchor;
      if (seen.silent) return { estimated: seen.estimated, ratio: this.ratio(), silentOverflow: seen.silent.message, overflow: seen.silent.overflow };
      recordProgress(this.st);
      return { estimated: reportedInputTokens, ratio: this.ratio() };
    }
    const systemRaw = counter.countSystem(sent.system);
    const toolsRaw = counter.countToolSpecs(sent.tools);
    const rawMessages = rawMessagesOf(counter, sent.messages, this.st.anchor);
    const raw = systemRaw + toolsRaw + rawMessages;
    const estimated = Math.round(this.ratio() * raw);
    // the last reported anchor (kept in the saved state) is the previous response of this conversation
    const a = this.st.anchor;
    const previous = a?.source === 'reported' ? { reported: a.tokens, estimated: Math.round(this.ratio() * (a.systemRaw + a.toolsRaw + a.rawMessages)) } : undefined;
    const silent =
      this.deps.silentOverflowDetection === false ? undefined : detectSilentOverflow({ reported: reportedInputTokens, estimated, contextWindow: this.ladder.contextWindow, previous });
    if (silent) {
      delete this.st.anchor;
      return { estimated, ratio: this.ratio(), silentOverflow: silent.message, overflow: silent.overflow };
    }
    recordProgress(this.st);
    this.st.lastResponseAt = this.now();
    if (reportedInputTokens > 0 && raw >= MIN_CALIBRATION_TOKENS) {
      this.st.calibration[this.model] = updateCalibration(this.st.calibration[this.model], reportedInputTokens / raw);
    }
    const first = sent.messages[0];
    const last = sent.messages[sent.messages.length - 1];
    if (first && last && reportedInputTokens > 0) {
      this.st.anchor = {
        count: sent.messages.length,
        firstId: first.id,
        lastId: last.id,
        rawMessages,
        systemRaw,
        toolsRaw,
        tokens: reportedInputTokens,
        source: 'reported',
      };
    }
    return { estimated, ratio: this.ratio() };
  }

  /**
   * The session committed this change: the accounting re-anchors on the history as committed
   * (its estimate, until the next response reports the real figure).
   */
  committed(change: CompactionChange, sent: { system: string; tools: readonly ToolSpec[] }): void {
    const { counter } = this.deps;
    const first = change.messages[0];
    const last = change.messages[change.messages.length - 1];
    if (!first || !last || !counter.ready) {
      delete this.st.anchor;
      return;
    }
    this.st.anchor = {
      count: change.messages.length,
      firstId: first.id,
      lastId: last.id,
      rawMessages: counter.countMessages(change.messages),
      systemRaw: counter.countSystem(sent.system),
      toolsRaw: counter.countToolSpecs(sent.tools),
      tokens: change.record.tokensAfter,
      source: 'estimate',
    };
  }

  /** The history was replaced outside compaction (a /rewind): the next count starts from estimates. */
  historyReplaced(): void {
    delete this.st.anchor;
  }

  /** A user turn finished: the cooldown counts down, a thrash stop lifts. */
  turnCompleted(): void {
    recordTurn(this.st);
  }

  private measureCtx(ctx: CompactionContext): Measurement {
    const m = measure(this.deps.counter, ctx, this.st.anchor, this.ratio());
    if (m.anchor && m.anchor !== this.st.anchor) this.st.anchor = m.anchor;
    return m;
  }

  private budgets(fixedRaw: number) {
    return compactionBudgets(this.ladder, this.cfg, this.ratio() * fixedRaw, this.deps.summarizer.limits.maxOutputTokens);
  }

  private settleExhausted(tokensAfter: number): void {
    if (tokensAfter >= this.ladder.auto) recordExhausted(this.st, tokensAfter);
    else clearExhausted(this.st);
  }

  private microWorth(plan: MicroPlan, tokens: number): boolean {
    return microWorthIt({
      tokens,
      auto: this.ladder.auto,
      savedTokens: tokens - plan.tokensAfter,
      cleared: plan.result.cleared.length,
      keepRecent: this.cfg.microKeepRecent,
      cacheTtlMs: this.deps.cacheTtlMs,
      lastResponseAt: this.st.lastResponseAt,
      now: this.now(),
      policy: this.deps.microPolicy,
    });
  }

  /** Which old tool outputs micro compaction would clear, and the context after; undefined when none. */
  private planMicro(ctx: CompactionContext, measured: Measurement, minBatch: number): MicroPlan | undefined {
    const { counter } = this.deps;
    const candidates = selectMicro(
      ctx.history,
      { compactableTools: this.deps.compactableTools, keepRecent: this.cfg.microKeepRecent, ...(this.deps.describeToolUse ? { describe: this.deps.describeToolUse } : {}) },
      counter,
    );
    if (candidates.length < minBatch) return undefined;
    const result = applyMicro(ctx.history, candidates, counter);
    if (result.savedRaw <= 0) return undefined;
    return { result, tokensAfter: Math.max(0, Math.round(measured.tokens - this.ratio() * result.savedRaw)) };
  }

  private commitMicro(ctx: CompactionContext, measured: Measurement, plan: MicroPlan, emit: Emit): Outcome {
    const { result } = plan;
    const started = this.now();
    emit({ type: 'compaction_start', trigger: 'micro', tokensBefore: measured.tokens });
    const record = this.bareRecord('micro', measured.tokens, started, {
      status: 'applied',
      tokensAfter: plan.tokensAfter,
      archivedCount: result.cleared.length,
      preservedCount: ctx.history.length,
      method: 'none',
    });
    delete this.st.anchor;
    return { record, change: { record, messages: result.messages, archivedIds: [], added: [], replaced: result.replaced, cleared: result.cleared } };
  }

  /** Summarizes the head and keeps the tail (auto, reactive, manual). */
  private async llmCompact(run: LlmRun): Promise<Outcome> {
    const { trigger, ctx, measured, signal, emit } = run;
    const { counter } = this.deps;
    const started = this.now();
    const id = newId('c');
    const progress = (stage: string): void => emit({ type: 'compaction_progress', trigger, stage });
    emit({ type: 'compaction_start', trigger, ...(run.focus ? { focus: run.focus } : {}), tokensBefore: run.tokensBefore });
    const finish = (fields: Partial<CompactionRecord> & Pick<CompactionRecord, 'status'>, usage: Usage = emptyUsage()): Outcome => ({
      record: this.bareRecord(trigger, run.tokensBefore, started, { ...fields, id, usage, model: this.deps.summarizer.model, ...(run.focus ? { focus: run.focus } : {}) }),
    });
    if (signal.aborted) return finish({ status: 'failed', reason: CANCELLED });

    const fixedRaw = measured.systemRaw + measured.toolsRaw;
    const budgets = this.budgets(fixedRaw);
    const ratio = this.ratio();
    const tokensOf = (m: Message): number => ratio * counter.countMessage(m);
    const history = ctx.history;
    progress('choosing what to keep');
    const split = selectSplit(history, { tailTurns: this.cfg.tailTurns, tailTokens: run.tailBudget ?? budgets.tailTokens }, tokensOf);
    const head = partitionHead(history.slice(0, split.index));
    if (head.summarize.length === 0) {
      const reason = 'nothing to compact: what came before the kept recent turns is only the checkpoint and pinned messages';
      return finish({ status: 'ineffective', reason: split.index === 0 ? 'nothing to compact yet: the conversation fits in the kept recent turns' : reason, tokensAfter: run.tokensBefore, method: 'none' });
    }
    const tail = history.slice(split.index);

    let summary: SummaryResult;
    try {
      summary = await this.summarizer.summarize({
        messages: head.summarize,
        previous: head.previous ? checkpointSummary(head.previous) : undefined,
        focus: run.focus,
        maxTokens: budgets.summaryMaxTokens,
        inputTokens: this.cfg.summaryInputTokens,
        concurrency: this.cfg.chunkConcurrency,
        verify: this.cfg.verify,
        signal,
        progress,
        describe: this.deps.describeToolUse,
        // a reactive compaction follows "prompt too long": the request as it stands cannot be sent
        shared:
          this.deps.inPlaceSummary && trigger !== 'reactive'
            ? { system: ctx.system, tools: ctx.tools, history, keptFrom: split.index, tokens: measured.tokens, cacheKey: this.deps.inPlaceSummary.cacheKey }
            : undefined,
      });
    } catch (e) {
      const f = e instanceof SummaryFailure ? e : new SummaryFailure(e instanceof Error ? e.message : String(e));
      return finish({ status: 'failed', reason: f.aborted ? CANCELLED : f.message, tokensAfter: run.tokensBefore });
    }

    let restoration: Restoration | undefined;
    if (run.restore) {
      progress('restoring recent requests and files');
      restoration = await buildRestoration(
        head.archived,
        tail,
        {
          budget: budgets.restoreTokens,
          fileBudget: budgets.restoreFileTokens,
          maxFiles: this.cfg.restoreFiles,
          fileReadTools: this.deps.fileReadTools ?? ['FileRead', ...FILE_EDIT_TOOLS],
          readFile: this.deps.readFile,
          signal,
        },
        counter,
      );
    }
    if (signal.aborted) return finish({ status: 'failed', reason: CANCELLED, tokensAfter: run.tokensBefore }, summary.usage);

    const checkpoint = buildCheckpointMessage({ compactionId: id, summary: summary.text, archivedCount: head.archived.length, restoration, createdAt: this.now() });
    const { messages, bridges } = assembleHistory(checkpoint, head.pinnedUnits, tail, this.now());
    const problems = historyProblems(messages);
    if (problems.length > 0) {
      return finish({ status: 'failed', reason: `the compacted history would be invalid (${problems[0]})`, tokensAfter: run.tokensBefore }, summary.usage);
    }
    const rawAfter = counter.countMessages(messages);
    const tokensAfter = Math.round(ratio * (fixedRaw + rawAfter));
    const fields = {
      tokensAfter,
      archivedCount: head.archived.length,
      preservedCount: head.pinnedUnits.reduce((n, u) => n + u.length, 0) + tail.length,
      summaryTokens: counter.countText(summary.text),
      summary: summary.text,
      method: summary.method,
    };
    if (tokensAfter >= run.tokensBefore) {
      return finish({ ...fields, status: 'ineffective', reason: 'the compacted context would not be smaller than the current one' }, summary.usage);
    }
    const record = this.bareRecord(trigger, run.tokensBefore, started, {
      ...fields,
      id,
      status: 'applied',
      usage: summary.usage,
      model: this.deps.summarizer.model,
      ...(run.focus ? { focus: run.focus } : {}),
    });
    delete this.st.anchor;
    return {
      record,
      change: { record, messages, archivedIds: head.archived.map((m) => m.id), added: [checkpoint, ...bridges], replaced: [], cleared: [] },
    };
  }

  private bareRecord(
    trigger: CompactionTrigger,
    tokensBefore: number,
    started: number,
    fields: Partial<CompactionRecord> & Pick<CompactionRecord, 'status'>,
  ): CompactionRecord {
    const now = this.now();
    return {
      id: newId('c'),
      trigger,
      tokensBefore,
      tokensAfter: tokensBefore,
      archivedCount: 0,
      preservedCount: 0,
      summaryTokens: 0,
      durationMs: Math.max(0, now - started),
      model: '',
      usage: emptyUsage(),
      createdAt: now,
      ...fields,
    };
  }
}

/** The reason of an attempt the person cancelled (it does not count as a failure). */
export const CANCELLED = 'cancelled';
