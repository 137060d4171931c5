// A reply the person cut short (Esc) or whose stream failed is stored as the text that streamed,
// marked `interrupted`. Sent back as it is, the model would read it as a reply it chose to end
// there; every adapter sends it with a note at its end instead. The stored message keeps its text
// (the transcript shows "interrupted" its own way); the note exists only on the wire, the same
// bytes on every request, so the cached prefix holds.
import type { Message } from './messages.js';

/** What the model reads at the end of a reply that was cut short. */
export const CUT_REPLY_NOTE = '[This reply was cut off here and did not finish: the user interrupted it, or its stream failed.]';

/**
 * The messages as sent: an interrupted reply's last text block ends with CUT_REPLY_NOTE. A reply
 * that is itself a bracketed note (the "No reply" placeholder) needs none.
 */
export function withCutNotes(messages: readonly Message[]): readonly Message[] {
  if (!messages.some(needsNote)) return messages;
  return messages.map((m) => {
    if (!needsNote(m)) return m;
    const last = m.blocks.findLastIndex((b) => b.type === 'text');
    return { ...m, blocks: m.blocks.map((b, i) => (i === last && b.type === 'text' ? { ...b, text: `${b.text.trimEnd()}\n\n${CUT_REPLY_NOTE}` } : b)) };
  });
}

const needsNote = (m: Message): boolean =>
  m.role === 'assistant' &&
  m.interrupted === true &&
  m.blocks.some((b) => b.type === 'text') &&
  !m.blocks.every((b) => b.type !== 'text' || /^\[[\s\S]*\]$/.test(b.text.trim()));
