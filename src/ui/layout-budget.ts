// How the live region shares the terminal's rows. It must stay shorter than the terminal: a
// taller live region makes Ink clear the screen and print the whole transcript again on every
// frame. The prompt comes first, then the streaming block, then running tools.
import type { PromptState } from './prompt-model.js';

/**
 * Rows the live region uses besides the prompt's lines, the streaming rows, tool rows, queued
 * prompts and completions: margins, the prompt's border, the spinner line, the key hint, the
 * status line (two rows when it wraps) and its notice, the "⋮" and "… more" markers, and one
 * spare so that the total stays below the terminal's height.
 */
export const CHROME_ROWS = 14;

const share = (rows: number, fraction: number): number => Math.floor(Math.max(0, rows - CHROME_ROWS) * fraction);

/** Prompt lines shown at once (including the "↑ n more lines" markers of a long prompt). */
export const promptMaxLines = (rows: number): number => Math.max(3, Math.min(10, share(rows, 0.4)));
export const completionMaxRows = (rows: number): number => Math.max(4, Math.min(8, share(rows, 0.3)));
/** Running tools (and tool calls being written) listed one per row; the rest are counted. */
export const liveToolRows = (rows: number): number => Math.max(1, Math.min(5, share(rows, 0.25)));
export const queuedRows = 3;
/** Lines of live output under each running tool (fewer when several run at once). */
export const liveOutputRows = (rows: number, runningTools: number): number =>
  runningTools === 0 ? 0 : Math.max(1, Math.min(5, Math.floor(share(rows, 0.3) / runningTools)));

/** Rows for the block being streamed, given the rows the other live parts use now. */
export const streamRowsFor = (rows: number, used: number): number => Math.max(2, Math.min(16, rows - CHROME_ROWS - used));

export interface PromptViewport {
  /** Index of the first line shown. */
  first: number;
  /** How many lines are shown. */
  count: number;
  above: number;
  below: number;
}

/** Which lines of a long prompt are shown: a window around the cursor, markers counted in. */
export function promptViewport(lineCount: number, cursorLine: number, maxLines: number): PromptViewport {
  if (lineCount <= maxLines) return { first: 0, count: lineCount, above: 0, below: 0 };
  const count = Math.max(1, maxLines - 2);
  const first = Math.max(0, Math.min(cursorLine - Math.floor(count / 2), lineCount - count));
  return { first, count, above: first, below: lineCount - first - count };
}

const countLines = (text: string): number => {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
};

/** Rows the prompt box's content and its completion list take now. */
export function promptRows(state: PromptState, rows: number): number {
  const lines = countLines(state.text);
  const box = Math.min(lines, promptMaxLines(rows));
  const c = state.completion;
  let completion = 0;
  if (c) {
    if (c.matches.length === 0) completion = c.word.length > 1 ? 1 : 0;
    else completion = Math.min(c.matches.length, completionMaxRows(rows)) + (c.matches.length > completionMaxRows(rows) ? 1 : 0);
  }
  const shellHint = !c && state.text.startsWith('!') ? 1 : 0;
  const m = state.mention;
  const mention = m && m.matches.length > 0 ? Math.min(m.matches.length, completionMaxRows(rows)) + (m.matches.length > completionMaxRows(rows) ? 1 : 0) : 0;
  return box + completion + shellHint + mention + (state.search ? 1 : 0);
}
