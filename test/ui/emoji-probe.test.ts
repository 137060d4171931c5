import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { learnSkinToneWidth, readReplies } from '../../src/ui/emoji-probe.js';
import { setSkinToneColumns, skinToneColumns, terminalWidth } from '../../src/ui/stringWidth.js';

// How wide the terminal draws 👍🏽, asked at start (issue 30): two cursor reports around the sample
// give the columns it took, and the width function counts what the terminal said.

afterEach(() => setSkinToneColumns(undefined));

/** A terminal on both streams: `answer` says what it replies to the writes (nothing: silent). */
function terminal(answer: (written: string) => string | undefined) {
  const stdin = Object.assign(new PassThrough(), {
    isTTY: true,
    isRaw: false,
    setRawMode(mode: boolean) {
      stdin.isRaw = mode;
      return stdin;
    },
  });
  let written = '';
  const stdout = Object.assign(
    new Writable({
      write(chunk: Buffer, _enc, done) {
        written += chunk.toString();
        const reply = answer(chunk.toString());
        if (reply !== undefined) setImmediate(() => stdin.write(reply));
        done();
      },
    }),
    { isTTY: true },
  );
  return {
    stdin: stdin as unknown as NodeJS.ReadStream & { isRaw: boolean },
    stdout: stdout as unknown as NodeJS.WriteStream,
    written: () => written,
  };
}

const reports = (row: number, from: number, width: number): string => `\u001b[${row};${from}R\u001b[${row};${from + width}R`;

describe('the width rule for a skin-toned emoji', () => {
  // mutation: withSkinTones adding nothing (or adding for an unknown answer) fails the first or third line
  it('counts four columns where the terminal draws the tone apart, two where it composes, and string-width where it did not say', () => {
    setSkinToneColumns(4);
    expect(terminalWidth('👍🏽')).toBe(4);
    expect(terminalWidth('ok 👍🏽 and 👋🏿!')).toBe(3 + 4 + 5 + 4 + 1);
    expect(terminalWidth('👍')).toBe(2);
    setSkinToneColumns(2);
    expect(terminalWidth('ok 👍🏽 and 👋🏿!')).toBe(3 + 2 + 5 + 2 + 1);
    setSkinToneColumns(undefined);
    expect(terminalWidth('ok 👍🏽 and 👋🏿!')).toBe(3 + 2 + 5 + 2 + 1);
  });

  it('reads the width from the two cursor reports, and nothing else as one', () => {
    expect(readReplies(reports(3, 1, 4))).toEqual({ columns: 4, complete: true, rest: '' });
    expect(readReplies(`a${reports(7, 10, 2)}b`)).toEqual({ columns: 2, complete: true, rest: 'ab' });
    expect(readReplies('\u001b[3;1R')).toMatchObject({ columns: undefined, complete: false });
    // a width neither rule knows, or a sample that wrapped onto the next row
    expect(readReplies(reports(3, 1, 3)).columns).toBeUndefined();
    expect(readReplies('\u001b[3;79R\u001b[4;3R').columns).toBeUndefined();
  });
});

describe('asking the terminal', () => {
  it('learns 4 from a terminal that draws the tone apart, then erases the sample and leaves raw mode', async () => {
    const t = terminal((w) => (w.includes('\u001b[6n') ? reports(5, 1, 4) : undefined));
    await expect(learnSkinToneWidth(t.stdin, t.stdout, 5_000)).resolves.toBe(4);
    expect(skinToneColumns()).toBe(4);
    expect(t.stdin.isRaw).toBe(false);
    // saved the cursor, asked around the sample, then restored it and erased the line's rest
    expect(t.written()).toBe('\u001b7\u001b[6n👍🏽\u001b[6n\u001b8\u001b[K');
  });

  it('learns 2 from one that composes it, and gives typed keys back to the app', async () => {
    const t = terminal((w) => (w.includes('\u001b[6n') ? `hi${reports(5, 1, 2)}` : undefined));
    await expect(learnSkinToneWidth(t.stdin, t.stdout, 5_000)).resolves.toBe(2);
    expect(skinToneColumns()).toBe(2);
    // mutation: dropping the unshift loses what was typed while the question ran
    expect(String(t.stdin.read())).toBe('hi');
  });

  it('a silent terminal leaves the width unknown once the timeout passes', async () => {
    setSkinToneColumns(4);
    const t = terminal(() => undefined);
    await expect(learnSkinToneWidth(t.stdin, t.stdout, 20)).resolves.toBeUndefined();
    expect(skinToneColumns()).toBeUndefined();
    expect(t.stdin.isRaw).toBe(false);
    expect(t.written().endsWith('\u001b8\u001b[K')).toBe(true);
  });

  it('asks nothing when a stream is not a terminal', async () => {
    const t = terminal(() => undefined);
    const pipe = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
    await expect(learnSkinToneWidth(t.stdin, pipe, 5_000)).resolves.toBeUndefined();
    expect(t.written()).toBe('');
  });
});
