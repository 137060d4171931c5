// The streaming reply is shown in the live region, which must stay shorter than the terminal
// (taller output makes Ink clear the screen and repaint the whole transcript on every frame).
// So only its last rows are shown; the full reply goes to the transcript when it is complete.
import { sanitize } from './sanitize.js';

export interface StreamTail {
  text: string;
  /** Some of the reply is above what is shown. */
  clipped: boolean;
}

/**
 * The last `maxRows` terminal rows of a streaming text at `columns` wide. Work is bounded by the
 * window looked at (rows × columns), not by the length of the reply.
 */
export function streamTail(raw: string, columns: number, maxRows: number): StreamTail {
  const width = Math.max(1, columns);
  const budget = maxRows * (width + 1);
  let start = Math.max(0, raw.length - budget);
  let clipped = start > 0;
  // Start at a line boundary: a cut line (or a cut escape sequence) would show garbage.
  if (start > 0) {
    const nl = raw.indexOf('\n', start);
    start = nl === -1 ? start : nl + 1;
  }
  const lines = sanitize(raw.slice(start)).replace(/^\n+/, '').split('\n');
  const out: string[] = [];
  let rows = 0;
  for (let i = lines.length - 1; i >= 0 && rows < maxRows; i--) {
    const line = lines[i]!;
    const need = Math.max(1, Math.ceil(line.length / width));
    if (rows + need > maxRows) {
      const keep = (maxRows - rows) * width;
      out.push(line.slice(line.length - keep));
      clipped = true;
      rows = maxRows;
      break;
    }
    out.push(line);
    rows += need;
  }
  if (out.length < lines.length) clipped = true;
  return { text: out.reverse().join('\n'), clipped };
}
