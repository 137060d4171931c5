// The streaming reply is shown in the live region, which must stay shorter than the terminal
// (taller output makes Ink clear the screen and repaint the whole transcript on every frame).
// So only its last rows are shown; the full reply goes to the transcript as its blocks complete.
import { sanitize } from './sanitize.js';

export interface StreamTail {
  /** Terminal rows, each at most `columns` characters: rendered one <Text> each. */
  rows: string[];
  /** Some of the text is above what is shown. */
  clipped: boolean;
}

/**
 * Splits one line into rows of at most `width` characters, at a space where there is one.
 * (Characters are counted, not columns: Ink still wraps a row with wide characters correctly.)
 */
export function wrapRows(line: string, width: number): string[] {
  const w = Math.max(1, width);
  if (line.length <= w) return [line];
  const rows: string[] = [];
  let rest = line;
  while (rest.length > w) {
    const space = rest.lastIndexOf(' ', w);
    const cut = space > 0 ? space + 1 : w;
    rows.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut);
  }
  rows.push(rest);
  return rows;
}

/**
 * The last `maxRows` terminal rows of a streaming text at `columns` wide. Work is bounded by the
 * window looked at (rows × columns), not by the length of the text. Rows are returned apart so
 * that, as the text grows, only the last one is new to Ink (which caches each text it lays out).
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
  for (let i = lines.length - 1; i >= 0 && out.length < maxRows; i--) {
    const rows = wrapRows(lines[i]!, width);
    let taken = 0;
    for (let j = rows.length - 1; j >= 0 && out.length < maxRows; j--, taken++) out.push(rows[j]!);
    if (taken < rows.length || (out.length >= maxRows && i > 0)) clipped = true;
  }
  return { rows: out.reverse(), clipped };
}
