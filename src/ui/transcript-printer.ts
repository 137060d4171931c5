// The transcript's part of the UI state: its items, what of them is already on the terminal, and
// how they get there. A long transcript prints its newest screenful first and the older items
// right after (screenful.ts). Where the App prints ahead of Ink (printAhead), the transcript goes
// out as text whenever it starts over; otherwise <Static> prints it.
import { printedText } from './item-text.js';
import type { TranscriptState } from './live-state.js';
import { DeferredItems, omittedNotice, type ScreenSize } from './screenful.js';
import { Store } from './store.js';
import type { Theme } from './theme.js';
import type { TranscriptItem } from './transcript.js';

export class TranscriptPrinter {
  readonly state: Store<TranscriptState>;
  /**
   * Called when the transcript is replaced by another session's (the App clears the screen), with
   * the transcript as text to print after that ('' when <Static> prints it).
   */
  onSessionReset: (text: string) => void = () => {};
  /** Called when the transcript is printed again from its start (the App clears the screen, not the scrollback), with it as text as above. */
  onReprint: (text: string) => void = () => {};
  /**
   * The width and theme the transcript is printed at as text when it starts over (see
   * printAhead); null: <Static> prints it. The App keeps the width current.
   */
  textLayout: { columns: number; theme: Theme } | null = null;
  /** Older items the first frame left out. */
  private readonly deferred = new DeferredItems((older, omitted) => this.reprint(older, omitted));

  /** `sessionId` names the session in the line about items left out of a reprint. */
  constructor(
    items: TranscriptItem[],
    private readonly sessionId: () => string,
  ) {
    this.state = new Store<TranscriptState>({ epoch: 0, items });
  }

  /** A long transcript prints its newest screenful first; the rest at backfill() (or at once for another session). */
  showNewestFirst(screen: ScreenSize): void {
    this.deferred.screen = screen;
    const t = this.state.get();
    this.state.set({ epoch: t.epoch, items: this.deferred.split(t.items, false) });
  }

  /**
   * Prints the transcript as text now, before the app's first frame, and marks it printed so that
   * <Static> does not print it again: Ink's layout of a resumed session's newest screenful took
   * longer than the rest of the first frame. From then on the transcript is printed again as text
   * too (a reprint, a redraw, another session) at `textLayout`. Items from the first one with no
   * text form on are left to <Static>. False when nothing was printed.
   */
  printAhead(print: (text: string) => void, columns: number, theme: Theme): boolean {
    this.textLayout = { columns, theme };
    const t = this.state.get();
    if ((t.printed ?? 0) > 0) return false;
    const { text, count } = this.asText(t.items);
    if (count === 0) return false;
    print(text);
    this.state.set({ ...t, printed: count });
    return true;
  }

  /** The leading items as the text <Static> would print, and how many (none without a text layout). */
  private asText(items: readonly TranscriptItem[]): { text: string; count: number } {
    return this.textLayout ? printedText(items, this.textLayout.columns, this.textLayout.theme) : { text: '', count: 0 };
  }

  /**
   * Starts the transcript over with `items`: `print` gets the leading ones as text (marked
   * printed, so that <Static> prints only the rest), '' when <Static> is to print them all.
   */
  private startOver(items: TranscriptItem[], print: (text: string) => void): void {
    const t = this.state.get();
    const { text, count } = this.asText(items);
    print(text);
    this.state.set(count === 0 ? { epoch: t.epoch + 1, items } : { epoch: t.epoch + 1, items, printed: count });
  }

  /** Another session's transcript replaces this one: its newest screenful now, the rest right after. */
  openSession(items: TranscriptItem[]): void {
    this.startOver(this.deferred.split(items), (text) => this.onSessionReset(text));
  }

  /** Prints the deferred older items now; with `always`, prints the transcript again even without any. */
  backfill(always = false): void {
    if (!this.deferred.flush() && always) this.reprint([], 0);
  }

  /** Prints the transcript again from its start, `older` items first (and a line for `omitted` ones). */
  private reprint(older: TranscriptItem[], omitted: number): void {
    const head = omitted > 0 ? [omittedNotice(omitted, this.sessionId())] : [];
    this.startOver([...head, ...older, ...this.state.get().items], (text) => this.onReprint(text));
  }

  /** Prints the whole transcript again; `clear` gets the text to print after clearing the screen (Ctrl-L, a resize). */
  redraw(clear: (text: string) => void): void {
    this.startOver(this.state.get().items, clear);
  }

  append(...items: TranscriptItem[]): void {
    if (items.length === 0) return;
    const t = this.state.get();
    this.state.set({ ...t, items: [...t.items, ...items] });
  }

  /** Stops the timer of a deferred reprint (the app is unmounting). */
  dispose(): void {
    this.deferred.dispose();
  }
}
