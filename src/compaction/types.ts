import type { CompactionRecord, CompactionTrigger } from '../history/compaction.js';

export type CompactionEvent =
  | { type: 'compaction_start'; trigger: CompactionTrigger; focus?: string; tokensBefore: number }
  | { type: 'compaction_progress'; trigger: CompactionTrigger; stage: string }
  | { type: 'compaction_end'; record: CompactionRecord }
  | { type: 'compaction_skipped'; trigger: CompactionTrigger; reason: string };
