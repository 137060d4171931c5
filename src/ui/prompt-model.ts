// The prompt: editing keys, history, pasted text and slash-command completion. Plain state with a
// store, so the App routes keys here and only the prompt's view re-renders on a keystroke.
import type { Key } from 'ink';
import { bareName, commonPrefix, completionOf, sameMenu, type CompletionView } from './completion.js';
import type { CommandInfo } from '../protocol/views.js';
import type { EditState } from './prompt-editor.js';
import * as ed from './prompt-editor.js';
import { fillMention, mentionAt, type MentionView } from './mention-completion.js';
import { PASTE_END, PASTE_START, PastedTexts } from './prompt-paste.js';
import { PromptHistoryCursor } from './prompt-history-cursor.js';
import { Store } from './store.js';
import { typedKeys } from './typed-keys.js';

export interface PromptState extends EditState {
  completion: CompletionView | null;
  /** `@path` completion, when the cursor ends an @word and paths match. */
  mention?: MentionView | null;
  /** Ctrl+R: searching earlier prompts; the text shows the match. */
  search?: HistorySearch | null;
  /** A one-line note under the prompt until the next key ("/" and Enter: how to choose a command). */
  note?: string | null;
}

export interface HistorySearch {
  query: string;
  /** Index of the shown match in the history; -1 when nothing matches. */
  index: number;
}

export interface PromptModelOptions {
  /** Earlier prompts, oldest first. */
  history: readonly string[];
  commands: () => readonly CommandInfo[];
  onSubmit: (text: string) => void;
  /** Paths for what follows an "@" (absent: no @ completion). */
  completePath?: (query: string) => Promise<string[]>;
  /** The clock that tells chunks of one paste from later input where the terminal does not mark pastes (tests). */
  now?: () => number;
}

// Residue of an escape sequence Ink did not recognise ("[200~", "[1;5P"): never text to insert.
const UNPARSED_SEQUENCE = /^\[[\d;?]*[~A-Za-z]$/;

export class PromptModel {
  readonly store = new Store<PromptState>({ text: '', cursor: 0, completion: null });
  private readonly history: PromptHistoryCursor;
  readonly pastes: PastedTexts;
  private cycling = false;
  /** The menu's highlight was moved with the arrows (and is not in the text yet). */
  private picked = false;
  /** What was typed before Ctrl+R, put back when the search is cancelled. */
  private searchDraft = '';
  /** Numbers the @path look-ups, so only the latest one is shown. */
  private mentionAsk = 0;

  constructor(private readonly opts: PromptModelOptions) {
    this.history = new PromptHistoryCursor(opts.history);
    this.pastes = new PastedTexts(opts.now);
  }

  get state(): PromptState {
    return this.store.get();
  }

  /** Between the terminal's paste marks: every key up to the end mark belongs to the paste. */
  get pasting(): boolean {
    return this.pastes.pasting;
  }

  isEmpty(): boolean {
    return this.state.text === '';
  }

  clear(): void {
    this.history.reset();
    this.cycling = false;
    this.store.set({ text: '', cursor: 0, completion: null });
  }

  /** Puts text back in front of what is being typed (queued, refused or unanswered prompts); a paste in it comes back as its chip. */
  restore(sent: string): void {
    const text = this.pastes.collapse(sent);
    const current = this.state.text;
    const joined = current === '' ? text : `${text}\n${current}`;
    this.history.reset();
    this.store.set({ text: joined, cursor: joined.length, completion: null });
  }

  /** Hides the completion list; false when none was shown. */
  dismissCompletion(): boolean {
    if (this.state.search) {
      this.store.set({ text: this.searchDraft, cursor: this.searchDraft.length, completion: null, search: null });
      return true;
    }
    if (!this.state.completion && !this.state.mention) return false;
    this.cycling = false;
    this.mentionAsk++;
    this.store.set({ ...this.state, completion: null, mention: null });
    return true;
  }

  handleKey(input: string, key: Key): void {
    // the terminal marks a paste: everything up to its end mark is pasted text, keys included
    if (input === PASTE_START) return this.pastes.begin();
    if (this.pastes.pasting) {
      if (input !== PASTE_END) return this.pastes.add(key.return ? '\r' : key.tab ? '\t' : input);
      const next = this.pastes.end(this.state);
      if (next) this.edit(next);
      return;
    }
    if (input === PASTE_END) return;
    const keys = typedKeys(input);
    if (keys) for (const [i, k] of keys) this.handleKey(i, k);
    if (keys) return;
    if (this.state.search) {
      if (this.searchKey(input, key)) return;
    } else if (key.ctrl && input === 'r') {
      this.searchDraft = this.state.text;
      this.store.set({ ...this.state, completion: null, mention: null, search: { query: '', index: -1 } });
      return;
    }
    const s = this.state;
    const mention = s.mention && s.mention.matches.length > 0 ? s.mention : null;
    if (mention && (key.tab || key.upArrow || key.downArrow || (key.return && !key.meta))) return this.mentionKey(mention, key);
    if (key.tab) return this.complete(key.shift ? -1 : 1);
    this.cycling = false;
    const menu = s.completion && s.completion.matches.length > 0 ? s.completion : null;
    if (menu && (key.upArrow || key.downArrow)) return this.highlight(menu, key.upArrow ? -1 : 1);
    if (key.return) {
      if (key.meta) return this.edit(ed.insert(s, '\n'));
      if (s.cursor > 0 && s.text[s.cursor - 1] === '\\') return this.edit(ed.insert(ed.backspace(s), '\n'));
      if (menu) return this.takeHighlighted(menu);
      return this.submit();
    }
    if (input === '\n' && !key.ctrl && !key.meta) return this.edit(ed.insert(s, '\n'));
    if (key.upArrow) return this.move(ed.lineUp(s) ?? this.history.step(-1, s.text));
    if (key.downArrow) return this.move(ed.lineDown(s) ?? this.history.step(1, s.text));
    if (key.leftArrow) return this.move(key.ctrl || key.meta ? ed.wordLeft(s) : ed.left(s));
    if (key.rightArrow) return this.move(key.ctrl || key.meta ? ed.wordRight(s) : ed.right(s));
    if (key.home) return this.move(ed.home(s));
    if (key.end) return this.move(ed.end(s));
    if (key.backspace || key.delete) return this.edit(key.meta ? ed.deleteWordBefore(s) : ed.backspace(s));
    if (key.ctrl) {
      switch (input) {
        case 'a':
          return this.move(ed.home(s));
        case 'e':
          return this.move(ed.end(s));
        case 'b':
          return this.move(ed.left(s));
        case 'f':
          return this.move(ed.right(s));
        case 'd':
          return this.edit(ed.deleteForward(s));
        case 'u':
          return this.edit(ed.killToLineStart(s));
        case 'k':
          return this.edit(ed.killToLineEnd(s));
        case 'w':
          return this.edit(ed.deleteWordBefore(s));
        case 'v':
          return void this.pastes.clipboard(this.store, (n) => this.edit(n));
        default:
          return;
      }
    }
    if (key.meta) {
      if (input === 'b') return this.move(ed.wordLeft(s));
      if (input === 'f') return this.move(ed.wordRight(s));
      return;
    }
    if (key.escape || input === '' || UNPARSED_SEQUENCE.test(input)) return;
    // Keys typed faster than one read (or sent by tmux send-keys) arrive as one chunk: a single
    // line ending in Enter is typing, not a paste, so it submits as a shell would.
    const typedLine = /^([^\r\n]+)\r$/.exec(input);
    if (typedLine) {
      this.edit(ed.insert(s, typedLine[1]!.replace(/[\x00-\x1f\x7f]/g, '')));
      return this.submit();
    }
    if (input.length > 1 || /[\r\n]/.test(input)) return this.paste(input);
    if (/[\x00-\x1f\x7f]/.test(input)) return;
    this.edit(ed.insert(s, input));
  }

  /** Inserts pasted text: whole, with its line breaks; long pastes as a placeholder. */
  paste(raw: string): void {
    const next = this.pastes.insert(raw, this.state);
    if (next) this.edit(next);
    this.pastes.stamp();
  }

  /** The prompt's text with every paste placeholder replaced by what was pasted. */
  expanded(text = this.state.text): string {
    return this.pastes.expand(text);
  }

  /** "usage: /history <query> | open <id>" while the text is a command that needs an argument and has none yet. */
  usage(text: string): string | null {
    const m = /^\/([\w-]+)\s*$/.exec(text);
    if (!m) return null;
    const cmd = this.opts.commands().find((c) => bareName(c) === m[1]);
    return cmd?.args?.startsWith('<') ? `usage: /${bareName(cmd)} ${cmd.args} — type it, then Enter` : null;
  }

  submit(): void {
    const text = this.expanded();
    if (text.trim() === '') return;
    this.history.push(text);
    this.pastes.sent();
    this.store.set({ text: '', cursor: 0, completion: null });
    this.opts.onSubmit(text);
  }

  /**
   * Keys during a Ctrl+R search: typing narrows, Ctrl+R goes to an older match, Enter sends the
   * match, Esc or Ctrl+G puts the draft back; any other key takes the match into the prompt and
   * then does what it does (false: not handled here).
   */
  private searchKey(input: string, key: Key): boolean {
    const search = this.state.search!;
    if (key.escape || (key.ctrl && input === 'g')) {
      this.store.set({ text: this.searchDraft, cursor: this.searchDraft.length, completion: null, search: null });
      return true;
    }
    if (key.ctrl && input === 'r') return this.findMatch(search.query, search.index === -1 ? this.history.entries.length - 1 : search.index - 1, search);
    if (key.backspace || key.delete) return this.findMatch([...search.query].slice(0, -1).join(''), this.history.entries.length - 1, search);
    if (key.return) {
      const found = search.index === -1 ? '' : this.history.entries[search.index]!;
      this.store.set({ text: found, cursor: found.length, completion: null, search: null });
      if (found !== '') this.submit();
      return true;
    }
    if (
      !key.ctrl &&
      !key.meta &&
      !key.tab &&
      !key.upArrow &&
      !key.downArrow &&
      !key.leftArrow &&
      !key.rightArrow &&
      input !== '' &&
      !/[\x00-\x1f\x7f]/.test(input)
    ) {
      return this.findMatch(search.query + input, search.index === -1 ? this.history.entries.length - 1 : search.index, search);
    }
    // leave the search with the match in the prompt, then handle the key as usual
    this.store.set({ ...this.state, search: null });
    return false;
  }

  /** The newest prompt at or before `from` that contains the query (the match stays put when there is none). */
  private findMatch(query: string, from: number, current: HistorySearch): true {
    const q = query.toLowerCase();
    for (let i = Math.min(from, this.history.entries.length - 1); i >= 0; i--) {
      const entry = this.history.entries[i]!;
      const at = entry.toLowerCase().indexOf(q);
      if (q !== '' && at !== -1) {
        this.store.set({ text: entry, cursor: at, completion: null, search: { query, index: i } });
        return true;
      }
    }
    const keep = q === '' ? -1 : current.query === query ? current.index : -1;
    this.store.set({ ...this.state, text: keep === -1 ? '' : this.state.text, cursor: keep === -1 ? 0 : this.state.cursor, search: { query, index: keep } });
    return true;
  }

  /** Keys while @path matches are listed: ↑↓ choose, Tab takes the highlighted path, Enter too (or sends when it is already complete). */
  private mentionKey(m: MentionView, key: Key): void {
    if (key.upArrow || key.downArrow) {
      const n = m.matches.length;
      return this.store.set({ ...this.state, mention: { ...m, index: (m.index + (key.upArrow ? -1 : 1) + n) % n } });
    }
    const chosen = m.matches[m.index]!;
    // the matches may be for a shorter word than the one typed now: fill the word as it stands
    const at = mentionAt(this.state.text, this.state.cursor) ?? m;
    if (key.return && chosen === at.query) return this.submit();
    this.edit(fillMention(this.state, at, chosen));
  }

  /** Asks for the paths matching the @word at the cursor; they are shown if the word is still there when they come. */
  private lookUpMention(next: EditState): void {
    const at = this.opts.completePath ? mentionAt(next.text, next.cursor) : null;
    if (!at) {
      if (this.state.mention) this.store.set({ ...this.state, mention: null });
      return;
    }
    const ask = ++this.mentionAsk;
    this.opts.completePath!(at.query).then(
      (matches) => {
        if (ask !== this.mentionAsk) return;
        const now = mentionAt(this.state.text, this.state.cursor);
        if (!now || now.start !== at.start || now.query !== at.query) return;
        this.store.set({ ...this.state, mention: matches.length > 0 ? { ...at, matches, index: 0 } : null });
      },
      () => undefined,
    );
  }

  /** ↑↓ in the command menu: moves the highlight, the text stays as typed. */
  private highlight(c: CompletionView, dir: -1 | 1): void {
    const n = c.matches.length;
    const from = c.index === -1 ? 0 : c.index;
    this.picked = true;
    this.store.set({ ...this.state, completion: { ...c, index: (from + dir + n) % n } });
  }

  /** Enter in the command menu: the highlighted command runs (one that needs an argument is filled in, waiting for it). */
  private takeHighlighted(c: CompletionView): void {
    // a lone "/" chose nothing yet: Enter must not run whichever command sorts first (/clear)
    if (c.word === '/' && c.index === -1)
      return this.store.set({ ...this.state, note: 'Choose a command: ↑↓ then Enter, or type its name · /help lists every command and key' });
    const chosen = c.matches[Math.max(0, c.index)]!;
    const name = `/${bareName(chosen)}`;
    this.picked = false;
    if (chosen.args?.startsWith('<')) return this.edit(fillWord(this.state.text, `${name} `));
    const filled = fillWord(this.state.text, name);
    this.store.set({ ...filled, completion: null });
    this.submit();
  }

  /** The menu shown, made again from the commands as they are now (a fresh session opens after the first frame and brings its own); kept when its matches are the same. */
  refreshMenu(): void {
    const s = this.state;
    if (!s.completion) return;
    const next = this.completionFor(s.text, s.cursor);
    if (sameMenu(next, s.completion)) return;
    this.picked = false;
    this.cycling = false;
    this.store.set({ ...s, completion: next });
  }

  private complete(dir: -1 | 1): void {
    const s = this.state;
    const c = s.completion ?? this.completionFor(s.text, s.cursor);
    if (!c || c.matches.length === 0) return;
    const names = c.matches.map(bareName);
    if (this.picked && c.index !== -1) {
      // the person chose with the arrows: Tab takes that one
      this.picked = false;
      return this.edit(fillWord(s.text, `/${names[c.index]!} `));
    }
    if (c.matches.length === 1) {
      this.cycling = false;
      return this.edit(fillWord(s.text, `/${names[0]!} `));
    }
    if (!this.cycling) {
      const lcp = commonPrefix(names);
      if (lcp.length > c.word.length - 1) return this.edit(fillWord(s.text, `/${lcp}`));
    }
    this.cycling = true;
    const index = c.index === -1 ? (dir === 1 ? 0 : names.length - 1) : (c.index + dir + names.length) % names.length;
    const filled = fillWord(s.text, `/${names[index]!}`);
    this.store.set({ ...filled, completion: { ...c, index } });
  }

  private completionFor(text: string, cursor: number): CompletionView | null {
    return completionOf(text, cursor, this.opts.commands());
  }

  private edit(next: EditState): void {
    this.history.reset();
    this.picked = false;
    this.set(this.wholeChips(next));
  }

  private move(next: EditState | null): void {
    if (next) this.set(this.offChips(next));
  }

  /**
   * A deletion that cuts into a paste placeholder takes the whole placeholder (every deletion
   * leaves the cursor where the removed text began).
   */
  private wholeChips(next: EditState): EditState {
    const prev = this.state;
    const removed = prev.text.length - next.text.length;
    if (removed <= 0) return next;
    let from = next.cursor;
    let to = from + removed;
    if (prev.text.slice(0, from) + prev.text.slice(to) !== next.text) return next;
    for (const c of this.pastes.chips(prev.text)) {
      if (c.start < to && c.end > from) {
        from = Math.min(from, c.start);
        to = Math.max(to, c.end);
      }
    }
    return { text: prev.text.slice(0, from) + prev.text.slice(to), cursor: from };
  }

  /** The cursor never rests inside a placeholder: moving into one jumps over it. */
  private offChips(next: EditState): EditState {
    const prev = this.state;
    const c = this.pastes.chips(next.text).find((chip) => chip.start < next.cursor && next.cursor < chip.end);
    if (!c) return next;
    if (next.text !== prev.text) return { ...next, cursor: next.cursor - c.start < c.end - next.cursor ? c.start : c.end };
    return { ...next, cursor: next.cursor < prev.cursor ? c.start : c.end };
  }

  private set(next: EditState): void {
    const prev = this.state;
    if (next.text === prev.text && next.cursor === prev.cursor) return;
    const completion = next.text === prev.text && !prev.completion ? null : this.completionFor(next.text, next.cursor);
    const mention = prev.mention && mentionAt(next.text, next.cursor)?.start === prev.mention.start ? prev.mention : null;
    this.store.set({ text: next.text, cursor: next.cursor, completion, mention });
    this.lookUpMention(next);
  }
}

/** Replaces the command word at the start of the text ("/co" → "/compact"). */
function fillWord(text: string, replacement: string): EditState {
  const rest = text.replace(/^\/\S*/, '');
  const t = replacement + (replacement.endsWith(' ') ? rest.replace(/^ /, '') : rest);
  return { text: t, cursor: replacement.length };
}
