// What Ink's <Text> and a row of boxes do to a string, done on the string itself: wrap or cut
// it to a width, then style each line. The transcript's items are drawn this way (item-text.ts)
// because each one is a few rows of text printed once, and laying a screenful of them out
// through Ink's boxes, per-cell output grid and yoga cost more than the rest of a resumed
// session's first frame together.
import chalk from 'chalk';
import cliTruncate from 'cli-truncate';
import wrapAnsi from 'wrap-ansi';
import { terminalWidth } from './stringWidth.js';

export interface Style {
  color?: string | undefined;
  bold?: boolean;
  dim?: boolean;
}

type Painter = (text: string) => string;

/** A colour as Ink's <Text color> takes it: a chalk name ("cyan", "blueBright") or "#rrggbb". */
function colorize(text: string, color: string): string {
  if (color.startsWith('#')) return chalk.hex(color)(text);
  const named = (chalk as unknown as Record<string, Painter | undefined>)[color];
  return typeof named === 'function' ? named(text) : text;
}

/** Styles a text as <Text> does: dim first, then the colour, then bold. */
export function paint(text: string, style: Style): string {
  let out = text;
  if (style.dim) out = chalk.dim(out);
  if (style.color) out = colorize(out, style.color);
  if (style.bold) out = chalk.bold(out);
  return out;
}

/** Columns the widest line of a text takes (escape codes take none). */
export function widest(text: string): number {
  let max = 0;
  for (const line of text.split('\n')) max = Math.max(max, terminalWidth(line));
  return max;
}

/**
 * The lines a text shows in a box `width` columns wide: wrapped at word boundaries (long words
 * broken), or cut with "…" at the end. Styles already inside the text are kept.
 */
export function fit(text: string, width: number, mode: 'wrap' | 'truncate' = 'wrap'): string[] {
  if (widest(text) <= width) return text.split('\n');
  const fitted = mode === 'wrap' ? wrapAnsi(text, width, { trim: false, hard: true }) : cliTruncate(text, width, { position: 'end' });
  return fitted.split('\n');
}

/** Lines styled one by one (as Ink applies a <Text>'s own style after wrapping it). */
const painted = (lines: string[], style: Style): string[] => lines.map((l) => paint(l, style));

/** A text in a box `width` wide: wrapped (or cut), then given its own style line by line; no lines for ''. */
export const block = (text: string, width: number, style: Style = {}, mode: 'wrap' | 'truncate' = 'wrap'): string[] =>
  text === '' ? [] : painted(fit(text, width, mode), style);

/** Every line moved right by `n` columns (a box's left padding). */
export const indented = (lines: string[], n: number): string[] => lines.map((l) => ' '.repeat(n) + l);

/**
 * A row of a fixed-width marker and a column of lines beside it ("❯ " before a prompt, "● "
 * before a reply): the marker on the first line, blanks of its width on the rest.
 */
export function besideMarker(marker: string, lines: string[]): string[] {
  if (lines.length === 0) return [marker];
  const pad = ' '.repeat(terminalWidth(marker));
  return lines.map((l, i) => (i === 0 ? marker : pad) + l);
}

/** Two columns: the left one `leftWidth` wide (its lines padded to it), the right one after it. */
export function sideBySide(left: string[], leftWidth: number, right: string[]): string[] {
  const rows = Math.max(left.length, right.length);
  return Array.from({ length: rows }, (_, i) => {
    const l = left[i] ?? '';
    return l + ' '.repeat(Math.max(0, leftWidth - terminalWidth(l))) + (right[i] ?? '');
  });
}
