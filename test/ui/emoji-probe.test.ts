import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { inWorld, processWorld, type World } from '../../src/runtime/world.js';
import { askSkinToneWidth, readReplies } from '../../src/ui/emoji-probe.js';
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
  it('learns 4 from a terminal that answers at once, and keeps raw mode on for the app', async () => {
    const t = terminal((w) => (w.includes('\u001b[6n') ? reports(5, 1, 4) : undefined));
    const q = askSkinToneWidth(t.stdin, t.stdout)!;
    await vi.waitFor(() => expect(q.answered).toBe(true));
    expect(skinToneColumns()).toBe(4);
    // saved the cursor, asked around the sample, then restored it and erased the line's rest, in one write
    expect(t.written()).toBe('\u001b7\u001b[6n👍🏽\u001b[6n\u001b8\u001b[K');
    // the app takes stdin in raw mode: a reply or key between the two is never echoed
    expect(t.stdin.isRaw).toBe(true);
    q.handOver();
    expect(t.stdin.listenerCount('data')).toBe(0);
  });

  it('learns 2 from one that composes it, and gives typed keys back to the app', async () => {
    const t = terminal((w) => (w.includes('\u001b[6n') ? `hi${reports(5, 1, 2)}` : undefined));
    const q = askSkinToneWidth(t.stdin, t.stdout)!;
    await vi.waitFor(() => expect(q.answered).toBe(true));
    expect(skinToneColumns()).toBe(2);
    // mutation: dropping the unshift loses what was typed while the question ran
    expect(String(t.stdin.read())).toBe('hi');
  });

  it('hands stdin over unanswered (the first frame waits for no reply): keys and a reply cut short go to the app, the one reply read waits for its second', async () => {
    let asked = false;
    const t = terminal((w) => {
      asked ||= w.includes('\u001b[6n');
      return undefined;
    });
    const q = askSkinToneWidth(t.stdin, t.stdout)!;
    expect(asked).toBe(true);
    // read while the app loads: the first reply, two typed keys, the start of the second reply
    t.stdin.emit('data', Buffer.from('\u001b[5;1Rab\u001b[5;'));
    q.handOver();
    expect(q.answered).toBe(false);
    expect(t.stdin.listenerCount('data')).toBe(0);
    expect(String(t.stdin.read())).toBe('ab\u001b[5;');
    // the rest of the answer, as the app's input reads it after the first frame (one sequence an event)
    q.offer('x');
    q.offer('\u001b[5;5R');
    expect(q.answered).toBe(true);
    expect(skinToneColumns()).toBe(4);
  });

  it('a late answer that is neither width leaves it unknown; a report after the answer is ignored', () => {
    setSkinToneColumns(4);
    const t = terminal(() => undefined);
    const q = askSkinToneWidth(t.stdin, t.stdout)!;
    q.handOver();
    q.offer('\u001b[3;1R');
    q.offer('\u001b[3;4R');
    expect(q.answered).toBe(true);
    expect(skinToneColumns()).toBeUndefined();
    q.offer('\u001b[3;1R');
    q.offer('\u001b[3;5R');
    expect(skinToneColumns()).toBeUndefined();
  });

  it('cancelled (no app started), it stops reading and leaves raw mode as it found it', () => {
    const t = terminal(() => undefined);
    const q = askSkinToneWidth(t.stdin, t.stdout)!;
    expect(t.stdin.isRaw).toBe(true);
    q.cancel();
    expect(t.stdin.isRaw).toBe(false);
    expect(t.stdin.listenerCount('data')).toBe(0);
  });

  it('asks nothing when a stream is not a terminal', () => {
    const t = terminal(() => undefined);
    const pipe = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
    expect(askSkinToneWidth(t.stdin, pipe)).toBeUndefined();
    expect(t.written()).toBe('');
  });
});

// Pins of the rewritten question (pinsK): the one-key boundaries of what goes back to the app,
// stdin left paused between the answer and the app, a cancelled question, and when it asks nothing.
describe('the question between the start and the app', () => {
  it('an answer at once gives back even a single typed key, and stdin waits paused for the app with later keys kept', async () => {
    const t = terminal((w) => (w.includes('\u001b[6n') ? `q${reports(2, 1, 4)}` : undefined));
    const q = askSkinToneWidth(t.stdin, t.stdout)!;
    await vi.waitFor(() => expect(q.answered).toBe(true));
    // mutation: stopReading dropped after the answer leaves the question reading; pause dropped lets stdin flow on
    expect(t.stdin.listenerCount('data')).toBe(0);
    expect(t.stdin.isPaused()).toBe(true);
    // a key typed before the app reads stdin waits in it, after the one typed during the question
    t.stdin.write('k');
    // mutation: `rest.length > 1` loses the one key typed while the question ran
    expect(String(t.stdin.read())).toBe('qk');
    q.handOver();
    expect(t.stdin.listenerCount('data')).toBe(0);
  });

  it('handed over, a single typed key goes to the app and the reply read stays for its second', () => {
    const t = terminal(() => undefined);
    const q = askSkinToneWidth(t.stdin, t.stdout)!;
    t.stdin.emit('data', Buffer.from('\u001b[4;1Rz'));
    q.handOver();
    // mutation: `rest.length > 1` in handOver loses the key
    expect(String(t.stdin.read())).toBe('z');
    expect(t.stdin.isPaused()).toBe(true);
    q.offer('\u001b[4;3R');
    expect(q.answered).toBe(true);
    expect(skinToneColumns()).toBe(2);
  });

  it('handed over with nothing read, it gives nothing back and needs both replies', () => {
    const t = terminal(() => undefined);
    const q = askSkinToneWidth(t.stdin, t.stdout)!;
    q.handOver();
    expect(t.stdin.read()).toBeNull();
    q.offer('\u001b[9;1R');
    expect(q.answered).toBe(false);
    q.offer('\u001b[9;5R');
    expect(q.answered).toBe(true);
    expect(skinToneColumns()).toBe(4);
  });

  it('offered before the handover (the question still reads stdin itself), a report is not taken twice', () => {
    const t = terminal(() => undefined);
    const q = askSkinToneWidth(t.stdin, t.stdout)!;
    q.offer('\u001b[4;1R');
    q.offer('\u001b[4;5R');
    expect(q.answered).toBe(false);
    expect(skinToneColumns()).toBeUndefined();
  });

  it('cancelled, it counts as answered and takes no later report', () => {
    const t = terminal(() => undefined);
    const q = askSkinToneWidth(t.stdin, t.stdout)!;
    q.cancel();
    // mutation: cancel leaving answered false lets a report after it set the width
    expect(q.answered).toBe(true);
    q.offer('\u001b[3;1R');
    q.offer('\u001b[3;5R');
    expect(skinToneColumns()).toBeUndefined();
  });

  it('cancelled where stdin was already raw, it leaves raw mode on', () => {
    const t = terminal(() => undefined);
    t.stdin.isRaw = true;
    const q = askSkinToneWidth(t.stdin, t.stdout)!;
    q.cancel();
    expect(t.stdin.isRaw).toBe(true);
  });

  it('asks nothing where TERM is dumb, stdin is no terminal, raw mode is missing or refused', () => {
    const dumb: World = Object.assign(Object.create(processWorld()) as World, { env: { TERM: 'dumb' } });
    const t1 = terminal(() => undefined);
    expect(inWorld(dumb, () => askSkinToneWidth(t1.stdin, t1.stdout))).toBeUndefined();
    expect(t1.written()).toBe('');
    expect(t1.stdin.isRaw).toBe(false);
    const xterm: World = Object.assign(Object.create(processWorld()) as World, { env: { TERM: 'xterm-256color' } });
    const t0 = terminal(() => undefined);
    expect(inWorld(xterm, () => askSkinToneWidth(t0.stdin, t0.stdout))).toBeDefined();
    expect(t0.written()).toContain('\u001b[6n');
    const t2 = terminal(() => undefined);
    Object.assign(t2.stdin, { isTTY: false });
    expect(askSkinToneWidth(t2.stdin, t2.stdout)).toBeUndefined();
    const t3 = terminal(() => undefined);
    Object.assign(t3.stdin, { setRawMode: undefined });
    expect(askSkinToneWidth(t3.stdin, t3.stdout)).toBeUndefined();
    const t4 = terminal(() => undefined);
    Object.assign(t4.stdin, {
      setRawMode() {
        throw new Error('EIO');
      },
    });
    expect(askSkinToneWidth(t4.stdin, t4.stdout)).toBeUndefined();
    expect(t2.written() + t3.written() + t4.written()).toBe('');
    expect(t4.stdin.listenerCount('data')).toBe(0);
  });
});
