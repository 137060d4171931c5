// Pure editing operations on the prompt's text and cursor (a UTF-16 index, always on a code
// point boundary). Lines are separated by "\n".

export interface EditState {
  text: string;
  cursor: number;
}

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

function prevBoundary(text: string, i: number): number {
  if (i <= 0) return 0;
  return i >= 2 && isLow(text.charCodeAt(i - 1)) && isHigh(text.charCodeAt(i - 2)) ? i - 2 : i - 1;
}

function nextBoundary(text: string, i: number): number {
  if (i >= text.length) return text.length;
  return isHigh(text.charCodeAt(i)) && isLow(text.charCodeAt(i + 1)) ? i + 2 : i + 1;
}

/** Keeps an index off the middle of a surrogate pair. */
const snap = (text: string, i: number): number => (i > 0 && isLow(text.charCodeAt(i)) && isHigh(text.charCodeAt(i - 1)) ? i - 1 : i);

export const lineStartOf = (text: string, i: number): number => text.lastIndexOf('\n', i - 1) + 1;

export function lineEndOf(text: string, i: number): number {
  const n = text.indexOf('\n', i);
  return n === -1 ? text.length : n;
}

export function insert(s: EditState, str: string): EditState {
  return { text: s.text.slice(0, s.cursor) + str + s.text.slice(s.cursor), cursor: s.cursor + str.length };
}

export function backspace(s: EditState): EditState {
  if (s.cursor === 0) return s;
  const p = prevBoundary(s.text, s.cursor);
  return { text: s.text.slice(0, p) + s.text.slice(s.cursor), cursor: p };
}

export function deleteForward(s: EditState): EditState {
  if (s.cursor >= s.text.length) return s;
  const n = nextBoundary(s.text, s.cursor);
  return { text: s.text.slice(0, s.cursor) + s.text.slice(n), cursor: s.cursor };
}

export const left = (s: EditState): EditState => ({ ...s, cursor: prevBoundary(s.text, s.cursor) });
export const right = (s: EditState): EditState => ({ ...s, cursor: nextBoundary(s.text, s.cursor) });
export const home = (s: EditState): EditState => ({ ...s, cursor: lineStartOf(s.text, s.cursor) });
export const end = (s: EditState): EditState => ({ ...s, cursor: lineEndOf(s.text, s.cursor) });

const isWordChar = (ch: string | undefined): boolean => ch !== undefined && /[\p{L}\p{N}_]/u.test(ch);

function wordStartBefore(text: string, i: number): number {
  let p = i;
  while (p > 0 && !isWordChar(text[p - 1])) p--;
  while (p > 0 && isWordChar(text[p - 1])) p--;
  return p;
}

function wordEndAfter(text: string, i: number): number {
  let p = i;
  while (p < text.length && !isWordChar(text[p])) p++;
  while (p < text.length && isWordChar(text[p])) p++;
  return p;
}

export const wordLeft = (s: EditState): EditState => ({ ...s, cursor: wordStartBefore(s.text, s.cursor) });
export const wordRight = (s: EditState): EditState => ({ ...s, cursor: wordEndAfter(s.text, s.cursor) });

/** Ctrl-W: deletes the word (and the blanks after it) before the cursor. */
export function deleteWordBefore(s: EditState): EditState {
  const p = wordStartBefore(s.text, s.cursor);
  return { text: s.text.slice(0, p) + s.text.slice(s.cursor), cursor: p };
}

/** Ctrl-U: deletes from the start of the line to the cursor (or the line break before it, at a line start). */
export function killToLineStart(s: EditState): EditState {
  let p = lineStartOf(s.text, s.cursor);
  if (p === s.cursor && p > 0) p -= 1;
  return { text: s.text.slice(0, p) + s.text.slice(s.cursor), cursor: p };
}

/** Ctrl-K: deletes from the cursor to the end of the line (or the line break, at a line end). */
export function killToLineEnd(s: EditState): EditState {
  let e = lineEndOf(s.text, s.cursor);
  if (e === s.cursor && e < s.text.length) e += 1;
  return { text: s.text.slice(0, s.cursor) + s.text.slice(e), cursor: s.cursor };
}

/** Moves to the same column of the previous line; null on the first line. */
export function lineUp(s: EditState): EditState | null {
  const start = lineStartOf(s.text, s.cursor);
  if (start === 0) return null;
  const col = s.cursor - start;
  const prevStart = lineStartOf(s.text, start - 1);
  return { ...s, cursor: snap(s.text, Math.min(prevStart + col, start - 1)) };
}

/** Moves to the same column of the next line; null on the last line. */
export function lineDown(s: EditState): EditState | null {
  const e = lineEndOf(s.text, s.cursor);
  if (e === s.text.length) return null;
  const col = s.cursor - lineStartOf(s.text, s.cursor);
  const nextStart = e + 1;
  return { ...s, cursor: snap(s.text, Math.min(nextStart + col, lineEndOf(s.text, nextStart))) };
}
