// Pasted text in the prompt: inserted whole with its line breaks; a long paste shows as a
// placeholder ("[pasted text #1 · 40 lines]") and is expanded when the prompt is sent.
import type { EditState } from './prompt-editor.js';
import * as ed from './prompt-editor.js';

/** Pastes longer than this (lines or characters) are shown as a placeholder and expanded on submit. */
export const PASTE_MAX_INLINE_LINES = 8;
export const PASTE_MAX_INLINE_CHARS = 1000;

export class PastedTexts {
  /** Placeholder label → pasted text. */
  private readonly texts = new Map<string, string>();
  private count = 0;
  private lastLabel: string | null = null;

  /** The prompt after pasting `raw` at the cursor; null when nothing is left to paste. */
  insert(raw: string, s: EditState): EditState | null {
    const text = cleanPaste(raw);
    if (text === '') return null;
    const last = this.lastLabel;
    // A paste larger than one read arrives in several chunks: they join the placeholder before the cursor.
    if (last && s.text.slice(s.cursor - last.length, s.cursor) === last) {
      const content = (this.texts.get(last) ?? '') + text;
      const label = this.label(content);
      this.texts.delete(last);
      this.texts.set(label, content);
      this.lastLabel = label;
      const start = s.cursor - last.length;
      return { text: s.text.slice(0, start) + label + s.text.slice(s.cursor), cursor: start + label.length };
    }
    const lines = text.split('\n').length;
    if (lines > PASTE_MAX_INLINE_LINES || text.length > PASTE_MAX_INLINE_CHARS) {
      this.count++;
      const label = this.label(text);
      this.texts.set(label, text);
      this.lastLabel = label;
      return ed.insert(s, label);
    }
    return ed.insert(s, text.replace(/\t/g, '    '));
  }

  private label(content: string): string {
    const lines = content.replace(/\n$/, '').split('\n').length;
    const size = lines > 1 ? `${lines.toLocaleString('en-US')} lines` : `${content.length.toLocaleString('en-US')} chars`;
    return `[pasted text #${this.count} · ${size}]`;
  }

  /** `text` with every placeholder replaced by what was pasted. */
  expand(text: string): string {
    let out = text;
    for (const [label, content] of this.texts) out = out.split(label).join(content);
    return out;
  }

  /** The prompt was sent: the next paste starts a placeholder of its own. */
  sent(): void {
    this.lastLabel = null;
  }
}

/** Pasted text keeps its line breaks and tabs; terminal line endings become "\n", escapes and controls go. */
export function cleanPaste(raw: string): string {
  return raw
    .replace(/\r\n?/g, '\n')
    .replace(/\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]/g, '')
    .replace(/\x1b[\x20-\x2f]*[\x30-\x7e]?/g, '')
    .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
}
