// A resumed session's transcript can hold thousands of items, and printing them all through
// <Static> before the first frame made opening it several times slower than a new session. The
// first frame prints the newest screenful; the older items follow once the app is on screen
// (UiStore reprints the transcript in order, so the scrollback holds it). The reprint stops at
// what a terminal's scrollback keeps anyway (BACKFILL_ROWS): printing more would only cost time.
import { itemId, type TranscriptItem } from './transcript.js';
import { plural } from '../tools/format.js';

export interface ScreenSize {
  rows: number;
  columns: number;
}

/** Rows the app itself takes under the transcript: the prompt box, its hint line and the gauge. */
export const PROMPT_AREA_ROWS = 5;

/** Rows of transcript the reprint fills at most (tmux keeps 2,000 lines of history by default). */
export const BACKFILL_ROWS = 2_000;

/** Rows a text takes at this width (wrapped lines), capped: only "more than a screen" matters. */
function textRows(text: string, columns: number, cap: number): number {
  let rows = 0;
  for (const line of text.split('\n')) {
    rows += Math.max(1, Math.ceil(line.length / Math.max(1, columns - 2)));
    if (rows >= cap) return cap;
  }
  return rows;
}

/** A generous guess of the rows an item prints (its margin included); exactness does not matter. */
export function estimatedRows(item: TranscriptItem, size: ScreenSize): number {
  const cap = size.rows;
  switch (item.kind) {
    case 'user':
    case 'assistant':
    case 'checkpoint':
    case 'meta':
    case 'notice':
    case 'error':
    case 'retry':
      return 1 + textRows(item.text, size.columns, cap);
    case 'tool_output':
      return 2 + textRows(item.output, size.columns, cap);
    case 'command':
      return cap;
    default:
      return 3;
  }
}

/**
 * Where the newest screenful starts: the index of the first item to print on the first frame
 * (enough to fill the rows above the prompt), 0 when everything fits in about two screens
 * (nothing worth deferring).
 */
export function newestScreenfulStart(items: readonly TranscriptItem[], size: ScreenSize): number {
  const visible = Math.max(1, size.rows - PROMPT_AREA_ROWS);
  let rows = 0;
  let start = items.length;
  while (start > 0 && rows < visible) {
    start--;
    rows += estimatedRows(items[start]!, size);
  }
  let older = 0;
  for (let i = 0; i < start && older < size.rows; i++) older += estimatedRows(items[i]!, size);
  return older < size.rows ? 0 : start;
}

/** Index of the oldest item the reprint includes: the items before `end` that fill `rows`. */
function backfillStart(items: readonly TranscriptItem[], end: number, size: ScreenSize, rows: number): number {
  let used = 0;
  let i = end;
  while (i > 0 && used < rows) {
    i--;
    used += estimatedRows(items[i]!, size);
  }
  return used > rows ? i + 1 : i;
}

/** Holds the older items of a transcript whose newest screenful was printed first, until they print. */
export class DeferredItems {
  private older: TranscriptItem[] = [];
  private omitted = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  screen: ScreenSize | null = null;

  /**
   * `print` gets the older items (right after the current frame) to print before the rest, and
   * how many items older still are left out (beyond what a scrollback keeps).
   */
  constructor(private readonly print: (older: TranscriptItem[], omitted: number) => void) {}

  /**
   * The items to print now; the older ones are printed right after the frame, or, without
   * `schedule`, when flush() is called. Cancels what an earlier split deferred.
   */
  split(items: TranscriptItem[], schedule = true): TranscriptItem[] {
    this.dispose();
    const start = this.screen ? newestScreenfulStart(items, this.screen) : 0;
    if (start === 0 || !this.screen) return items;
    this.omitted = backfillStart(items, start, this.screen, BACKFILL_ROWS);
    this.older = items.slice(this.omitted, start);
    if (schedule) this.timer = setTimeout(() => this.flush(), 0);
    return items.slice(start);
  }

  /** Prints what is deferred; false when nothing was. */
  flush(): boolean {
    const { older, omitted } = this;
    this.dispose();
    if (older.length === 0 && omitted === 0) return false;
    this.print(older, omitted);
    return true;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.older = [];
    this.omitted = 0;
  }
}

/** The line a reprint starts with when items older than BACKFILL_ROWS are left out. */
export function omittedNotice(omitted: number, sessionId: string): TranscriptItem {
  const text = `${plural(omitted, 'earlier item')} not shown: \`agent sessions show ${sessionId}\` prints the whole session.`;
  return { kind: 'notice', id: itemId(), level: 'info', text };
}
