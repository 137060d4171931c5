import { EventEmitter } from 'node:events';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../src/llm/messages.js';
import { inWorld, processWorld } from '../../src/runtime/world.js';
import { askSkinToneWidth } from '../../src/ui/emoji-probe.js';
import { setSkinToneColumns, skinToneColumns } from '../../src/ui/stringWidth.js';
import { FakeController, type FakeStdin, type SizedStdout, tick, waitFor } from './fakes.js';
import { loadRunTui, tuiStreams } from './tui-loaded.js';

// Nothing here imports Ink statically: loadTui loads it the way the agent does, and it is
// loaded with CI set, as on a CI machine, where Ink left alone shows only the final frame.
// Fresh modules: Ink must be first loaded here; another file's Ink, loaded where CI is set, runs in
// its only-the-final-frame mode (vitest.config.ts).
let runTui: Awaited<ReturnType<typeof loadRunTui>>;
beforeAll(async () => {
  const before = [process.env.CI, process.env.CONTINUOUS_INTEGRATION];
  runTui = await loadRunTui({ CI: 'true', CONTINUOUS_INTEGRATION: '1' });
  // put back at once: the commands the model runs still see the person's environment
  expect([process.env.CI, process.env.CONTINUOUS_INTEGRATION]).toEqual(before);
});

describe('runTui', () => {
  it('renders, resolves when the app exits, and leaves the terminal as it found it', async () => {
    const c = new FakeController();
    const { stdin, stdout, io } = tuiStreams();
    const done = runTui(c, { ...io, color: false });
    await waitFor(() => stdout.frames.join('').includes('context left'));
    expect(stdin.isRaw).toBe(true);
    // Ctrl-C twice: the controller is asked to exit, then the app ends.
    stdin.write('\u0003');
    await tick(5);
    stdin.write('\u0003');
    await done;
    expect(c.exits).toBe(1);
    expect(stdin.isRaw).toBe(false);
    expect(stdout.frames.join('')).toContain('\u001b[?25h');
    expect(c.subscribers).toBe(0);
  });

  it('rejects when rendering crashes, and still restores the terminal', async () => {
    const c = new FakeController();
    c.contextUsage = () => {
      throw new Error('session store is gone');
    };
    const { stdin, stdout, io } = tuiStreams();
    await expect(runTui(c, { ...io, color: false })).rejects.toThrow('session store is gone');
    expect(stdin.isRaw).toBe(false);
    expect(stdout.frames.join('')).toContain('\u001b[?25h');
  });

  // mutation: runTui's openPicker defaulting to true opens the session picker (/resume) at every start
  it('opens the session picker only when asked to', async () => {
    const c = new FakeController();
    const { stdin, stdout, io } = tuiStreams();
    const done = runTui(c, { ...io, color: false });
    stdin.write('hello');
    await waitFor(() => stdout.frames.join('').includes('hello'));
    expect(c.submitted).toEqual([]);
    c.emit({ type: 'exit' });
    await done;
    const asked = new FakeController();
    const second = tuiStreams();
    const resumed = runTui(asked, { ...second.io, color: false, openPicker: true });
    await waitFor(() => asked.submitted.length > 0);
    expect(asked.submitted).toEqual(['/resume']);
    asked.emit({ type: 'exit' });
    await resumed;
  });

  it('refuses to start without a terminal on stdin', async () => {
    const { stdin, io } = tuiStreams();
    stdin.isTTY = false;
    await expect(runTui(new FakeController(), io)).rejects.toThrow(/needs a terminal/);
  });

  it("prints a resumed transcript ahead of Ink's first frame, unless a screen reader reads Ink's; the exit hook is undone at the end", async () => {
    const said = (role: 'user' | 'assistant', t: string, id: string): Message => ({
      id,
      role,
      blocks: [{ type: 'text', text: t }],
      kind: 'normal',
      createdAt: 0,
    });
    const transcript = [said('user', 'question from before', 'm1'), said('assistant', 'answer from before', 'm2')];
    /** The frames a run in a world with `env` writes, and the exit hooks registered while it ran and after. */
    const run = async (env: NodeJS.ProcessEnv) => {
      const c = new FakeController(undefined, transcript);
      const { stdout, io } = tuiStreams();
      const hooks = new Set<() => void>();
      const w = {
        ...processWorld(),
        env,
        signals: new EventEmitter(),
        onExit: (fn: () => void) => {
          hooks.add(fn);
          return () => hooks.delete(fn);
        },
        slots: new Map<symbol, unknown>(),
      };
      const done = inWorld(w, () => runTui(c, { ...io, color: false }));
      await waitFor(() => stdout.frames.join('').includes('context left'));
      const during = hooks.size;
      c.emit({ type: 'exit' });
      await done;
      return { frames: stdout.frames, during, after: hooks.size };
    };
    const ahead = await run({});
    // the transcript, as text, is the first write: before Ink's first frame (its synchronized-update mark)
    expect(ahead.frames[0]).toContain('answer from before');
    expect(ahead.frames[0]).not.toContain('\u001b[');
    expect(ahead).toMatchObject({ during: 1, after: 0 });
    const reader = await run({ INK_SCREEN_READER: 'true' });
    expect(reader.frames[0]).not.toContain('answer from before');
    expect(reader.frames.join('')).toContain('answer from before');
  });
  // mutations: `INK_SCREEN_READER !== 'true'` (app.tsx) fails it both ways; dropping offExit() leaves the hook
});

// The question asked at start (how wide the terminal draws 👍🏽, ui/emoji-probe.ts) delays no
// frame: the first one is drawn with the width unknown (the box leaves the tone out), and an
// answer that comes after it redraws the box with the tone.
describe('runTui and the terminal’s answer to the start’s question', () => {
  afterEach(() => setSkinToneColumns(undefined));

  async function typeToned(stdin: FakeStdin, stdout: SizedStdout): Promise<void> {
    stdin.write('ok 👍🏽 thanks');
    await waitFor(() => stdout.frames.join('').includes('thanks'));
  }

  it('a terminal that never answers: the first frame is drawn at once, the box without the tone', async () => {
    const c = new FakeController();
    const { stdin, stdout, io } = tuiStreams();
    const question = askSkinToneWidth(io.stdin, io.stdout);
    expect(question).toBeDefined();
    const done = runTui(c, { ...io, color: false, ...(question ? { skinTone: question } : {}) });
    // mutation: any wait for the answer (a timeout, a promise) before rendering fails here: the
    // frame is on the terminal before runTui gave the event loop a turn
    expect(stdout.frames.join('')).toContain('context left');
    expect(question?.answered).toBe(false);
    await typeToned(stdin, stdout);
    expect(stdout.frames.join('')).toContain('❯ ok 👍 thanks');
    expect(stdout.frames.join('')).not.toContain('❯ ok 👍🏽');
    c.emit({ type: 'exit' });
    await done;
    expect(skinToneColumns()).toBeUndefined();
  });

  it('a terminal that answers after the first frame: the width is learned and the box redrawn with the tone', async () => {
    const c = new FakeController();
    const { stdin, stdout, io } = tuiStreams();
    const question = askSkinToneWidth(io.stdin, io.stdout);
    const done = runTui(c, { ...io, color: false, ...(question ? { skinTone: question } : {}) });
    expect(stdout.frames.join('')).toContain('context left');
    await typeToned(stdin, stdout);
    expect(stdout.frames.join('')).not.toContain('❯ ok 👍🏽');
    const typed = stdout.frames.length;
    // the replies, as tmux gives them (the sample four columns wide), each its own read
    stdin.write('\u001b[3;1R');
    stdin.write('\u001b[3;5R');
    // mutation: the app not passing its input to the question (or the box not following the width) never redraws
    await waitFor(() => stdout.frames.slice(typed).join('').includes('❯ ok 👍🏽 thanks'));
    expect(skinToneColumns()).toBe(4);
    expect(question?.answered).toBe(true);
    // the replies were no text: nothing was inserted into the box
    expect(stdout.frames.slice(typed).join('')).not.toMatch(/\d;\d+R|thanksR/);
    c.emit({ type: 'exit' });
    await done;
  });
});
