// Pasted text in the prompt: inserted whole with its line breaks; a long paste shows as a
// placeholder ("[pasted text #1 · 40 lines]"), one atomic chip in the text (PromptModel keeps the
// cursor off its inside and deletes it whole), expanded when the prompt is sent. The terminal
// marks where a paste starts and ends (bracketed paste); where it does not, chunks that arrive
// within PASTE_JOIN_MS of each other count as one paste.
import { writeFileSync } from 'node:fs';
import { scratchFile } from '../runtime/scratchDir.js';
import type { EditState } from './prompt-editor.js';
import * as ed from './prompt-editor.js';
import { clipboardImage, imageMention, pastedImagePaths } from './pasted-image.js';
import { fmtInt } from '../tools/format.js';

/** Pastes longer than this (lines or characters) are shown as a placeholder and expanded on submit. */
export const PASTE_MAX_INLINE_LINES = 8;
export const PASTE_MAX_INLINE_CHARS = 1000;

/**
 * Without bracketed paste, a chunk this soon after a placeholder's last one was taken in continues
 * that paste: the terminal sends a long paste in reads back to back, while a person who sees the
 * placeholder and types, commits IME text or pastes again takes longer.
 */
export const PASTE_JOIN_MS = 100;

/** Turns the terminal's bracketed paste mode on (the prompt is told where each paste starts and ends) and off. */
export const BRACKETED_PASTE_ON = '\u001b[?2004h';
export const BRACKETED_PASTE_OFF = '\u001b[?2004l';

/** What Ink passes on for the terminal's paste start and end marks (ESC [200~ and ESC [201~, the ESC stripped). */
export const PASTE_START = '[200~';
export const PASTE_END = '[201~';

/** Where a placeholder lies in the prompt's text: [start, end). */
export interface Chip {
  start: number;
  end: number;
}

export class PastedTexts {
  /** Placeholder label → pasted text. */
  private readonly texts = new Map<string, string>();
  private count = 0;
  private images = 0;
  private lastLabel: string | null = null;
  private lastAt = 0;
  /** The terminal marks pastes: chunks are never joined by timing. */
  private bracketed = false;
  /** The last chunk ended with a carriage return (its line feed may open the next chunk). */
  private endedWithCR = false;
  /** Between the terminal's paste start and end marks: what arrived so far. */
  private open: string | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  get pasting(): boolean {
    return this.open !== null;
  }

  /** The terminal's paste start mark. */
  begin(): void {
    this.bracketed = true;
    this.open = '';
  }

  /** A chunk of the paste under way. */
  add(chunk: string): void {
    this.open = (this.open ?? '') + chunk;
  }

  /** The terminal's paste end mark: the prompt after inserting the whole paste (null: nothing to insert). */
  end(s: EditState): EditState | null {
    const raw = this.open ?? '';
    this.open = null;
    this.lastLabel = null;
    return this.insert(raw, s);
  }

  /** The prompt after pasting `raw` at the cursor; null when nothing is left to paste. */
  insert(raw: string, s: EditState): EditState | null {
    const last = this.lastLabel;
    const joins = !this.bracketed && this.now() - this.lastAt <= PASTE_JOIN_MS && last !== null && s.text.slice(s.cursor - last.length, s.cursor) === last;
    // a CRLF cut between two chunks of one paste is one line break, not two
    const text = cleanPaste(joins && this.endedWithCR && raw.startsWith('\n') ? raw.slice(1) : raw);
    this.endedWithCR = raw.endsWith('\r');
    if (text === '') return null;
    this.lastAt = Number.NEGATIVE_INFINITY;
    // Without paste marks, a paste larger than one read arrives in several chunks, back to back:
    // they join the placeholder before the cursor. Anything later (a second paste, IME text,
    // fast typing) is text of its own.
    if (joins) {
      const content = (this.texts.get(last) ?? '') + text;
      const label = this.label(content);
      this.texts.delete(last);
      this.texts.set(label, content);
      this.lastLabel = label;
      const start = s.cursor - last.length;
      return { text: s.text.slice(0, start) + label + s.text.slice(s.cursor), cursor: start + label.length };
    }
    // a dropped image file (its path, as the terminal pastes it): a chip sent as an @mention of the file
    const images = pastedImagePaths(text);
    if (images) {
      this.lastLabel = null;
      return images.reduce((st, path) => this.image(path, st), s);
    }
    const lines = lineCount(text);
    if (lines > PASTE_MAX_INLINE_LINES || text.length > PASTE_MAX_INLINE_CHARS) {
      this.count++;
      const label = this.label(text);
      this.texts.set(label, text);
      this.lastLabel = label;
      return ed.insert(s, label);
    }
    this.lastLabel = null;
    return ed.insert(s, text.replace(/\t/g, '    '));
  }

  /** An "[Image #n]" chip at the cursor for the image file at `path` (sent as an @mention of it). */
  image(path: string, s: EditState): EditState {
    const label = `[Image #${++this.images}]`;
    this.texts.set(label, imageMention(path));
    return ed.insert(s, label);
  }

  /** Ctrl+V: the clipboard's image becomes a chip at the cursor as it is then; the prompt's note says why when there is none (or no tool to read it). */
  async clipboard<S extends EditState & { note?: string | null }>(prompt: { get(): S; set(v: S): void }, edit: (s: EditState) => void): Promise<void> {
    const r = await clipboardImage();
    if ('path' in r) edit(this.image(r.path, prompt.get()));
    else prompt.set({ ...prompt.get(), note: r.why });
  }

  /** The paste was taken in (and drawn): the time a next chunk must come within to continue it starts now. */
  stamp(): void {
    this.lastAt = this.now();
  }

  /** Where the placeholders in `text` are, in order. */
  chips(text: string): Chip[] {
    const out: Chip[] = [];
    for (const label of this.texts.keys()) {
      for (let i = text.indexOf(label); i !== -1; i = text.indexOf(label, i + label.length)) out.push({ start: i, end: i + label.length });
    }
    return out.sort((a, b) => a.start - b.start);
  }

  private label(content: string): string {
    const lines = lineCount(content);
    const size = lines > 1 ? `${fmtInt(lines)} lines` : `${fmtInt(content.length)} chars`;
    return `[pasted text #${this.count} · ${size}]`;
  }

  /** `text` with every placeholder replaced by what was pasted. */
  expand(text: string): string {
    let out = text;
    for (const [label, content] of this.texts) out = out.split(label).join(content);
    return out;
  }

  /**
   * `text` with each pasted text it holds folded back into its placeholder (a prompt that comes
   * back to the input), longest first; a paste at an end of the prompt was trimmed with it when sent.
   */
  collapse(text: string): string {
    let out = text;
    for (const [label, content] of [...this.texts].sort((a, b) => b[1].length - a[1].length))
      for (const form of new Set([content, content.trim()])) if (form !== '') out = out.split(form).join(label);
    return out;
  }

  /**
   * Ctrl+S on a prompt holding placeholders (one too large for the window came back): each pasted
   * text is saved as a file and attached with @ in its place, so a large one goes as its first and
   * last lines with a handle the model reads the rest through. Undefined when there is none.
   */
  attachAsFiles(s: EditState): EditState | undefined {
    const chips = this.chips(s.text);
    if (chips.length === 0) return undefined;
    let text = s.text;
    for (const chip of chips.reverse()) {
      const path = scratchFile('pasted-text', '.txt');
      writeFileSync(path, this.texts.get(s.text.slice(chip.start, chip.end)) ?? '', { mode: 0o600 });
      text = `${text.slice(0, chip.start)}${imageMention(path)} ${text.slice(chip.end)}`;
    }
    return { text, cursor: text.length };
  }

  /** The prompt was sent: the next paste starts a placeholder of its own. */
  sent(): void {
    this.lastLabel = null;
  }
}

/** Lines of a text; the newline that ends the last one starts no line of its own. */
const lineCount = (text: string): number => (text === '' ? 0 : text.replace(/\n$/, '').split('\n').length);

/** Pasted text keeps its line breaks and tabs; terminal line endings become "\n", escapes and controls go. */
export function cleanPaste(raw: string): string {
  return raw
    .replace(/\r\n?/g, '\n')
    .replace(/\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]/g, '')
    .replace(/\x1b[\x20-\x2f]*[\x30-\x7e]?/g, '')
    .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
}
