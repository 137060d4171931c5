// Keys typed faster than one read (or sent by tmux send-keys in a row) reach the prompt as one
// chunk, and Ink passes a chunk that holds no escape sequence on as a single input. Outside a
// bracketed paste such a chunk is typing: an editing key inside it (Ctrl+U, Ctrl+W, Backspace…)
// must act as that key, never vanish from pasted text (Ctrl+U, then "/explain", once read as
// the text "/expl/explain").
import type { Key } from 'ink';

/** A key with no flag set (the base of every key built here and in tests). */
export const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/** Control characters that are keys of their own: Ctrl+letter (but Tab, Enter, line feed), Backspace, Delete. */
const EDIT_KEY = /[\x01-\x08\x0b\x0c\x0e-\x1a\x7f]/;

/** The keys of a typed chunk, in order (text runs as one input each); undefined when the chunk holds no editing key. */
export function typedKeys(chunk: string): Array<[string, Key]> | undefined {
  if (chunk.length < 2 || !EDIT_KEY.test(chunk)) return undefined;
  const out: Array<[string, Key]> = [];
  let text = '';
  for (const ch of chunk) {
    if (!EDIT_KEY.test(ch)) {
      text += ch;
      continue;
    }
    if (text !== '') out.push([text, NO_KEY]);
    text = '';
    const code = ch.charCodeAt(0);
    if (code === 0x7f || code === 0x08) out.push(['', { ...NO_KEY, backspace: true }]);
    else out.push([String.fromCharCode(code + 0x60), { ...NO_KEY, ctrl: true }]);
  }
  if (text !== '') out.push([text, NO_KEY]);
  return out;
}
