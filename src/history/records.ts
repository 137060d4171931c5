// The history's vocabulary. A session's history is an append-only log: messages, written once,
// and records of whatever else changes what the model sees: a compaction (the view right after
// it, the tool outputs it cleared), a rewind (a cut), a repair (inserted messages, revised
// blocks), a pin change, a revert (undo a compaction or rewind and every compaction after it, or
// bring back only some of what a compaction hid), and a baseline (a database from before the
// log: its visible order). The store keeps the log; reduce.ts derives the visible history from it.
import type { Block } from '../llm/messages.js';

/** A message shown with other blocks than it was stored with (a cleared tool output, a repaired result). */
export interface Revision {
  id: string;
  blocks: Block[];
}

export interface CompactionBody {
  /** The visible ids right after the compaction, in order (absent: the view stays as it was, micro). */
  view?: string[];
  /** Messages shown with new blocks from here on (micro: the outputs it cleared). */
  revisions?: Revision[];
}

export interface RewindBody {
  /** This message and everything after it leave the view. */
  cut: string;
}

export interface RepairBody {
  /** Messages the repair added, each inserted after an anchor (null: at the start). */
  inserts: Array<{ id: string; after: string | null }>;
  /** Messages shown with new blocks from here on (orphan tool results shown as text). */
  revisions?: Revision[];
}

export interface PinBody {
  /** Pinned flags set from here on (/unpin). */
  pins: Array<{ id: string; pinned: boolean }>;
}

export interface RevertBody {
  /** The compaction (or conversation rewind) undone, together with every compaction after it. */
  target: string;
  /** A partial revert: only these messages that the target hid come back, before the view. */
  restore?: string[];
}

export interface BaselineBody {
  /** The visible ids as a database from before the log left them. */
  view: string[];
}

/** One record of the log, by kind; its id is unique in the session (messages.archived_by names it). */
export type HistoryRecord =
  | { kind: 'compaction'; id: string; body: CompactionBody }
  | { kind: 'rewind'; id: string; body: RewindBody }
  | { kind: 'repair'; id: string; body: RepairBody }
  | { kind: 'pin'; id: string; body: PinBody }
  | { kind: 'revert'; id: string; body: RevertBody }
  | { kind: 'baseline'; id: string; body: BaselineBody };

export type RecordKind = HistoryRecord['kind'];

export const RECORD_KINDS: readonly RecordKind[] = ['compaction', 'rewind', 'repair', 'pin', 'revert', 'baseline'];

/**
 * A record whose effect follows from the visible history alone: every kind but a revert (which
 * undoes earlier records, so it needs the whole log). These are applied to a view in one step
 * (reduce.ts' stepFrom), by the store to its cache and by the session to its messages.
 */
export type StepRecord = Exclude<HistoryRecord, { kind: 'revert' }>;

/** A message of the log. addedBy: the record that added it (checkpoint, bridge, repair); it enters the view only through that record. */
export interface MessageEntry {
  type: 'message';
  id: string;
  addedBy: string | null;
}

export type RecordEntry = { type: 'record' } & HistoryRecord;

export type LogEntry = MessageEntry | RecordEntry;

/** The log entry of a record. */
export const recordEntry = (r: HistoryRecord): RecordEntry => ({ type: 'record', ...r });
