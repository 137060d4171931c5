// The one reducer of the history: what the model sees, as a fold of reduceHistory over the log
// as it takes effect (effectiveLog). The store replays it to cache the visible history in its
// message rows and checks that cache against it; the store and the session apply each new
// record with it (stepFrom), the store to its cache and the session to its messages (view.ts).
// A second derivation over the same log (a ledger of the working state, say) folds its own
// reducer over effectiveLog(log).
import type { Block } from '../llm/messages.js';
import { recordEntry, type LogEntry, type Revision, type StepRecord } from './records.js';

/** The visible history as ids, and what the records did to it. */
export interface HistoryState {
  /** Visible message ids, in the order the model reads them. */
  view: string[];
  /** Messages shown with revised blocks (hidden ones keep theirs), and the record that revised each. */
  revised: Map<string, { blocks: Block[]; by: string }>;
  /** Pinned flags set by pin records (absent: as stored). */
  pinned: Map<string, boolean>;
  /** Every message out of view, with the record that put it out. */
  hiddenBy: Map<string, string>;
  /** Compactions in effect (a revert can undo them), oldest first. */
  compactions: string[];
  /** Conversation rewinds in effect (a revert can undo them too), oldest first. */
  rewinds: string[];
}

export const emptyHistory = (view: readonly string[] = []): HistoryState => ({
  view: [...view],
  revised: new Map(),
  pinned: new Map(),
  hiddenBy: new Map(),
  compactions: [],
  rewinds: [],
});

/** Thrown for a log no writer could have produced (a revert of a record that is not in effect, say). */
export class LogError extends Error {
  override readonly name = 'LogError';
}

/** Replays the whole log: the visible history it gives. */
export function deriveHistory(log: readonly LogEntry[]): HistoryState {
  const st = emptyHistory();
  for (const e of effectiveLog(log)) reduceHistory(st, e);
  return st;
}

/**
 * One record applied to a visible history: the reducer run over the messages the record adds
 * and the record itself, from a state that holds only the view. The maps of the state returned
 * hold exactly what this step changed (what it hid, revised, pinned), which is what the store
 * writes to its cache and the session to its messages. Equal to what a replay of the whole log
 * gives, because no record but a revert reads more of the state than the view.
 */
export function stepFrom(view: readonly string[], record: StepRecord, added: readonly string[] = []): HistoryState {
  const st = emptyHistory(view);
  for (const id of added) reduceHistory(st, { type: 'message', id, addedBy: record.id });
  reduceHistory(st, recordEntry(record));
  return st;
}

/**
 * The log as it takes effect. Full reverts are settled first: each undoes its target (a
 * compaction or conversation rewind still in effect) and every compaction between the target
 * and itself. The records they undid are left out, as if they had never been appended, so
 * whatever happened after them (messages, pins, other rewinds, repairs, other reverts) keeps its
 * effect; so is a partial revert of a compaction a later revert undid whole. A message an undone
 * record added (a checkpoint, a bridge) stays, added by the revert that undid it, which never
 * shows it.
 */
export function effectiveLog<E extends LogEntry>(log: readonly E[]): E[] {
  const undoneBy = settleReverts(log);
  if (undoneBy.size === 0) return [...log];
  const out: E[] = [];
  for (const e of log) {
    if (e.type === 'message') {
      const revert = e.addedBy === null ? undefined : undoneBy.get(e.addedBy);
      out.push(revert === undefined ? e : { ...e, addedBy: revert });
      continue;
    }
    if (undoneBy.has(e.id)) continue;
    if (e.kind === 'revert' && e.body.restore && undoneBy.has(e.body.target)) continue;
    out.push(e);
  }
  return out;
}

/** Which records each full revert undid: its target and every compaction between the target and the revert. */
function settleReverts(log: readonly LogEntry[]): Map<string, string> {
  const undoneBy = new Map<string, string>();
  const at = new Map<string, number>();
  log.forEach((e, i) => {
    if (e.type !== 'record') return;
    at.set(e.id, i);
    if (e.kind !== 'revert' || e.body.restore) return;
    const target = e.body.target;
    const x = at.get(target);
    const t = x === undefined ? undefined : log[x];
    if (x === undefined || t?.type !== 'record' || (t.kind !== 'compaction' && t.kind !== 'rewind') || undoneBy.has(t.id)) {
      throw new LogError(`revert ${e.id} names ${target}, which is not a compaction or rewind in effect`);
    }
    undoneBy.set(t.id, e.id);
    for (let j = x + 1; j < i; j++) {
      const f = log[j]!;
      if (f.type === 'record' && f.kind === 'compaction' && !undoneBy.has(f.id)) undoneBy.set(f.id, e.id);
    }
  });
  return undoneBy;
}

/** The reducer: one entry of the effective log applied to the state (the accumulator, changed in place). */
export function reduceHistory(st: HistoryState, e: LogEntry): void {
  if (e.type === 'message') {
    if (e.addedBy === null) st.view.push(e.id);
    else if (!st.view.includes(e.id)) st.hiddenBy.set(e.id, e.addedBy); // until its record shows it
    return;
  }
  switch (e.kind) {
    case 'baseline':
      setView(st, e.body.view, e.id);
      return;
    case 'compaction':
      if (e.body.view) setView(st, e.body.view, e.id);
      revise(st, e.body.revisions, e.id);
      st.compactions.push(e.id);
      return;
    case 'rewind':
      cut(st, e.body.cut, e.id);
      st.rewinds.push(e.id);
      return;
    case 'repair':
      insert(st, e.body.inserts);
      revise(st, e.body.revisions, e.id);
      return;
    case 'pin':
      for (const p of e.body.pins) st.pinned.set(p.id, p.pinned);
      return;
    case 'revert':
      // a full revert did its work in effectiveLog; a partial one edits the view here
      if (e.body.restore) restorePart(st, e.id, e.body.target, e.body.restore);
      return;
  }
}

function setView(st: HistoryState, view: readonly string[], by: string): void {
  const next = new Set(view);
  for (const id of st.view) if (!next.has(id)) st.hiddenBy.set(id, by);
  for (const id of view) st.hiddenBy.delete(id);
  st.view = [...view];
}

function cut(st: HistoryState, at: string, by: string): void {
  const i = st.view.indexOf(at);
  if (i === -1) return;
  for (const id of st.view.slice(i)) st.hiddenBy.set(id, by);
  st.view = st.view.slice(0, i);
}

function insert(st: HistoryState, inserts: ReadonlyArray<{ id: string; after: string | null }>): void {
  for (const { id, after } of inserts) {
    if (st.view.includes(id)) continue;
    const at = after === null ? 0 : st.view.indexOf(after) + 1;
    // an anchor out of view (a later revert took it away) leaves the inserted message out too
    if (after !== null && at === 0) continue;
    st.view.splice(at, 0, id);
    st.hiddenBy.delete(id);
  }
}

function revise(st: HistoryState, revisions: readonly Revision[] | undefined, by: string): void {
  for (const r of revisions ?? []) st.revised.set(r.id, { blocks: r.blocks, by });
}

/** A partial revert: the listed messages the target compaction hid come back, before the view. */
function restorePart(st: HistoryState, id: string, target: string, restore: readonly string[]): void {
  if (!st.compactions.includes(target)) throw new LogError(`revert ${id} restores part of ${target}, which is not a compaction in effect`);
  const shown = new Set(st.view);
  const back = restore.filter((m) => st.hiddenBy.get(m) === target && !shown.has(m));
  for (const m of back) st.hiddenBy.delete(m);
  st.view = [...back, ...st.view];
}
