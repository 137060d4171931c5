import { EventEmitter } from 'node:events';
import { beforeAll, describe, expect, it } from 'vitest';
import { inWorld, processWorld } from '../../src/runtime/world.js';
import { loadTui } from '../../src/ui/load.js';
import { FakeController, SizedStdout, FakeStdin, waitFor } from './fakes.js';

// Which theme runTui draws with (app.tsx): colour from its option, else from the world (NO_COLOR,
// FORCE_COLOR, a terminal); boxes unless TERM is dumb. Ink's chalk fixes its colour level when
// first loaded, so it is loaded here with colour forced (and with CI set, as run-tui.test.tsx
// explains), and a theme without colour is seen to write none.
// Fresh modules: Ink must be first loaded here, with colour on.
let runTui: Awaited<ReturnType<typeof loadTui>>['runTui'];
beforeAll(async () => {
  const before = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION, FORCE_COLOR: process.env.FORCE_COLOR };
  Object.assign(process.env, { CI: 'true', CONTINUOUS_INTEGRATION: '1', FORCE_COLOR: '1' });
  try {
    ({ runTui } = await loadTui());
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
});

/** What a run in a world with `env` draws until its first frame is on the terminal. */
async function drawn(env: NodeJS.ProcessEnv, over: { color?: boolean; dumb?: boolean } = {}): Promise<string> {
  const c = new FakeController();
  const stdout = new SizedStdout(80, 24);
  const io = {
    stdin: new FakeStdin() as unknown as NodeJS.ReadStream,
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: new SizedStdout(80, 24) as unknown as NodeJS.WriteStream,
    patchConsole: false,
  };
  const w = { ...processWorld(), env, signals: new EventEmitter(), onExit: () => () => undefined, slots: new Map<symbol, unknown>() };
  const done = inWorld(w, () => runTui(c, { ...io, ...over }));
  await waitFor(() => stdout.frames.join('').includes('context left'));
  c.emit({ type: 'exit' });
  await done;
  return stdout.frames.join('');
}

const colour = /\u001b\[(?:3[0-7]|9[0-7]|38;[25];[\d;]+)m/;

describe("runTui's theme", () => {
  it('colour: the option wins; without it NO_COLOR says none and a terminal says some', async () => {
    // mutation: `opts.color ?? detectColor(…)` made `&&` (the option asked for is overruled by NO_COLOR)
    expect(await drawn({ NO_COLOR: '1' }, { color: true })).toMatch(colour);
    expect(await drawn({ TERM: 'xterm-256color' }, { color: false })).not.toMatch(colour);
    // mutation: the world's environment not asked (detectColor's NO_COLOR unseen)
    expect(await drawn({ NO_COLOR: '1' })).not.toMatch(colour);
    expect(await drawn({ TERM: 'xterm-256color' })).toMatch(colour);
  });

  it('boxes unless TERM is dumb (no colour there either); the option wins', async () => {
    // mutations: `TERM === 'dumb'` flipped, or `opts.dumb ?? …` made `&&`
    expect(await drawn({ TERM: 'xterm-256color' })).toContain('╭');
    const dumb = await drawn({ TERM: 'dumb' });
    expect(dumb).not.toContain('╭');
    expect(dumb).not.toMatch(colour);
    expect(await drawn({ TERM: 'xterm-256color' }, { dumb: true })).not.toContain('╭');
    expect(await drawn({ TERM: 'dumb' }, { dumb: false })).toContain('╭');
  });
});
