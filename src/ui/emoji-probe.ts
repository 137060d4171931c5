// How wide does this terminal draw an emoji with a skin-tone modifier? Terminals disagree: most
// compose 👍🏽 into one two-column glyph, tmux and xterm draw the base and the modifier side by
// side (four columns), and string-width says two. A wrong guess pushes the input box's right
// border onto the next line. So at start the TUI asks: it saves the cursor, reports it (ESC[6n),
// draws the sample, reports it again, then puts the cursor back and erases the sample, all in one
// write (the terminal answers each report as it reaches it, so the erase can follow at once). The
// two replies' columns differ by the width drawn.
//
// Nothing waits for the answer: the question is asked before the app's code loads and the session
// opens, and replies read meanwhile set the width before the first frame (a terminal that answers
// at once, as tmux, kitty or VS Code's do). When the app is about to draw, the question hands
// stdin over (handOver): the first frame is drawn at once with the width unknown (the input box
// leaves the tone out, stringWidth.ts), and replies that come later reach the app's input, which
// gives them back here (offer: skin-tone-replies.ts); the width set then redraws the box. A silent
// terminal (one that never answers, as `script`'s pty) costs nothing.

import { world } from '../runtime/world.js';
import { setSkinToneColumns } from './stringWidth.js';

/** 👍🏽: thumbs up with a medium skin tone. */
const SAMPLE = '\u{1F44D}\u{1F3FD}';
const REPORT = '\u001b[6n';
/** DECSC / DECRC: save and restore the cursor (the sample is drawn from there and erased). */
const SAVE = '\u001b7';
const RESTORE_AND_ERASE = '\u001b8\u001b[K';
export const QUESTION = SAVE + REPORT + SAMPLE + REPORT + RESTORE_AND_ERASE;
const REPLY = /\u001b\[(\d+);(\d+)R/g;
/** One cursor report, as the app's input splits it (one escape sequence an event). */
const ONE_REPLY = /^\u001b\[\d+;\d+R$/;

/** Whether an input event is one cursor report (ESC[row;colR), an answer rather than a key. */
export const isCursorReport = (sequence: string): boolean => ONE_REPLY.test(sequence);

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

/** The question in flight, from its write until both replies came (or the app ended). */
export interface SkinToneQuestion {
  /**
   * The app is about to read stdin: the question stops reading it, and what else came (typed
   * keys, part of a reply) goes back to it. Raw mode stays on, so a reply that comes later is
   * not echoed; the app takes stdin in raw mode.
   */
  handOver(): void;
  /** One input event the app read after the handover: a cursor report is taken as a reply. */
  offer(sequence: string): void;
  /** Whether both replies are in. */
  readonly answered: boolean;
  /** The app never started (an error before it): stops reading and leaves raw mode as found. */
  cancel(): void;
}

/**
 * Asks the terminal (both streams a TTY) and returns the question in flight; undefined when it
 * cannot ask (not a terminal, TERM=dumb, no raw mode). Sets the width for the width function when
 * both replies are in (2 or 4; undefined for an answer that is neither).
 */
export function askSkinToneWidth(stdin: NodeJS.ReadStream = world().stdin, stdout: NodeJS.WriteStream = world().stdout): SkinToneQuestion | undefined {
  if (!stdin.isTTY || !stdout.isTTY || typeof stdin.setRawMode !== 'function' || world().env['TERM'] === 'dumb') return undefined;
  const wasRaw = stdin.isRaw;
  try {
    stdin.setRawMode(true);
  } catch {
    return undefined;
  }
  let input = '';
  let reading = true;
  let answered = false;
  const stopReading = (): void => {
    if (!reading) return;
    reading = false;
    stdin.off('data', onData);
    stdin.pause();
  };
  const onData = (chunk: Buffer | string): void => {
    input += chunk.toString();
    const read = readReplies(input);
    if (!read.complete) return;
    answered = true;
    stopReading();
    if (read.rest.length > 0) stdin.unshift(Buffer.from(read.rest, 'utf8'));
    input = '';
    setSkinToneColumns(read.columns);
  };
  stdin.on('data', onData);
  stdout.write(QUESTION);
  return {
    get answered() {
      return answered;
    },
    handOver() {
      if (!reading) return;
      stopReading();
      // the replies read so far stay here; the rest (keys typed meanwhile, a reply cut short) goes to the app
      const replies = input.match(REPLY) ?? [];
      const rest = input.replace(REPLY, '');
      input = replies.join('');
      if (rest.length > 0) stdin.unshift(Buffer.from(rest, 'utf8'));
    },
    offer(sequence) {
      if (answered || reading || !isCursorReport(sequence)) return;
      input += sequence;
      const read = readReplies(input);
      if (!read.complete) return;
      answered = true;
      input = '';
      setSkinToneColumns(read.columns);
    },
    cancel() {
      stopReading();
      answered = true;
      try {
        if (!wasRaw) stdin.setRawMode(false);
      } catch {
        // the terminal is gone
      }
    },
  };
}
