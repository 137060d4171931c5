// The visible history as messages: what the reducer's ids mean for the messages themselves.
// The session holds its history this way and moves it on by the same reducer as the store.
import type { Message } from '../llm/messages.js';
import { LogError, stepFrom, type HistoryState } from './reduce.js';
import type { StepRecord } from './records.js';

/**
 * A message as the history shows it: with its revised blocks and the pinned flag a pin record
 * set (as the store's cache reads back: an unpinned message says `pinned: false`), else the
 * same object as given.
 */
export function shownMessage(m: Message, st: Pick<HistoryState, 'revised' | 'pinned'>): Message {
  const revised = st.revised.get(m.id);
  const pinned = st.pinned.get(m.id);
  if (revised === undefined && (pinned === undefined || pinned === m.pinned)) return m;
  return { ...m, ...(revised ? { blocks: revised.blocks } : {}), ...(pinned === undefined ? {} : { pinned }) };
}

/**
 * The visible history after one record (stepFrom): the messages that stay are the same objects
 * unless the record revised or (un)pinned them; `added` are the messages the record adds.
 */
export function applyRecord(visible: readonly Message[], record: StepRecord, added: readonly Message[] = []): Message[] {
  const st = stepFrom(
    visible.map((m) => m.id),
    record,
    added.map((m) => m.id),
  );
  const byId = new Map<string, Message>();
  for (const m of visible) byId.set(m.id, m);
  for (const m of added) byId.set(m.id, m);
  return st.view.map((id) => {
    const m = byId.get(id);
    if (!m) throw new LogError(`${record.kind} ${record.id} shows message ${id}, which is neither visible nor added by it`);
    return shownMessage(m, st);
  });
}
