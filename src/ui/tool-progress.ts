// Output of running tools as it streams in: the last lines for the live view, and the whole
// text (bounded) so Ctrl-O can show everything when the model only got the head and tail.
import { spillHeaderOf } from '../tools/spill.js';
import { sanitize } from './sanitize.js';
import { Store } from './store.js';
import { fmtInt } from '../tools/format.js';

/** More streamed output than this keeps its beginning and end only. */
export const FULL_OUTPUT_MAX_CHARS = 4_000_000;
const TAIL_CHARS = 8_000;

interface Entry {
  head: string;
  /** The text after head, its start dropped once the total passes the cap. */
  rest: string;
  total: number;
}

export class ToolProgress {
  private readonly entries = new Map<string, Entry>();

  push(id: string, text: string): void {
    const e = this.entries.get(id) ?? { head: '', rest: '', total: 0 };
    e.total += text.length;
    if (e.head.length < FULL_OUTPUT_MAX_CHARS / 2) {
      const room = FULL_OUTPUT_MAX_CHARS / 2 - e.head.length;
      e.head += text.slice(0, room);
      text = text.slice(room);
    }
    e.rest += text;
    if (e.rest.length > FULL_OUTPUT_MAX_CHARS) e.rest = e.rest.slice(e.rest.length - FULL_OUTPUT_MAX_CHARS / 2);
    this.entries.set(id, e);
  }

  /** The last `lines` lines streamed by a tool, sanitized, blank trailing lines left out. */
  tail(id: string, lines: number): string[] {
    const e = this.entries.get(id);
    if (!e) return [];
    const text = (e.head + e.rest).slice(-TAIL_CHARS).replace(/\s+$/, '');
    if (text === '') return [];
    return sanitize(text).split('\n').slice(-lines);
  }

  ids(): string[] {
    return [...this.entries.keys()];
  }

  /** Everything a tool streamed (head and tail past the cap), and forgets it. */
  take(id: string): string | undefined {
    const e = this.entries.get(id);
    this.entries.delete(id);
    if (!e) return undefined;
    const kept = e.head.length + e.rest.length;
    return kept < e.total ? `${e.head}\n… [${fmtInt(e.total - kept)} characters not kept] …\n${e.rest}` : e.head + e.rest;
  }

  clear(): void {
    this.entries.clear();
  }
}

const CUT_MARKER = /… \[([\d,]+) characters \(([\d,]+) lines\) cut from the middle of the output\] …/;

/** What the model's copy of an output left out (the Bash tool's head-and-tail marker), if anything. */
export function cutForModel(output: string): { chars: string; lines: string } | undefined {
  const m = CUT_MARKER.exec(output);
  return m ? { chars: m[1]!, lines: m[2]! } : undefined;
}

/** "o12 · 6,001 lines, 42 KB" when the output is a spill preview (the receipt of the tool row). */
export function spillReceiptOf(output: string): string | undefined {
  const h = spillHeaderOf(output);
  return h ? `${h.handle} · ${h.lines}, ${h.size}` : undefined;
}

/** Lines of a running tool's output shown live under its row. */
export const LIVE_OUTPUT_LINES = 5;
const TAIL_REFRESH_MS = 100;

/**
 * The live view of running tools' output: `tails` (tool id → last lines) is refreshed at most
 * every TAIL_REFRESH_MS, so a chatty command does not re-render the live region per chunk.
 */
export class LiveToolOutput {
  readonly tails = new Store<Record<string, string[]>>({});
  private readonly progress = new ToolProgress();
  private timer: ReturnType<typeof setTimeout> | null = null;

  push(id: string, text: string): void {
    this.progress.push(id, text);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      const tails: Record<string, string[]> = {};
      for (const tool of this.progress.ids()) tails[tool] = this.progress.tail(tool, LIVE_OUTPUT_LINES);
      this.tails.set(tails);
    }, TAIL_REFRESH_MS);
  }

  /** The tool ended: everything it streamed (see ToolProgress.take), its live lines gone. */
  take(id: string): string | undefined {
    const tails = this.tails.get();
    if (id in tails) {
      const { [id]: _gone, ...rest } = tails;
      this.tails.set(rest);
    }
    return this.progress.take(id);
  }

  clear(): void {
    this.progress.clear();
    if (Object.keys(this.tails.get()).length > 0) this.tails.set({});
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
