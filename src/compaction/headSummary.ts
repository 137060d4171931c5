// The first half of the LLM tiers' plan (auto, reactive, manual): choose the tail to keep and
// summarize the head (headPlan.ts chooses again when that would not be smaller; headAssembly.ts
// restores and assembles). Nothing is committed here: the outcome goes back through the engine.
import type { Message, Usage } from '../llm/messages.js';
import { emptyUsage } from '../llm/messages.js';
import type { compactionBudgets } from './budget.js';
import { checkpointSummary } from './checkpoint.js';
import type { CompactionContext, EngineDeps } from './engineDeps.js';
import type { Measurement } from './meter.js';
import { bareRecord, CANCELLED, type Emit, type Outcome } from './outcome.js';
import { checkSummary, compactionLedger, ledgerTokens } from './ledgerStep.js';
import type { Ledger } from '../ledger/types.js';
import { openThinkingLoop } from './openLoop.js';
import { isTurnStart, partitionHead, selectSplit, type HeadPartition, type Split } from './split.js';
import { SummaryFailure, type Summarizer, type SummaryJob, type SummaryResult } from './summarize.js';
import type { ProbeResults } from '../ledger/probes.js';
import type { CompactionRecord, CompactionTrigger } from '../history/compaction.js';
import { promptText } from '../promptText.js';
import { providerSummary, type ProvidedSummary } from './providerSummary.js';
import NO_SUMMARY from './noSummary.md';

export interface HeadDeps {
  deps: EngineDeps;
  summarizer: Summarizer;
  now: () => number;
  /** The session model's calibration ratio. */
  ratio: number;
  budgets: (fixedRaw: number) => ReturnType<typeof compactionBudgets>;
  /** The window's effective input (thresholds.effective): the ledger's budget is a share of it. */
  effective: number;
}

export interface LlmRun {
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
  /** Written in the background while the session goes on (compaction_start says so). */
  background?: boolean | undefined;
  /** No summary is asked for: the checkpoint says why (this reason) and the ledger carries the work (the fallback at the hard limit). */
  summaryless?: string | undefined;
}

/**
 * Where the trailing messages that await a reply begin: the person's last prompt (with the
 * notes that came with it) when nothing answered it yet; the history's length otherwise. Tool
 * results are not pending: the model asked for them.
 */
export function pendingFrom(history: readonly Message[]): number {
  let i = history.length;
  while (i > 0) {
    const m = history[i - 1]!;
    if (m.role !== 'user' || m.kind === 'checkpoint' || m.blocks.some((b) => b.type === 'tool_result')) break;
    i--;
  }
  // only a run holding the person's prompt is pending (a lone note after a reply is not)
  return history.slice(i).some(isTurnStart) ? i : history.length;
}

/** The summary of an LLM compaction, written on a snapshot of the history and not yet assembled with what followed it. */
export interface HeadDraft {
  id: string;
  started: number;
  trigger: LlmRun['trigger'];
  focus?: string | undefined;
  /** The history the summary was written on: at the swap it must still begin the history. */
  snapshot: readonly Message[];
  /** snapshot[splitIndex...] stays verbatim (so does everything after the snapshot). */
  splitIndex: number;
  /** The kept tail as chosen (its turns and tokens: a refusal names them). */
  split: Split;
  /** The open tool loop (whose replies think) of the snapshot, closed into the checkpoint. */
  loopStart: number | undefined;
  head: HeadPartition;
  summary: SummaryResult;
  probes?: ProbeResults | undefined;
  provided?: ProvidedSummary | undefined;
  fixedRaw: number;
  budgets: ReturnType<typeof compactionBudgets>;
}

/** Where the kept tail begins: a tool loop in progress whose replies think is closed into the checkpoint, never kept after it; `least` keeps the least there is (the current step). */
export function chooseSplit(d: HeadDeps, run: LlmRun, least = false): { split: Split; loopStart: number | undefined } {
  const history = run.ctx.history;
  const loopStart = openThinkingLoop(history);
  if (loopStart !== undefined) return { split: { index: history.length, kind: 'step', tailTokens: 0, turns: 0 }, loopStart };
  const budgets = d.budgets(run.measured.systemRaw + run.measured.toolsRaw);
  const tokensOf = (m: Message): number => d.ratio * d.deps.counter.countMessage(m);
  const opts = least ? { tailTurns: 0, tailTokens: 0 } : { tailTurns: d.deps.config.tailTurns, tailTokens: run.tailBudget ?? budgets.tailTokens };
  return { split: selectSplit(history, opts, tokensOf), loopStart };
}

/** Whose outcome a draft's failure or refusal is: one compaction's id and start, whichever tail it tried. */
export interface HeadAttempt {
  id: string;
  started: number;
}

/** The outcome of an attempt that wrote no draft. */
export function attemptOutcome(
  d: HeadDeps,
  run: LlmRun,
  at: HeadAttempt,
  fields: Partial<CompactionRecord> & Pick<CompactionRecord, 'status'>,
  usage: Usage = emptyUsage(),
): Outcome {
  return {
    record: bareRecord(d.now(), run.trigger, run.tokensBefore, at.started, {
      ...fields,
      id: at.id,
      usage,
      model: d.deps.summarizer.model,
      ...(run.focus ? { focus: run.focus } : {}),
    }),
  };
}

/** The summary of the head before one choice of tail, checked against the ledger (or none: the fallback at the hard limit). */
export async function draftSplit(d: HeadDeps, run: LlmRun, at: HeadAttempt & { split: Split; loopStart: number | undefined }): Promise<HeadDraft | Outcome> {
  const { trigger, ctx, measured, emit } = run;
  const { split, loopStart } = at;
  const progress = (stage: string): void => emit({ type: 'compaction_progress', trigger, stage });
  const fixedRaw = measured.systemRaw + measured.toolsRaw;
  const budgets = d.budgets(fixedRaw);
  const history = ctx.history;
  const head = partitionHead(history.slice(0, split.index));
  if (head.summarize.length === 0) {
    const reason = 'nothing to compact: what came before the kept recent turns is only the checkpoint and pinned messages';
    return attemptOutcome(d, run, at, {
      status: 'ineffective',
      reason: split.index === 0 ? 'nothing to compact yet: the conversation fits in the kept recent turns' : reason,
      tokensAfter: run.tokensBefore,
      method: 'none',
    });
  }
  const tail = history.slice(split.index);
  const draft = {
    id: at.id,
    started: at.started,
    trigger,
    focus: run.focus,
    snapshot: history,
    splitIndex: split.index,
    split,
    loopStart,
    head,
    fixedRaw,
    budgets,
  };
  if (run.summaryless !== undefined) {
    const text = promptText(NO_SUMMARY, { reason: run.summaryless });
    return { ...draft, summary: { text, method: 'ledger', usage: emptyUsage(), requests: 0, verified: false } };
  }
  // the working state, derived from the log before anything is summarized (ledger/): the summary is checked against it
  const ledger = ledgerOf(d, history, [...head.pinnedUnits.flat(), ...tail]);
  const summarized = await summarizeStep(d, run, progress, { head, splitIndex: split.index, ledger, summaryMaxTokens: budgets.summaryMaxTokens });
  if ('failure' in summarized) return attemptOutcome(d, run, at, { status: 'failed', reason: summarized.failure, tokensAfter: run.tokensBefore });
  return { ...draft, ...summarized };
}

/** The working-state ledger of a history whose `kept` messages stay in view; undefined when it is off. */
export function ledgerOf(d: HeadDeps, history: readonly Message[], kept: readonly Message[]): Ledger | undefined {
  return d.deps.ledger && d.deps.config.ledger
    ? compactionLedger(d.deps.ledger, history, kept, ledgerTokens(d.effective), d.deps.counter, d.deps.describeToolUse)
    : undefined;
}

/** The head's summary: OpenAI's encrypted compaction item where the provider compacts, else the summarizer's, checked against the ledger. */
async function summarizeStep(
  d: HeadDeps,
  run: LlmRun,
  progress: (stage: string) => void,
  plan: { head: ReturnType<typeof partitionHead>; splitIndex: number; ledger: Ledger | undefined; summaryMaxTokens: number },
): Promise<{ summary: SummaryResult; probes?: ProbeResults | undefined; provided?: ProvidedSummary | undefined } | { failure: string }> {
  const { trigger, ctx, measured, signal } = run;
  const { head, ledger } = plan;
  const history = ctx.history;
  const provided = d.deps.providerCompaction
    ? await providerSummary(d.deps.providerCompaction, head.previous ? [head.previous, ...head.summarize] : head.summarize, signal, progress)
    : undefined;
  if (provided) return { summary: provided.summary, provided };
  try {
    const instructions = d.deps.instructions ? await d.deps.instructions(trigger, run.focus, signal) : run.focus;
    const job: SummaryJob = {
      messages: head.summarize,
      previous: head.previous ? checkpointSummary(head.previous) : undefined,
      focus: instructions,
      maxTokens: plan.summaryMaxTokens,
      inputTokens: d.deps.config.summaryInputTokens,
      concurrency: d.deps.config.chunkConcurrency,
      verify: d.deps.config.verify,
      signal,
      progress,
      describe: d.deps.describeToolUse,
      // a reactive compaction follows "prompt too long": the request as it stands cannot be sent.
      // A prompt not yet answered stays out of it: in the same user message as the instruction
      // the model would answer it, and that answer would become the checkpoint. It is sent after.
      shared:
        d.deps.inPlaceSummary && trigger !== 'reactive'
          ? (() => {
              const answered = history.slice(0, pendingFrom(history));
              return {
                system: ctx.system,
                tools: ctx.tools,
                history: answered,
                keptFrom: Math.min(plan.splitIndex, answered.length),
                tokens: measured.tokens,
                cacheKey: d.deps.inPlaceSummary.cacheKey,
                thinking: d.deps.inPlaceSummary.thinking,
              };
            })()
          : undefined,
    };
    const summary = await d.summarizer.summarize(job);
    if (!ledger) return { summary };
    // checked against the ledger before it is committed (ledgerStep.ts)
    const checked = await checkSummary(
      summary,
      ledger.facts,
      (instruction) => d.summarizer.summarize({ ...job, focus: job.focus ? `${job.focus}\n\n${instruction}` : instruction }),
      progress,
      signal,
    );
    return { summary: checked.summary, probes: checked.probes };
  } catch (e) {
    const f = e instanceof SummaryFailure ? e : new SummaryFailure(e instanceof Error ? e.message : String(e));
    return { failure: f.aborted ? CANCELLED : f.message };
  }
}
