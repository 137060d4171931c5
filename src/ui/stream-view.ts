// The reply streaming in: its text, how much of it is already printed into the transcript as
// finished Markdown blocks (stream-blocks.ts), and the characters counted toward the live token
// estimate since the last usage figure.
import type { StreamState } from './live-state.js';
import { emptyStream } from './live-state.js';
import { Store } from './store.js';
import { BlockSplitter } from './stream-blocks.js';
import { itemId, type TranscriptItem } from './transcript.js';

export class StreamView {
  readonly state = new Store<StreamState>(emptyStream());
  private splitter = new BlockSplitter();

  constructor(private readonly print: (item: TranscriptItem) => void) {}

  /** A streamed chunk: the blocks it finishes are printed, the rest stays live. */
  feed(delta: string): void {
    const s = this.state.get();
    const text = s.text + delta;
    const safe = this.splitter.feed(text);
    let committed = s.committed;
    if (safe > committed) {
      this.print({ kind: 'assistant', id: itemId(), text: text.slice(committed, safe), interrupted: false, continued: committed > 0 });
      committed = safe;
    }
    this.state.set({ text, committed, chars: s.chars + delta.length });
  }

  /** Starts over (a new request, a finished reply), keeping `chars` counted toward the live estimate. */
  reset(chars = 0): void {
    this.splitter = new BlockSplitter();
    const s = this.state.get();
    if (s.text !== '' || s.committed !== 0 || s.chars !== chars) this.state.set({ ...emptyStream(), chars });
  }

  /** The finished reply's text: what streaming has not printed yet, and whether it continues blocks printed above. Starts over. */
  settle(full: string): { rest: string; continued: boolean } {
    const s = this.state.get();
    // blocks already printed while streaming are not printed again
    const continued = s.committed > 0 && full.startsWith(s.text.slice(0, s.committed));
    this.reset(s.chars);
    return { rest: continued ? full.slice(s.committed) : full, continued };
  }
}
