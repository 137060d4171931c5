// Turns a raw terminal byte stream into the text a person would read: ANSI escape codes
// removed, and lines redrawn with carriage returns (progress bars) reduced to their
// final state. Works chunk by chunk with bounded memory.
import stripAnsi from 'strip-ansi';

/** An unfinished line longer than this is passed on rather than held back. */
const MAX_PENDING = 4096;
/** Escape sequences are short; an ESC this close to the end of a chunk may be cut in two. */
const MAX_ESCAPE = 32;

/** What a line redrawn with \r shows at the end: its last non-empty segment. */
export function collapseCarriageReturns(line: string): string {
  if (!line.includes('\r')) return line;
  const segments = line.split('\r');
  for (let i = segments.length - 1; i >= 0; i--) if (segments[i] !== '') return segments[i]!;
  return '';
}

export class TerminalText {
  private pending = '';

  /** Takes the next decoded chunk, returns the cleaned text that is final so far. */
  push(chunk: string): string {
    let text = this.pending + chunk;
    if (!text.includes('\x1b') && !text.includes('\r')) {
      // plain text, the common case: pass on whole lines, hold the unfinished one
      const nl = text.lastIndexOf('\n');
      let rest = text.slice(nl + 1);
      let out = text.slice(0, nl + 1);
      if (rest.length > MAX_PENDING) {
        out += rest;
        rest = '';
      }
      this.pending = rest;
      return out;
    }
    let hold = '';
    const esc = text.lastIndexOf('\x1b');
    if (esc !== -1 && text.length - esc < MAX_ESCAPE) {
      hold = text.slice(esc);
      text = text.slice(0, esc);
    } else if (text.endsWith('\r')) {
      hold = '\r';
      text = text.slice(0, -1);
    }
    const lines = stripAnsi(text).replace(/\r\n/g, '\n').split('\n');
    let last = lines.pop() ?? '';
    let out = lines.map(collapseCarriageReturns).join('\n') + (lines.length > 0 ? '\n' : '');
    if (last.length > MAX_PENDING) {
      out += collapseCarriageReturns(last);
      last = '';
    }
    this.pending = last + hold;
    return out;
  }

  /** The rest, at the end of the stream. */
  flush(): string {
    const rest = this.pending;
    this.pending = '';
    return rest === '' ? '' : stripAnsi(rest).replace(/\r\n/g, '\n').split('\n').map(collapseCarriageReturns).join('\n');
  }
}
