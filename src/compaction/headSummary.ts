// The LLM tiers' plan (auto, reactive, manual): choose the tail to keep, summarize the head,
// restore recent requests and files, and assemble the compacted history. Nothing is committed
// here: the outcome goes back through the engine to the session.
import { historyProblems } from '../llm/validate.js';
import type { Message, Usage } from '../llm/messages.js';
import { emptyUsage, newId } from '../llm/messages.js';
import type { compactionBudgets } from './budget.js';
import { assembleHistory, buildCheckpointMessage, checkpointSummary } from './checkpoint.js';
import type { CompactionContext, EngineDeps } from './engineDeps.js';
import type { Measurement } from './meter.js';
import { FILE_EDIT_TOOLS } from './modified.js';
import { bareRecord, CANCELLED, type Emit, type Outcome } from './outcome.js';
import { checkSummary, compactionLedger, ledgerTokens } from './ledgerStep.js';
import type { Ledger } from '../ledger/types.js';
import { buildRestoration, type Restoration } from './restore.js';
import { openLoopText, openThinkingLoop } from './openLoop.js';
import { isTurnStart, partitionHead, selectSplit, type HeadPartition, type Split } from './split.js';
import { SummaryFailure, type Summarizer, type SummaryJob, type SummaryResult } from './summarize.js';
import type { ProbeResults } from '../ledger/probes.js';
import { contextRaw } from './thinkingRoom.js';
import type { CompactionRecord, CompactionTrigger } from '../history/compaction.js';
import { promptText } from '../promptText.js';
import { providerSummary, type ProvidedSummary } from './providerSummary.js';
import NO_SUMMARY from './noSummary.md';
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
  /** The open tool loop (whose replies think) of the snapshot, closed into the checkpoint. */
  loopStart: number | undefined;
  head: HeadPartition;
  summary: SummaryResult;
  probes?: ProbeResults | undefined;
  provided?: ProvidedSummary | undefined;
  fixedRaw: number;
  budgets: ReturnType<typeof compactionBudgets>;
}

/** Where a draft is assembled: the history as it stands then (its start is the draft's snapshot). */
export interface Assembly {
  history: readonly Message[];
  tokensBefore: number;
  restore: boolean;
  signal: AbortSignal;
  /** Close a thinking loop opened after the snapshot into the checkpoint rather than wait for its end (the hard limit). */
  force?: boolean;
  /** The checkpoint already built (and warmed) for an earlier state of this history: the same bytes, the ledger it carries. */
  checkpoint?: { message: Message; ledger: Ledger | undefined } | undefined;
}

/** An assembled compaction: the outcome to commit, the history it gives and its checkpoint (with the ledger it carries). */
export interface Assembled {
  outcome: Outcome;
  messages?: Message[];
  checkpoint?: { message: Message; ledger: Ledger | undefined };
  /** A thinking tool loop was closed into the checkpoint: the next request is the checkpoint alone. */
  closesLoop?: boolean;
}

/** Summarizes the head and keeps the tail (auto, reactive, manual): the plan of an LLM compaction, nothing committed. */
export async function summarizeHead(d: HeadDeps, run: LlmRun): Promise<Outcome> {
  const drafted = await draftHead(d, run);
  if (!('snapshot' in drafted)) return drafted;
  const assembled = await assembleHead(d, drafted, { history: run.ctx.history, tokensBefore: run.tokensBefore, restore: run.restore, signal: run.signal });
  return assembled === 'wait' || assembled === 'diverged' ? unexpected(d, drafted, run.tokensBefore, assembled) : assembled.outcome;
}

/** An assembly on the very history the draft was written on neither waits nor diverges; should it, nothing changes. */
function unexpected(d: HeadDeps, draft: HeadDraft, tokensBefore: number, why: string): Outcome {
  return {
    record: bareRecord(d.now(), draft.trigger, tokensBefore, draft.started, { status: 'failed', reason: `the compaction could not be assembled (${why})` }),
  };
}

/** The first half of an LLM compaction: what to keep, and the summary of the rest, checked against the ledger. */
export async function draftHead(d: HeadDeps, run: LlmRun): Promise<HeadDraft | Outcome> {
  const { trigger, ctx, measured, signal, emit } = run;
  const { counter } = d.deps;
  const started = d.now();
  const id = newId('c');
  const progress = (stage: string): void => emit({ type: 'compaction_progress', trigger, stage });
  emit({
    type: 'compaction_start',
    trigger,
    ...(run.focus ? { focus: run.focus } : {}),
    tokensBefore: run.tokensBefore,
    ...(run.background ? { background: true } : {}),
  });
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
  const draft = { id, started, trigger, focus: run.focus, snapshot: history, splitIndex: split.index, loopStart, head, fixedRaw, budgets };
  if (run.summaryless !== undefined) {
    const text = promptText(NO_SUMMARY, { reason: run.summaryless });
    return { ...draft, summary: { text, method: 'ledger', usage: emptyUsage(), requests: 0, verified: false } };
  }
  // the working state, derived from the log before anything is summarized (ledger/): the summary is checked against it
  const ledger = ledgerOf(d, history, [...head.pinnedUnits.flat(), ...tail]);
  const summarized = await summarizeStep(d, run, progress, { head, splitIndex: split.index, ledger, summaryMaxTokens: budgets.summaryMaxTokens });
  if ('failure' in summarized) return finish({ status: 'failed', reason: summarized.failure, tokensAfter: run.tokensBefore });
  return { ...draft, ...summarized };
}

/** The working-state ledger of a history whose `kept` messages stay in view; undefined when it is off. */
function ledgerOf(d: HeadDeps, history: readonly Message[], kept: readonly Message[]): Ledger | undefined {
  return d.deps.ledger && d.deps.config.ledger
    ? compactionLedger(d.deps.ledger, history, kept, ledgerTokens(d.effective), d.deps.counter, d.deps.describeToolUse)
    : undefined;
}

/**
 * The second half: the draft's checkpoint (its ledger derived again from the log as it stands)
 * with everything after the split verbatim, the messages that came after the snapshot included.
 * 'diverged': the history no longer begins with the snapshot (a rewind, an /uncompact, another
 * compaction). 'wait': a tool loop whose replies think began after the snapshot and is still
 * running: nothing may change under it until it ends (unless forced: it is closed into the checkpoint).
 */
export async function assembleHead(d: HeadDeps, draft: HeadDraft, at: Assembly): Promise<Assembled | 'wait' | 'diverged'> {
  const { counter } = d.deps;
  const { history } = at;
  const { snapshot, head, summary } = draft;
  if (history.length < snapshot.length || snapshot.some((m, i) => history[i]!.id !== m.id)) return 'diverged';
  const loopNow = openThinkingLoop(history);
  // the snapshot's own loop still running is closed as it was planned; a loop opened since waits for its end
  const sameLoop = loopNow !== undefined && loopNow === draft.loopStart;
  if (loopNow !== undefined && !sameLoop && !at.force) return 'wait';
  const closing = loopNow !== undefined;
  const tail = closing ? [] : history.slice(draft.splitIndex);
  const archived = closing ? [...head.archived, ...history.slice(draft.splitIndex)] : head.archived;
  const ratio = d.ratio;
  const ledger = at.checkpoint ? at.checkpoint.ledger : ledgerOf(d, history, [...head.pinnedUnits.flat(), ...tail]);
  let checkpoint = at.checkpoint?.message;
  if (!checkpoint) {
    let restoration: Restoration | undefined;
    if (at.restore) restoration = await restoreStep(d, at.signal, { archived, tail, ledger, budgets: draft.budgets });
    if (at.signal.aborted) return { outcome: failed(d, draft, at.tokensBefore, CANCELLED, summary.usage) };
    checkpoint = buildCheckpointMessage({
      compactionId: draft.id,
      summary: summary.text,
      archivedCount: archived.length,
      restoration,
      ledger: ledger?.text,
      createdAt: d.now(),
      ...(closing ? { openLoop: openLoopText(history.slice(loopNow)) } : {}),
    });
    // the encrypted item goes right after the checkpoint's text, as responses.compact returns it
    if (draft.provided) checkpoint.blocks.splice(1, 0, draft.provided.block);
  }
  const { messages, bridges } = assembleHistory(checkpoint, head.pinnedUnits, tail, d.now());
  const problems = historyProblems(messages);
  if (problems.length > 0) return { outcome: failed(d, draft, at.tokensBefore, `the compacted history would be invalid (${problems[0]})`, summary.usage) };
  const rawAfter = contextRaw(counter, messages, d.deps.thinkingRoom ?? 'all');
  const tokensAfter = Math.round(ratio * (draft.fixedRaw + rawAfter));
  const fields = {
    tokensAfter,
    archivedCount: archived.length,
    preservedCount: head.pinnedUnits.reduce((n, u) => n + u.length, 0) + tail.length,
    summaryTokens: counter.countText(summary.text),
    summary: summary.text,
    method: summary.method,
    ...(summary.method === 'ledger' ? { reason: summaryLessReason(summary.text) } : {}),
    ...(ledger
      ? {
          report: {
            ledger: { tokens: ledger.tokens, sections: ledger.sections },
            ...(draft.probes ? { probes: draft.probes } : {}),
            archived: { first: archived[0]!.id, last: archived[archived.length - 1]!.id },
          },
        }
      : {}),
  };
  const focus = draft.focus ? { focus: draft.focus } : {};
  if (tokensAfter >= at.tokensBefore) {
    const reason = 'the compacted context would not be smaller than the current one';
    return {
      outcome: {
        record: bareRecord(d.now(), draft.trigger, at.tokensBefore, draft.started, {
          ...fields,
          id: draft.id,
          status: 'ineffective',
          reason,
          usage: summary.usage,
          model: d.deps.summarizer.model,
          ...focus,
        }),
      },
    };
  }
  const record = bareRecord(d.now(), draft.trigger, at.tokensBefore, draft.started, {
    ...fields,
    id: draft.id,
    status: 'applied',
    usage: summary.usage,
    model: draft.provided ? d.deps.providerCompaction!.model : d.deps.summarizer.model,
    ...focus,
  });
  return {
    outcome: { record, commit: { record, body: { view: messages.map((m) => m.id) }, added: [checkpoint, ...bridges], cleared: [] } },
    messages,
    checkpoint: { message: checkpoint, ledger },
    closesLoop: closing,
  };
}

/** Why a checkpoint carries no summary, as its text says it (the receipt names it). */
function summaryLessReason(text: string): string {
  const m = /^No summary was written for this part of the conversation: (.*?)\. The working-state ledger/s.exec(text);
  return `no summary: ${m?.[1] ?? 'the summarizer did not answer'}`;
}

function failed(d: HeadDeps, draft: HeadDraft, tokensBefore: number, reason: string, usage: Usage): Outcome {
  return {
    record: bareRecord(d.now(), draft.trigger, tokensBefore, draft.started, {
      status: 'failed',
      reason,
      id: draft.id,
      usage,
      model: d.deps.summarizer.model,
      ...(draft.focus ? { focus: draft.focus } : {}),
    }),
  };
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
