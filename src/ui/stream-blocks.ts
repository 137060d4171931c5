// A streaming reply is printed into the transcript block by block as its Markdown blocks
// complete, so the live region only ever holds the block still being written: the screen shows
// the whole reply formatted while it streams, and each frame costs what that one block costs.

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Finds where a streaming Markdown text may be cut: after a blank line that follows text and is
 * not inside a fenced code block. Feed it the growing text; it scans each line once.
 */
export class BlockSplitter {
  private pos = 0;
  private fence: string | null = null;
  private prevBlank = true;
  private safe = 0;

  /** The largest index at which `text` (the same text, grown) can be cut into finished blocks. */
  feed(text: string): number {
    let nl: number;
    while ((nl = text.indexOf('\n', this.pos)) !== -1) {
      const line = text.slice(this.pos, nl);
      const fence = FENCE.exec(line);
      if (fence) {
        const mark = fence[1]!;
        if (this.fence === null) this.fence = mark;
        // A fence closes with the same character, at least as long, and nothing after it.
        else if (mark[0] === this.fence[0] && mark.length >= this.fence.length && line.trim() === mark) this.fence = null;
        this.prevBlank = false;
      } else {
        const blank = line.trim() === '';
        if (blank && !this.prevBlank && this.fence === null) this.safe = nl + 1;
        this.prevBlank = blank;
      }
      this.pos = nl + 1;
    }
    return this.safe;
  }
}
