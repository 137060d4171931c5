// The visible history as a pure function of the session's append-only log. Messages are
// appended and never rewritten; whatever changes what the model sees is an appended record:
// a compaction (the view right after it, and the tool outputs it cleared), a rewind (a cut),
// a repair (inserted messages, revised blocks), a pin change, a revert (undo a compaction and
// every one after it, or bring back only some of what it hid). The store keeps the result as a
// cache (messages.pos, archived_by, shown_*), so a resume reads it without replaying the log.
import type { Block } from '../llm/messages.js';

export type RecordKind = 'compaction' | 'rewind' | 'repair' | 'pin' | 'revert' | 'baseline';

/** A message shown with other blocks than it was stored with (a cleared tool output, a repaired result). */
export interface Revision {
  id: string;
  blocks: Block[];
}

export interface RecordBody {
  /** compaction, baseline: the visible ids right after the record, in order. */
  view?: string[];
  /** compaction (micro), repair: messages shown with new blocks from here on. */
  revisions?: Revision[];
  /** repair: messages it added, each inserted after an anchor (null: at the start). */
  inserts?: Array<{ id: string; after: string | null }>;
  /** rewind: this message and everything after it leave the view. */
  cut?: string;
  /** pin: pinned flags set from here on. */
  pins?: Array<{ id: string; pinned: boolean }>;
  /** revert: the compaction undone, together with every compaction after it. */
  target?: string;
  /** partial revert: only these messages that the target hid come back, before the view. */
  restore?: string[];
}

export type LogEntry =
  /** addedBy: the record that added the message (checkpoint, bridge, repair); such messages enter the view only through it. */
  | { type: 'message'; id: string; addedBy: string | null }
  | { type: 'record'; id: string; kind: RecordKind; body: RecordBody };

export interface Derived {
  /** Visible message ids, in the order the model reads them. */
  view: string[];
  /** Messages shown with revised blocks (hidden ones keep theirs). */
  revised: Map<string, { blocks: Block[]; by: string }>;
  /** Pinned flags set by pin records (absent: as stored). */
  pinned: Map<string, boolean>;
  /** Every message out of view, with the record that put it out. */
  hiddenBy: Map<string, string>;
  /** Compactions in effect (a revert can undo them), oldest first. */
  compactions: string[];
}

/** Thrown for a log no writer could have produced (a revert of a record that is not in effect, say). */
export class LogError extends Error {
  override readonly name = 'LogError';
}

/** Replays the log; the store caches the result, tests check the cache against it. */
export function deriveHistory(log: readonly LogEntry[]): Derived {
  return replay(log, log.length);
}

function replay(log: readonly LogEntry[], end: number): Derived {
  const st: Derived = { view: [], revised: new Map(), pinned: new Map(), hiddenBy: new Map(), compactions: [] };
  for (let i = 0; i < end; i++) apply(st, log, i);
  return st;
}

function apply(st: Derived, log: readonly LogEntry[], i: number): void {
  const e = log[i]!;
  if (e.type === 'message') {
    if (e.addedBy === null) st.view.push(e.id);
    else if (!st.view.includes(e.id)) st.hiddenBy.set(e.id, e.addedBy); // until its record shows it
    return;
  }
  const b = e.body;
  switch (e.kind) {
    case 'baseline':
    case 'compaction':
      if (b.view) setView(st, b.view, e.id);
      revise(st, b.revisions, e.id);
      if (e.kind === 'compaction') st.compactions.push(e.id);
      return;
    case 'rewind':
      if (b.cut !== undefined) cut(st, b.cut, e.id);
      return;
    case 'repair':
      insert(st, b.inserts ?? []);
      revise(st, b.revisions, e.id);
      return;
    case 'pin':
      for (const p of b.pins ?? []) st.pinned.set(p.id, p.pinned);
      return;
    case 'revert':
      revert(st, log, i);
      return;
  }
}

function setView(st: Derived, view: readonly string[], by: string): void {
  const next = new Set(view);
  for (const id of st.view) if (!next.has(id)) st.hiddenBy.set(id, by);
  for (const id of view) st.hiddenBy.delete(id);
  st.view = [...view];
}

function cut(st: Derived, at: string, by: string): void {
  const i = st.view.indexOf(at);
  if (i === -1) return;
  for (const id of st.view.slice(i)) st.hiddenBy.set(id, by);
  st.view = st.view.slice(0, i);
}

function insert(st: Derived, inserts: ReadonlyArray<{ id: string; after: string | null }>): void {
  for (const { id, after } of inserts) {
    if (st.view.includes(id)) continue;
    const at = after === null ? 0 : st.view.indexOf(after) + 1;
    // an anchor out of view (a later revert took it away) leaves the inserted message out too
    if (after !== null && at === 0) continue;
    st.view.splice(at, 0, id);
    st.hiddenBy.delete(id);
  }
}

function revise(st: Derived, revisions: readonly Revision[] | undefined, by: string): void {
  for (const r of revisions ?? []) st.revised.set(r.id, { blocks: r.blocks, by });
}

/**
 * Undoes the target compaction and every compaction after it: the state before the target,
 * then what happened since that was not a compaction (messages, pins, rewinds, repairs)
 * replayed on it. A partial revert only brings back the listed messages the target hid.
 */
function revert(st: Derived, log: readonly LogEntry[], i: number): void {
  const e = log[i] as Extract<LogEntry, { type: 'record' }>;
  const target = e.body.target;
  if (target === undefined || !st.compactions.includes(target)) throw new LogError(`revert ${e.id} names ${target ?? 'no record'}, which is not a compaction in effect`);
  if (e.body.restore) {
    const back = e.body.restore.filter((id) => st.hiddenBy.get(id) === target && !st.view.includes(id));
    for (const id of back) st.hiddenBy.delete(id);
    st.view = [...back, ...st.view];
    return;
  }
  const x = log.findIndex((f) => f.type === 'record' && f.id === target);
  const next = replay(log, x);
  for (let j = x + 1; j < i; j++) {
    const f = log[j]!;
    if (f.type === 'message' ? f.addedBy === null : f.kind === 'pin' || f.kind === 'rewind' || f.kind === 'repair') apply(next, log, j);
  }
  // what leaves the view (the undone compactions' checkpoints) is hidden by the revert
  const shown = new Set(next.view);
  for (const id of st.view) if (!shown.has(id)) next.hiddenBy.set(id, e.id);
  for (const id of st.hiddenBy.keys()) if (!shown.has(id) && !next.hiddenBy.has(id)) next.hiddenBy.set(id, e.id);
  Object.assign(st, next);
}
