// How wide does this terminal draw an emoji with a skin-tone modifier? Terminals disagree: most
// compose 👍🏽 into one two-column glyph, tmux and xterm draw the base and the modifier side by
// side (four columns), and string-width says two. A wrong guess pushes the input box's right
// border onto the next line. So at start, before Ink reads stdin, the TUI asks: it reports the
// cursor (ESC[6n), draws the sample, reports the cursor again, and the two replies' columns differ
// by the width drawn. Then it puts the cursor back and erases the sample. A terminal that does
// not answer within the timeout costs that long and leaves the width unknown (stringWidth.ts).

import { world } from '../runtime/world.js';
import { setSkinToneColumns } from './stringWidth.js';

/** 👍🏽: thumbs up with a medium skin tone. */
const SAMPLE = '\u{1F44D}\u{1F3FD}';
const REPORT = '\u001b[6n';
/** DECSC / DECRC: save and restore the cursor (the sample is drawn from there and erased). */
const SAVE = '\u001b7';
const RESTORE_AND_ERASE = '\u001b8\u001b[K';
const REPLY = /\u001b\[(\d+);(\d+)R/g;

/** Longest a silent terminal delays the first frame. */
export const PROBE_TIMEOUT_MS = 200;

/** The width the two cursor reports give (2 or 4; undefined for anything else), and the input around them. */
export function readReplies(input: string): { columns: 2 | 4 | undefined; complete: boolean; rest: string } {
  const replies = [...input.matchAll(REPLY)];
  const rest = input.replace(REPLY, '');
  if (replies.length < 2) return { columns: undefined, complete: false, rest };
  const [a, b] = replies as [RegExpExecArray, RegExpExecArray];
  const sameRow = a[1] === b[1];
  const width = Number(b[2]) - Number(a[2]);
  return { columns: sameRow && (width === 2 || width === 4) ? width : undefined, complete: true, rest };
}

/**
 * Asks the terminal (both streams a TTY) and sets what it said for the width function; resolves
 * with the columns (undefined: no answer in time, or an answer that is not 2 or 4). Input typed
 * meanwhile goes back to stdin for the app; a reply after the timeout reaches Ink as an
 * unrecognised sequence, which the input box never inserts (prompt-model.ts).
 */
export function learnSkinToneWidth(
  stdin: NodeJS.ReadStream = world().stdin,
  stdout: NodeJS.WriteStream = world().stdout,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<2 | 4 | undefined> {
  if (!stdin.isTTY || !stdout.isTTY || typeof stdin.setRawMode !== 'function' || world().env['TERM'] === 'dumb') return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const wasRaw = stdin.isRaw;
    let input = '';
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stdin.off('data', onData);
      stdin.pause();
      try {
        if (!wasRaw) stdin.setRawMode(false);
      } catch {
        // the terminal is gone
      }
      stdout.write(RESTORE_AND_ERASE);
      const { columns, rest } = readReplies(input);
      if (rest.length > 0) stdin.unshift(Buffer.from(rest, 'utf8'));
      setSkinToneColumns(columns);
      resolve(columns);
    };
    const onData = (chunk: Buffer | string): void => {
      input += chunk.toString();
      if (readReplies(input).complete) finish();
    };
    // The timer's phase runs before the one that reads input: when loading the app kept the event
    // loop busy past the timeout, the replies already waiting are read first (setImmediate runs
    // after that phase), so a loaded machine does not hand them to Ink.
    const timer = setTimeout(() => setImmediate(finish), timeoutMs);
    try {
      stdin.setRawMode(true);
    } catch {
      clearTimeout(timer);
      resolve(undefined);
      return;
    }
    stdin.on('data', onData);
    stdout.write(SAVE + REPORT + SAMPLE + REPORT);
  });
}
