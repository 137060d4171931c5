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
  /** revert: the compaction (or conversation rewind) undone, together with every compaction after it. */
  target?: string;
  /** partial revert: only these messages that the target hid come back, before the view. */
  restore?: string[];
}

export type LogEntry =
  /** addedBy: the record that added the message (checkpoint, bridge, repair); such messages enter the view only through it. */
  { type: 'message'; id: string; addedBy: string | null } | { type: 'record'; id: string; kind: RecordKind; body: RecordBody };

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
  /** Conversation rewinds in effect (a revert can undo them too), oldest first. */
  rewinds: string[];
}

/** Thrown for a log no writer could have produced (a revert of a record that is not in effect, say). */
export class LogError extends Error {
  override readonly name = 'LogError';
}

/**
 * Replays the log; the store caches the result, tests check the cache against it. Full reverts
 * are settled first (undoneBy): the replay then skips every record they undid, as if it had
 * never been appended, so whatever happened after it (messages, pins, other rewinds, repairs,
 * other reverts) keeps its effect.
 */
export function deriveHistory(log: readonly LogEntry[]): Derived {
  const undoneBy = settleReverts(log);
  const st: Derived = { view: [], revised: new Map(), pinned: new Map(), hiddenBy: new Map(), compactions: [], rewinds: [] };
  for (const e of log) {
    if (e.type === 'record' && undoneBy.has(e.id)) continue;
    // a part brought back from a compaction that a later revert undid whole: nothing left to do
    if (e.type === 'record' && e.kind === 'revert' && e.body.restore && undoneBy.has(e.body.target ?? '')) continue;
    apply(st, e);
  }
  // what an undone record added (a checkpoint, a bridge) is out of view because of the revert
  for (const [id, by] of st.hiddenBy) {
    const revert = undoneBy.get(by);
    if (revert !== undefined) st.hiddenBy.set(id, revert);
  }
  return st;
}

/**
 * Which records each full revert undid: its target (a compaction or conversation rewind still
 * in effect at the revert) and every compaction between the target and the revert.
 */
function settleReverts(log: readonly LogEntry[]): Map<string, string> {
  const undoneBy = new Map<string, string>();
  const at = new Map<string, number>();
  log.forEach((e, i) => {
    if (e.type !== 'record') return;
    at.set(e.id, i);
    if (e.kind !== 'revert' || e.body.restore) return;
    const target = e.body.target;
    const x = target === undefined ? undefined : at.get(target);
    const t = x === undefined ? undefined : log[x];
    if (x === undefined || t?.type !== 'record' || (t.kind !== 'compaction' && t.kind !== 'rewind') || undoneBy.has(t.id)) {
      throw new LogError(`revert ${e.id} names ${target ?? 'no record'}, which is not a compaction or rewind in effect`);
    }
    undoneBy.set(t.id, e.id);
    for (let j = x + 1; j < i; j++) {
      const f = log[j]!;
      if (f.type === 'record' && f.kind === 'compaction' && !undoneBy.has(f.id)) undoneBy.set(f.id, e.id);
    }
  });
  return undoneBy;
}

function apply(st: Derived, e: LogEntry): void {
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
      st.rewinds.push(e.id);
      return;
    case 'repair':
      insert(st, b.inserts ?? []);
      revise(st, b.revisions, e.id);
      return;
    case 'pin':
      for (const p of b.pins ?? []) st.pinned.set(p.id, p.pinned);
      return;
    case 'revert':
      // a full revert did its work in settleReverts; a partial one edits the view here
      if (b.restore) restorePart(st, e.id, b.target, b.restore);
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

/** A partial revert: the listed messages the target compaction hid come back, before the view. */
function restorePart(st: Derived, id: string, target: string | undefined, restore: readonly string[]): void {
  if (target === undefined || !st.compactions.includes(target))
    throw new LogError(`revert ${id} restores part of ${target ?? 'no record'}, which is not a compaction in effect`);
  const shown = new Set(st.view);
  const back = restore.filter((m) => st.hiddenBy.get(m) === target && !shown.has(m));
  for (const m of back) st.hiddenBy.delete(m);
  st.view = [...back, ...st.view];
}
