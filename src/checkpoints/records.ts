// A session's checkpoint records: one JSON line per turn boundary and per rewind, in the shadow
// store (sessions/<session id>.jsonl), oldest first. Pure reading of them: the tree before a
// turn, the last boundary (what the tree was when the agent last left it), and which rewind
// `/rewind undo` takes back. Writing and git are the session's checkpoints' (sessionCheckpoints.ts).

import type { RewindKind } from '../capability/checkpoints.js';

export type CheckpointRecord =
  /**
   * A turn started ('start': no snapshot yet, and none if it runs nothing that may change files),
   * was snapshotted before its first change ('before'), or ended after one ('after'): the tree
   * then, or why there is none.
   */
  | { edge: 'start'; turn: string; at: number; tree?: never }
  | { edge: 'before' | 'after'; turn: string; at: number; tree?: string; failed?: string }
  /** A /rewind: the tree just before it (`from`) and just after (`tree`); a conversation-only one has neither. */
  | { edge: 'rewind'; turn: string; what: RewindKind; at: number; from?: string; tree?: string }
  /** A /rewind undo: the tree just before it (`from`, since lazy checkpoints) and after it. */
  | { edge: 'undo'; at: number; from?: string; tree?: string };

export function parseRecords(text: string): CheckpointRecord[] {
  const out: CheckpointRecord[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const r = JSON.parse(line) as CheckpointRecord;
      if (r && typeof r === 'object' && typeof r.edge === 'string' && typeof r.at === 'number') out.push(r);
    } catch {
      // a line cut by a crash: the others stand
    }
  }
  return out;
}

/**
 * The tree before a turn, or why there is none (the turn's 'before' record failed, or no record:
 * checkpoints were off then). A turn that started without a snapshot changed nothing before
 * the next one that took one: the project before it is what the next record holding the tree
 * before a change says (a later turn's 'before', a rewind's or an undo's `from`); with none,
 * nothing changed since it started (`unchanged`).
 */
export function treeBefore(records: readonly CheckpointRecord[], turnId: string): { tree: string } | { missing: string } | { unchanged: true } {
  const at = records.findIndex((x) => (x.edge === 'before' || x.edge === 'start') && x.turn === turnId);
  if (at < 0) return { missing: 'no checkpoint was taken before it (checkpoints were off, or the turn predates them)' };
  for (const r of records.slice(at)) {
    if (r.edge === 'before') return r.tree ? { tree: r.tree } : { missing: `it could not be snapshotted: ${r.failed || 'unknown reason'}` };
    if ((r.edge === 'rewind' || r.edge === 'undo') && r.from) return { tree: r.from };
  }
  return { unchanged: true };
}

/** The tree the agent last left the project in (the last record with one): what changed since was done by someone else. */
export function lastBoundary(records: readonly CheckpointRecord[]): string | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const t = records[i]!.tree;
    if (t) return t;
  }
  return undefined;
}

/** The rewind `/rewind undo` takes back: the last one no undo took back yet (each undo takes back the one before it). */
export function undoable(records: readonly CheckpointRecord[]): Extract<CheckpointRecord, { edge: 'rewind' }> | undefined {
  const stack: Array<Extract<CheckpointRecord, { edge: 'rewind' }>> = [];
  for (const r of records) {
    if (r.edge === 'rewind') stack.push(r);
    else if (r.edge === 'undo') stack.pop();
  }
  return stack.at(-1);
}
