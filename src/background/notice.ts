// What the model is told about a background command: the first lines when it starts, and when it
// ends a notice at its next request — the command, how it ended, how long it ran, its last lines
// and the id to Recall the rest with (more than Claude Code's notice, which names a file to read).
import { fmtDuration } from '../tools/format.js';
import { describeState, type ShellRecord } from './record.js';

const FIRST_LINES = 10;
const LAST_LINES = 10;
const LINE_CHARS = 300;
const BLOCK_CHARS = 2_000;

const clip = (line: string): string => (line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line);

function linesOf(text: string): string[] {
  const lines = text.replace(/\s+$/, '').split('\n');
  return lines.length === 1 && lines[0] === '' ? [] : lines.map(clip);
}

/** Up to ten first lines (2,000 characters at most). */
export function firstLinesOf(text: string): string {
  const out: string[] = [];
  let chars = 0;
  for (const l of linesOf(text).slice(0, FIRST_LINES)) {
    if (chars + l.length > BLOCK_CHARS) break;
    out.push(l);
    chars += l.length + 1;
  }
  return out.join('\n');
}

/** Up to `count` last lines (ten; 2,000 characters at most, or 300 a line when more are asked for). */
export function lastLinesOf(text: string, count = LAST_LINES): string {
  const out: string[] = [];
  let chars = 0;
  for (const l of linesOf(text).slice(-count).reverse()) {
    if (chars + l.length > Math.max(BLOCK_CHARS, count * LINE_CHARS)) break;
    out.unshift(l);
    chars += l.length + 1;
  }
  return out.join('\n');
}

/** The notice of a command that ended, for the model's next request. */
export function endNotice(r: ShellRecord, last: string): string {
  const ran = r.endedAt !== undefined ? ` after ${fmtDuration(Math.max(0, r.endedAt - r.startedAt))}` : '';
  return [
    `[Background command ${r.id} ended: ${describeState(r)}${ran}]`,
    `$ ${r.command}`,
    last ? `Last lines of its output:\n${last}` : 'It printed nothing.',
    `Its whole output: Recall id="${r.id}" (offset/limit, pattern, or since_last_read=true).`,
  ].join('\n');
}

/** The line a front end shows when a command exits on its own: which, how, after how long. */
export function exitLine(r: ShellRecord): string {
  const ran = r.endedAt !== undefined ? ` after ${fmtDuration(Math.max(0, r.endedAt - r.startedAt))}` : '';
  return `Background command ${r.id} ended: ${describeState(r)}${ran} — ${r.command.split('\n')[0]}`;
}
