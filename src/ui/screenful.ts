// A resumed session's transcript can hold thousands of items, and printing them all through
// <Static> before the first frame made opening it several times slower than a new session. The
// first frame prints the newest screenful; the older items follow once the app is on screen
// (UiStore.backfill reprints the whole transcript in order, so the scrollback holds all of it).
import type { TranscriptItem } from './transcript.js';

export interface ScreenSize {
  rows: number;
  columns: number;
}

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
 * Where the newest screenful starts: the index of the first item to print on the first frame,
 * 0 when everything fits in about two screens (nothing worth deferring).
 */
export function newestScreenfulStart(items: readonly TranscriptItem[], size: ScreenSize): number {
  let rows = 0;
  let start = items.length;
  while (start > 0 && rows < size.rows) {
    start--;
    rows += estimatedRows(items[start]!, size);
  }
  let older = 0;
  for (let i = 0; i < start && older < size.rows; i++) older += estimatedRows(items[i]!, size);
  return older < size.rows ? 0 : start;
}

/** Holds the older items of a transcript whose newest screenful was printed first, until they print. */
export class DeferredItems {
  private older: TranscriptItem[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  screen: ScreenSize | null = null;

  /** `print` gets the older items (right after the current frame) to print before the rest. */
  constructor(private readonly print: (older: TranscriptItem[]) => void) {}

  /** The items to print now; the older ones are scheduled. Cancels what an earlier split deferred. */
  split(items: TranscriptItem[]): TranscriptItem[] {
    this.dispose();
    const start = this.screen ? newestScreenfulStart(items, this.screen) : 0;
    if (start === 0) return items;
    this.older = items.slice(0, start);
    this.timer = setTimeout(() => this.flush(), 0);
    return items.slice(start);
  }

  flush(): void {
    const older = this.older;
    this.dispose();
    if (older.length > 0) this.print(older);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.older = [];
  }
}
