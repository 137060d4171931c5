// Pinned notes: user messages kept verbatim through every compaction (/pin, /pin list, /unpin).
import { newId, textOf, type Message } from '../llm/messages.js';
import { parseShellNote } from './shellNote.js';

export const PIN_HEADER = '[Pinned by the user: keep this in mind for the whole session]';

/** The message that pins `note`; throws when there is nothing to pin. */
export function pinNote(note: string | undefined): Message {
  if (!note) throw new Error('nothing to pin yet: give the text, e.g. /pin always run the linter before committing');
  return { id: newId(), role: 'user', kind: 'normal', pinned: true, createdAt: Date.now(), blocks: [{ type: 'text', text: `${PIN_HEADER}\n${note}` }] };
}

/** The pinned notes of a history, oldest first, without their header. */
export function pinsOf(history: readonly Message[]): Array<{ id: string; text: string }> {
  return history.filter((m) => m.pinned).map((m) => ({ id: m.id, text: textOf(m).replace(`${PIN_HEADER}\n`, '') }));
}

/** The person's last request (what /pin alone pins). */
export function lastPrompt(history: readonly Message[]): string | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role === 'user' && m.kind === 'normal' && !m.pinned && m.blocks.every((b) => b.type === 'text') && !parseShellNote(textOf(m))) return textOf(m);
  }
  return undefined;
}

/** The nth pinned note (1-based, /pin list's numbering); an error saying what there is when there is none. */
export function nthPin(pins: Array<{ id: string; text: string }>, n: number): { id: string; text: string } {
  const target = pins[n - 1];
  if (!target) throw new Error(pins.length === 0 ? 'nothing is pinned' : `there is no pin ${n}: /pin list shows ${pins.length === 1 ? 'one' : pins.length}`);
  return target;
}
