// The second half of the LLM tiers' plan: a draft's checkpoint (recent requests and files
// restored, the ledger derived from the log as it stands) assembled with everything after the
// kept split, the messages that followed the draft's snapshot included. Nothing is committed here.
import { historyProblems } from '../llm/validate.js';
import type { Message, Usage } from '../llm/messages.js';
import type { compactionBudgets } from './budget.js';
import { assembleHistory, buildCheckpointMessage } from './checkpoint.js';
import { FILE_EDIT_TOOLS } from './modified.js';
import { bareRecord, CANCELLED, type Outcome } from './outcome.js';
import type { Ledger } from '../ledger/types.js';
import { buildRestoration, type Restoration } from './restore.js';
import { openLoopText, openThinkingLoop } from './openLoop.js';
import { contextRaw } from './thinkingRoom.js';
import { TOOL } from '../tools/toolNames.js';
import { ledgerOf, type HeadDeps, type HeadDraft } from './headSummary.js';
import { fmtInt } from '../tools/format.js';

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
    const { split } = draft;
    const kept = `it keeps ${split.turns > 1 ? `the last ${split.turns} turns` : split.turns === 1 ? 'the last turn' : 'the current step'} (${fmtInt(Math.round(ratio * split.tailTokens))} tokens) and a ${fmtInt(fields.summaryTokens)}-token summary`;
    const reason = `the compacted context would not be smaller than the current one (${fmtInt(tokensAfter)} vs ${fmtInt(at.tokensBefore)} tokens: ${kept})`;
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
