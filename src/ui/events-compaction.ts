// The UI's handlers for a compaction (compaction_start … compaction_end, or compaction_skipped).
import type { CompactionEvent } from '../protocol/events.js';
import type { Handler, HandlerTable } from './events-host.js';
import { compactionStep } from './live-events.js';

const onCompaction: Handler<CompactionEvent> = (h, ev) => {
  const step = compactionStep(ev, h.live.get().compaction, h.now());
  if (step.item) h.append(step.item);
  // Ctrl+O opens the whole report of the latest compaction while nothing newer took it
  if (step.item?.kind === 'compaction' && step.item.record.report) h.lastReport = step.item;
  if (step.compaction !== undefined) h.patchLive({ compaction: step.compaction });
};

export const compactionHandlers: HandlerTable<CompactionEvent['type']> = {
  compaction_start: onCompaction,
  compaction_progress: onCompaction,
  compaction_end: onCompaction,
  compaction_skipped: onCompaction,
};
