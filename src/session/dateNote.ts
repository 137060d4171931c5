import { newId, textOf, type Message } from '../llm/messages.js';

// Today's date reaches the model as a note in the history, not in the system prompt: the
// system prompt heads the cached prefix of every request, and a date in it would make a
// session resumed the next day miss the whole cache. A note is added at the start of a turn
// when the visible history holds none for today (a new session, a new day, or after a
// compaction archived the last one); older notes stay where they are, byte for byte.

const PREFIX = "Context from the agent (not typed by the user): today's date is ";

export const dateText = (now: Date): string => `${PREFIX}${now.toISOString().slice(0, 10)}.`;

/** The note to add before the next turn, or undefined when the latest note already says today. */
export function dateNoteFor(history: readonly Message[], now: Date = new Date()): Message | undefined {
  const text = dateText(now);
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.kind === 'meta' && m.role === 'user' && textOf(m).startsWith(PREFIX)) {
      if (textOf(m) === text) return undefined;
      break;
    }
  }
  // the transcript does not show it (the person knows the date): its origin says what it is
  return { id: newId(), role: 'user', kind: 'meta', blocks: [{ type: 'text', text }], createdAt: now.getTime(), origin: { kind: 'date_note' } };
}
