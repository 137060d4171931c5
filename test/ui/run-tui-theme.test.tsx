import { EventEmitter } from 'node:events';
import { beforeAll, describe, expect, it } from 'vitest';
import { inWorld, processWorld } from '../../src/runtime/world.js';
import { FakeController, waitFor } from './fakes.js';
import { loadRunTui, tuiStreams } from './tui-loaded.js';

// Which theme runTui draws with (app.tsx): colour from its option, else from the world (NO_COLOR,
// FORCE_COLOR, a terminal); boxes unless TERM is dumb. Ink's chalk fixes its colour level when
// first loaded, so it is loaded here with colour forced (and with CI set, as run-tui.test.tsx
// explains), and a theme without colour is seen to write none.
// Fresh modules: Ink must be first loaded here, with colour on.
let runTui: Awaited<ReturnType<typeof loadRunTui>>;
beforeAll(async () => {
  runTui = await loadRunTui({ CI: 'true', CONTINUOUS_INTEGRATION: '1', FORCE_COLOR: '1' });
});

/** What a run in a world with `env` draws until its first frame is on the terminal. */
async function drawn(env: NodeJS.ProcessEnv, over: { color?: boolean; dumb?: boolean } = {}): Promise<string> {
  const c = new FakeController();
  const { stdout, io } = tuiStreams();
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
