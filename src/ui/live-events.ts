// Steps of UiStore that need none of its own state: what a compaction event does to the live
// region and the transcript, the row a finished tool call leaves, answering the first approval.
import type { ApprovalDecision } from '../tools/permissions.js';
import type { ApprovalView } from './approval.js';
import type { CompactionEvent, Event } from '../protocol/events.js';
import type { LiveState } from './live-state.js';
import type { Store } from './store.js';
import { cutForModel } from './tool-progress.js';
import { itemId, type ToolItem, type TranscriptItem } from './transcript.js';

/** A compaction event's effect: an item to append, and the live compaction state (absent: unchanged). */
export function compactionStep(
  ev: CompactionEvent,
  current: LiveState['compaction'],
  now: number,
): { item?: TranscriptItem; compaction?: LiveState['compaction'] } {
  switch (ev.type) {
    case 'compaction_start': {
      const c: NonNullable<LiveState['compaction']> = { trigger: ev.trigger, tokensBefore: ev.tokensBefore, startedAt: now };
      if (ev.focus !== undefined) c.focus = ev.focus;
      if (ev.background) c.background = true;
      return { compaction: c };
    }
    case 'compaction_progress': {
      const base = current ?? { trigger: ev.trigger, tokensBefore: 0, startedAt: now };
      return { compaction: { ...base, stage: ev.stage } };
    }
    case 'compaction_end':
      return { item: { kind: 'compaction', id: itemId(), record: ev.record }, compaction: null };
    case 'compaction_skipped': {
      // Routine skips of automatic compaction (cooldown, breaker) would flood the transcript;
      // the gauge's notice covers them. A skipped manual or reactive compaction is news.
      const news = ev.trigger === 'manual' || ev.trigger === 'reactive';
      return {
        ...(news ? { item: { kind: 'compaction_skipped', id: itemId(), trigger: ev.trigger, reason: ev.reason } } : {}),
        ...(current?.trigger === ev.trigger ? { compaction: null } : {}),
      };
    }
  }
}

/** The transcript row of a finished tool call; `streamed` is everything its output streamed, kept for Ctrl-O when the model got a cut copy. */
export function finishedToolItem(ev: Extract<Event, { type: 'tool_end' }>, summary: string, streamed: string | undefined): ToolItem {
  const item: ToolItem = {
    kind: 'tool',
    id: itemId(),
    toolUseId: ev.id,
    name: ev.name,
    summary,
    status: ev.status,
    durationMs: ev.durationMs,
    output: ev.output.content,
  };
  if (streamed !== undefined && (cutForModel(ev.output.content) || ev.output.spilled)) item.fullOutput = streamed;
  return item;
}

/** Answers the first waiting approval; the tool's clock starts now (the wait for the answer is not its running time). */
export function respondFirst(approvals: Store<ApprovalView[]>, live: Store<LiveState>, decision: ApprovalDecision, now: number): void {
  const [head, ...rest] = approvals.get();
  if (!head) return;
  approvals.set(rest);
  const l = live.get();
  const id = head.request.toolUseId;
  if (decision.kind !== 'deny' && l.running.some((t) => t.id === id)) {
    live.set({ ...l, running: l.running.map((t) => (t.id === id ? { ...t, startedAt: now } : t)) });
  }
  head.respond(decision);
}
