// The LLM tiers' plan (auto, reactive, manual): choose the tail to keep, summarize the head,
// restore recent requests and files, and assemble the compacted history. Nothing is committed
// here: the outcome goes back through the engine to the session.
import { historyProblems } from '../llm/validate.js';
import type { Block, Message, Usage } from '../llm/messages.js';
import { addUsage, emptyUsage, newId } from '../llm/messages.js';
import type { compactionBudgets } from './budget.js';
import { assembleHistory, buildCheckpointMessage, checkpointSummary } from './checkpoint.js';
import type { CompactionContext, EngineDeps, ProviderCompaction } from './engineDeps.js';
import type { Measurement } from './meter.js';
import { FILE_EDIT_TOOLS } from './modified.js';
import { bareRecord, CANCELLED, type Emit, type Outcome } from './outcome.js';
import { checkSummary, compactionLedger, ledgerTokens } from './ledgerStep.js';
import type { Ledger } from '../ledger/types.js';
import { buildRestoration, type Restoration } from './restore.js';
import { openLoopText, openThinkingLoop } from './openLoop.js';
import { isTurnStart, partitionHead, selectSplit, type Split } from './split.js';
import { SummaryFailure, type Summarizer, type SummaryJob, type SummaryResult } from './summarize.js';
import type { ProbeResults } from '../ledger/probes.js';
import { contextRaw } from './thinkingRoom.js';
import { withoutImages } from '../llm/withoutImages.js';
import type { CompactionRecord, CompactionTrigger } from '../history/compaction.js';
import { promptText } from '../promptText.js';
import PROVIDER_SUMMARY from './providerSummary.md';
import { TOOL } from '../tools/toolNames.js';

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

/** Summarizes the head and keeps the tail (auto, reactive, manual): the plan of an LLM compaction, nothing committed. */
export async function summarizeHead(d: HeadDeps, run: LlmRun): Promise<Outcome> {
  const { trigger, ctx, measured, signal, emit } = run;
  const { counter } = d.deps;
  const started = d.now();
  const id = newId('c');
  const progress = (stage: string): void => emit({ type: 'compaction_progress', trigger, stage });
  emit({ type: 'compaction_start', trigger, ...(run.focus ? { focus: run.focus } : {}), tokensBefore: run.tokensBefore });
  const finish = (fields: Partial<CompactionRecord> & Pick<CompactionRecord, 'status'>, usage: Usage = emptyUsage()): Outcome => ({
    record: bareRecord(d.now(), trigger, run.tokensBefore, started, {
      ...fields,
      id,
      usage,
      model: d.deps.summarizer.model,
      ...(run.focus ? { focus: run.focus } : {}),
    }),
  });
  if (signal.aborted) return finish({ status: 'failed', reason: CANCELLED });

  const fixedRaw = measured.systemRaw + measured.toolsRaw;
  const budgets = d.budgets(fixedRaw);
  const ratio = d.ratio;
  const tokensOf = (m: Message): number => ratio * counter.countMessage(m);
  const history = ctx.history;
  progress('choosing what to keep');
  // a tool loop in progress whose replies think is closed into the checkpoint, never kept after it
  const loopStart = openThinkingLoop(history);
  const split: Split =
    loopStart !== undefined
      ? { index: history.length, kind: 'step', tailTokens: 0, turns: 0 }
      : selectSplit(history, { tailTurns: d.deps.config.tailTurns, tailTokens: run.tailBudget ?? budgets.tailTokens }, tokensOf);
  const first = await planSplit(d, run, { split, loopStart, finish, progress, started, id });
  if (first.record.status !== 'ineffective' || loopStart !== undefined) return first;
  // not smaller, or nothing before the tail but a checkpoint: the kept recent turns held most of the
  // context (a short session of large turns); the least tail there is (the current step) leaves
  // the summary more to take
  const least = selectSplit(history, { tailTurns: 0, tailTokens: 0 }, tokensOf);
  if (least.index <= split.index) return first;
  progress('keeping less: the recent turns held most of the context');
  const second = await planSplit(d, run, { split: least, loopStart, finish, progress, started, id });
  // the record counts both summaries' usage, the one not kept too
  const record = { ...second.record, usage: addUsage(first.record.usage, second.record.usage) };
  return second.commit ? { record, commit: { ...second.commit, record } } : { record };
}

interface SplitPlan {
  split: Split;
  /** Where a tool loop in progress whose replies think begins (closed into the checkpoint). */
  loopStart: number | undefined;
  finish: (fields: Partial<CompactionRecord> & Pick<CompactionRecord, 'status'>, usage?: Usage) => Outcome;
  progress: (stage: string) => void;
  started: number;
  id: string;
}

/** The plan for one choice of tail: summarize the head before it, restore, assemble; refused when it would not be smaller. */
async function planSplit(d: HeadDeps, run: LlmRun, plan: SplitPlan): Promise<Outcome> {
  const { trigger, ctx, measured, signal } = run;
  const { split, loopStart, finish, progress, started, id } = plan;
  const { counter } = d.deps;
  const fixedRaw = measured.systemRaw + measured.toolsRaw;
  const budgets = d.budgets(fixedRaw);
  const ratio = d.ratio;
  const history = ctx.history;
  const head = partitionHead(history.slice(0, split.index));
  if (head.summarize.length === 0) {
    const reason = 'nothing to compact: what came before the kept recent turns is only the checkpoint and pinned messages';
    return finish({
      status: 'ineffective',
      reason: split.index === 0 ? 'nothing to compact yet: the conversation fits in the kept recent turns' : reason,
      tokensAfter: run.tokensBefore,
      method: 'none',
    });
  }
  const tail = history.slice(split.index);
  // the working state, derived from the log before anything is summarized (ledger/)
  const ledger: Ledger | undefined =
    d.deps.ledger && d.deps.config.ledger
      ? compactionLedger(d.deps.ledger, history, [...head.pinnedUnits.flat(), ...tail], ledgerTokens(d.effective), counter, d.deps.describeToolUse)
      : undefined;

  const summarized = await summarizeStep(d, run, progress, { head, splitIndex: split.index, ledger, summaryMaxTokens: budgets.summaryMaxTokens });
  if ('failure' in summarized) return finish({ status: 'failed', reason: summarized.failure, tokensAfter: run.tokensBefore });
  const { summary, probes, provided } = summarized;

  let restoration: Restoration | undefined;
  if (run.restore) {
    progress('restoring recent requests and files');
    restoration = await restoreStep(d, signal, { archived: head.archived, tail, ledger, budgets });
  }
  if (signal.aborted) return finish({ status: 'failed', reason: CANCELLED, tokensAfter: run.tokensBefore }, summary.usage);

  const checkpoint = buildCheckpointMessage({
    compactionId: id,
    summary: summary.text,
    archivedCount: head.archived.length,
    restoration,
    ledger: ledger?.text,
    createdAt: d.now(),
    ...(loopStart !== undefined ? { openLoop: openLoopText(history.slice(loopStart)) } : {}),
  });
  // the encrypted item goes right after the checkpoint's text, as responses.compact returns it
  if (provided) checkpoint.blocks.splice(1, 0, provided.block);
  const { messages, bridges } = assembleHistory(checkpoint, head.pinnedUnits, tail, d.now());
  const problems = historyProblems(messages);
  if (problems.length > 0) {
    return finish({ status: 'failed', reason: `the compacted history would be invalid (${problems[0]})`, tokensAfter: run.tokensBefore }, summary.usage);
  }
  const rawAfter = contextRaw(counter, messages, d.deps.thinkingRoom ?? 'all');
  const tokensAfter = Math.round(ratio * (fixedRaw + rawAfter));
  const fields = {
    tokensAfter,
    archivedCount: head.archived.length,
    preservedCount: head.pinnedUnits.reduce((n, u) => n + u.length, 0) + tail.length,
    summaryTokens: counter.countText(summary.text),
    summary: summary.text,
    method: summary.method,
    ...(ledger
      ? {
          report: {
            ledger: { tokens: ledger.tokens, sections: ledger.sections },
            ...(probes ? { probes } : {}),
            archived: { first: head.archived[0]!.id, last: head.archived[head.archived.length - 1]!.id },
          },
        }
      : {}),
  };
  if (tokensAfter >= run.tokensBefore) {
    const kept = `it keeps ${split.turns > 1 ? `the last ${split.turns} turns` : split.turns === 1 ? 'the last turn' : 'the current step'} (${Math.round(ratio * split.tailTokens).toLocaleString('en-US')} tokens) and a ${fields.summaryTokens.toLocaleString('en-US')}-token summary`;
    const reason = `the compacted context would not be smaller than the current one (${tokensAfter.toLocaleString('en-US')} vs ${run.tokensBefore.toLocaleString('en-US')} tokens: ${kept})`;
    return finish({ ...fields, status: 'ineffective', reason }, summary.usage);
  }
  const record = bareRecord(d.now(), trigger, run.tokensBefore, started, {
    ...fields,
    id,
    status: 'applied',
    usage: summary.usage,
    model: provided ? d.deps.providerCompaction!.model : d.deps.summarizer.model,
    ...(run.focus ? { focus: run.focus } : {}),
  });
  return { record, commit: { record, body: { view: messages.map((m) => m.id) }, added: [checkpoint, ...bridges], cleared: [] } };
}

/** The recent requests (where no ledger carries them) and files read that come back after the checkpoint. */
function restoreStep(
  d: HeadDeps,
  signal: AbortSignal,
  plan: { archived: readonly Message[]; tail: readonly Message[]; ledger: Ledger | undefined; budgets: ReturnType<typeof compactionBudgets> },
): Promise<Restoration> {
  const { ledger, budgets } = plan;
  return buildRestoration(
    plan.archived,
    plan.tail,
    {
      // the ledger takes the recent requests' half of the restored context, never the files' half:
      // on a small window it would take all of it, and a tiny file just read would not come back
      budget: Math.max(Math.floor(budgets.restoreTokens / 2), budgets.restoreTokens - (ledger?.tokens ?? 0)),
      requests: ledger === undefined,
      ...(ledger && d.deps.ledger ? { earlier: d.deps.ledger.archived() } : {}),
      fileBudget: budgets.restoreFileTokens,
      maxFiles: d.deps.config.restoreFiles,
      fileReadTools: d.deps.fileReadTools ?? [TOOL.FileRead, ...FILE_EDIT_TOOLS],
      readFile: d.deps.readFile,
      signal,
    },
    d.deps.counter,
  );
}

/** A summary OpenAI's responses.compact made: its text for the checkpoint and the encrypted item kept beside it. */
interface ProvidedSummary {
  summary: SummaryResult;
  block: Block;
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

/** What a checkpoint says where OpenAI's encrypted compaction item holds the summary. */
export const PROVIDER_SUMMARY_TEXT = promptText(PROVIDER_SUMMARY);

/** OpenAI's own compaction of the head; undefined when it failed (the agent's summarizer then writes the checkpoint). */
async function providerSummary(
  pc: ProviderCompaction,
  messages: readonly Message[],
  signal: AbortSignal,
  progress: (stage: string) => void,
): Promise<ProvidedSummary | undefined> {
  progress('compacting with the provider');
  try {
    const r = await pc.compact(withoutImages(messages), signal);
    return { summary: { text: PROVIDER_SUMMARY_TEXT, method: 'provider', usage: r.usage, requests: 1, verified: false }, block: r.block };
  } catch {
    if (signal.aborted) return undefined;
    progress('the provider could not compact: writing the summary instead');
    return undefined;
  }
}
