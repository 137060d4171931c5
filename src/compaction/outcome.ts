import { emptyUsage, newId } from '../llm/messages.js';
import type { CompactionChange, CompactionEvent, CompactionRecord, CompactionTrigger } from './types.js';

export type Emit = (event: CompactionEvent) => void;

/**
 * One compaction attempt, planned and not yet committed: `change` is present iff
 * record.status === 'applied'. The session commits it (or records the failure) and then
 * emits its compaction_end; `skipped` attempts were announced by compaction_skipped instead.
 */
export interface Outcome {
  record: CompactionRecord;
  change?: CompactionChange;
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
