import { describe, expect, it } from 'vitest';
import { userMessage } from '../../src/llm/messages.js';
import { dateNoteFor, dateText } from '../../src/session/dateNote.js';

describe('the date note', () => {
  it('is added when the history holds none for today, and only then', () => {
    const day1 = new Date('2026-11-26T10:00:00Z');
    const day2 = new Date('2026-11-27T09:00:00Z');
    const first = dateNoteFor([], day1)!;
    expect(first).toMatchObject({ role: 'user', kind: 'meta', blocks: [{ type: 'text', text: dateText(day1) }] });
    expect(dateText(day1)).toContain('2026-11-26');
    const history = [first, userMessage('hello')];
    expect(dateNoteFor(history, day1)).toBeUndefined();
    // the next day a new note is appended; the old one stays (the cached prefix is untouched)
    expect(dateNoteFor(history, day2)?.blocks).toEqual([{ type: 'text', text: dateText(day2) }]);
    // a pasted look-alike typed by the user is not a note
    expect(dateNoteFor([userMessage(dateText(day1))], day1)).toBeDefined();
  });
});
