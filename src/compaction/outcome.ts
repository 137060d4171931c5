import { emptyUsage, newId } from '../llm/messages.js';
import type { CompactionCommit, CompactionRecord, CompactionTrigger } from '../history/compaction.js';
import type { CompactionEvent } from '../protocol/events.js';

export type Emit = (event: CompactionEvent) => void;

/**
 * One compaction attempt, planned and not yet committed: `commit` (what the history log
 * appends) is present iff record.status === 'applied'. The session commits it (or records the
 * failure) and then emits its compaction_end; `skipped` attempts were announced by
 * compaction_skipped instead.
 */
export interface Outcome {
  record: CompactionRecord;
  commit?: CompactionCommit;
  skipped?: true;
}

/** The reason of an attempt the person cancelled (it does not count as a failure). */
export const CANCELLED = 'cancelled';

/** A record with every figure at its "nothing happened" value, timed from `started`. */
export function bareRecord(
  now: number,
  trigger: CompactionTrigger,
  tokensBefore: number,
  started: number,
  fields: Partial<CompactionRecord> & Pick<CompactionRecord, 'status'>,
): CompactionRecord {
  return {
    id: newId('c'),
    trigger,
    tokensBefore,
    tokensAfter: tokensBefore,
    archivedCount: 0,
    preservedCount: 0,
    summaryTokens: 0,
    durationMs: Math.max(0, now - started),
    model: '',
    usage: emptyUsage(),
    createdAt: now,
    ...fields,
  };
}
