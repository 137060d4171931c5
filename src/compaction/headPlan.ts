// The LLM tiers' plan (auto, reactive, manual): choose the tail to keep, summarize the head
// (headSummary.ts), restore recent requests and files and assemble the compacted history
// (headAssembly.ts). When the kept recent turns hold nearly everything (a short session of large
// turns) and the checkpoint would not be smaller, it plans again with the least tail. Nothing is
// committed here: the outcome goes back through the engine to the session.
import { addUsage, newId } from '../llm/messages.js';
import { CANCELLED, type Outcome } from './outcome.js';
import { assembleHead, type Assembled } from './headAssembly.js';
import { attemptOutcome, chooseSplit, draftSplit, type HeadDeps, type HeadDraft, type LlmRun } from './headSummary.js';

/** A draft, and its assembly on the history it was written on when that was tried (it is the plan of a synchronous run). */
interface Planned {
  draft: HeadDraft | Outcome;
  assembled?: Assembled | undefined;
}

async function planHead(d: HeadDeps, run: LlmRun): Promise<Planned> {
  const { trigger, signal, emit } = run;
  const at = { id: newId('c'), started: d.now() };
  const progress = (stage: string): void => emit({ type: 'compaction_progress', trigger, stage });
  emit({
    type: 'compaction_start',
    trigger,
    ...(run.focus ? { focus: run.focus } : {}),
    tokensBefore: run.tokensBefore,
    ...(run.background ? { background: true } : {}),
  });
  if (signal.aborted) return { draft: attemptOutcome(d, run, at, { status: 'failed', reason: CANCELLED }) };
  progress('choosing what to keep');
  const { split, loopStart } = chooseSplit(d, run);
  const first = await draftSplit(d, run, { ...at, split, loopStart });
  // a thinking loop is closed into the checkpoint whatever the tail: there is no other plan. An
  // automatic background draft is judged at its swap, not on its snapshot: by then what followed
  // the snapshot is kept verbatim and the files read since are no longer restored into the checkpoint
  if (loopStart !== undefined || (run.background && trigger === 'auto')) return { draft: first };
  const tried = 'snapshot' in first ? await assembledOn(d, run, first) : undefined;
  const refused = tried ? tried.outcome.record.status === 'ineffective' : !('snapshot' in first) && first.record.status === 'ineffective';
  if (!refused) return { draft: first, assembled: tried };
  // not smaller, or nothing before the tail but a checkpoint: the kept recent turns held most of the
  // context (a short session of large turns); the least tail there is (the current step) leaves
  // the summary more to take
  const least = chooseSplit(d, run, true).split;
  if (least.index <= split.index) return { draft: first, assembled: tried };
  progress('keeping less: the recent turns held most of the context');
  const second = await draftSplit(d, run, { ...at, split: least, loopStart });
  // the outcome counts both summaries' usage, the one not kept too
  const usedFirst = 'snapshot' in first ? first.summary.usage : first.record.usage;
  if (!('snapshot' in second)) return { draft: { ...second, record: { ...second.record, usage: addUsage(usedFirst, second.record.usage) } } };
  const draft: HeadDraft = { ...second, summary: { ...second.summary, usage: addUsage(usedFirst, second.summary.usage) } };
  return { draft, assembled: await assembledOn(d, run, draft) };
}

/** The draft assembled on the very history it was written on (which neither waits nor diverges). */
async function assembledOn(d: HeadDeps, run: LlmRun, draft: HeadDraft): Promise<Assembled> {
  const a = await assembleHead(d, draft, { history: run.ctx.history, tokensBefore: run.tokensBefore, restore: run.restore, signal: run.signal });
  if (a !== 'wait' && a !== 'diverged') return a;
  // should it, nothing changes
  return { outcome: attemptOutcome(d, run, draft, { status: 'failed', reason: `the compaction could not be assembled (${a})` }, draft.summary.usage) };
}

/** The summary of a snapshot of the history (the background job's draft), its tail chosen again when the first would not be smaller. */
export async function draftHead(d: HeadDeps, run: LlmRun): Promise<HeadDraft | Outcome> {
  return (await planHead(d, run)).draft;
}

/** Summarizes the head and keeps the tail (auto, reactive, manual): the plan of an LLM compaction, nothing committed. */
export async function summarizeHead(d: HeadDeps, run: LlmRun): Promise<Outcome> {
  const { draft, assembled } = await planHead(d, run);
  if (!('snapshot' in draft)) return draft;
  return (assembled ?? (await assembledOn(d, run, draft))).outcome;
}
