// `@path` completion in the prompt: which word is being typed, and filling in a chosen path.
import type { EditState } from './prompt-editor.js';

export interface MentionView {
  /** Index of the "@" in the text. */
  start: number;
  /** What follows the "@" up to the cursor. */
  query: string;
  /** Paths, best first (directories end with "/"). */
  matches: string[];
  /** The highlighted match. */
  index: number;
}

/** The `@word` the cursor is at the end of: "@" at the start or after a blank, no blank inside. */
export function mentionAt(text: string, cursor: number): { start: number; query: string } | null {
  const before = text.slice(0, cursor);
  const m = /(?:^|\s)@([^\s@]*)$/.exec(before);
  if (!m) return null;
  const after = text.slice(cursor);
  if (after !== '' && !/^\s/.test(after)) return null;
  return { start: cursor - m[1]!.length - 1, query: m[1]! };
}

/** Puts `@path` in place of the word; a file gets a blank after it, a directory goes on completing. */
export function fillMention(s: EditState, view: Pick<MentionView, 'start' | 'query'>, path: string): EditState {
  const end = view.start + 1 + view.query.length;
  const insert = `@${path}${path.endsWith('/') ? '' : ' '}`;
  const rest = s.text.slice(end).replace(/^ /, path.endsWith('/') ? ' ' : '');
  return { text: s.text.slice(0, view.start) + insert + rest, cursor: view.start + insert.length };
}
