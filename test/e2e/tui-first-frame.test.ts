// Fresh modules: it holds src/bootstrap.ts's createRuntime (vi.mock) until the test lets the session open, which a worker's shared modules would not see.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CliError, EXIT_USAGE } from '../../src/cliError.js';
import { AGENT_BIN, agentEnv, workspace, useFakeServer } from './inprocess.js';
import { Tmux } from './terminal.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// A fresh session's first frame is drawn from the configuration alone, before the runtime (the
// database, the session, the tools) is built (src/interactive.ts, src/pendingController.ts). Here
// the build is held until the test lets it go, so what the person sees and does meanwhile is the
// subject: before the change no frame was drawn until the build had ended.

const build = vi.hoisted(() => ({ held: Promise.resolve() as Promise<void> }));
vi.mock('../../src/bootstrap.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/bootstrap.js')>();
  return {
    ...real,
    createRuntime: async (...args: Parameters<typeof real.createRuntime>) => {
      await build.held;
      return real.createRuntime(...args);
    },
  };
});

/** Holds the runtime's build until `release` (or `fail`) is called. */
function holdBuild(): { release: () => void; fail: (e: Error) => void } {
  let release = (): void => {};
  let fail = (_e: Error): void => {};
  build.held = new Promise<void>((resolve, reject) => {
    release = resolve;
    fail = reject;
  });
  // a failure may come before the build awaits it (its modules still loading): it is not unhandled
  build.held.catch(() => {});
  return { release, fail };
}

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
  build.held = Promise.resolve();
});

/** A fresh session in a new workspace (`prepare` writes its files) with its build held, once its first frame is drawn. */
async function firstFrame(
  prepare: (ws: ReturnType<typeof workspace>) => void = () => {},
  args: string[] = [],
): Promise<{ held: ReturnType<typeof holdBuild>; tui: Tmux }> {
  const ws = workspace();
  prepare(ws);
  const held = holdBuild();
  const tui = new Tmux({
    command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-6', ...args],
    cwd: ws.dir,
    env: { ...agentEnv({ ws, server }), TERM: 'xterm-256color' },
  });
  term = tui;
  await tui.waitFor('/help commands');
  return { held, tui };
}

const footerOf = (screen: string): string => screen.split('\n').find((l) => l.includes('…/project')) ?? '';

describe("a fresh session's first frame", () => {
  it('is drawn before the session is built; what is typed meanwhile is sent once it is open, and the command menu gets its commands', async () => {
    const { held, tui } = await firstFrame((ws) => {
      mkdirSync(join(ws.dir, '.claude', 'commands'), { recursive: true });
      writeFileSync(join(ws.dir, '.claude', 'commands', 'explain.md'), '---\ndescription: Explain a file\n---\nExplain $1.\n');
    });
    // the footer: the configuration's model and folder, no session id yet, the gauge still counting
    const first = footerOf(tui.screen());
    expect(first).toMatch(/^claude-sonnet-4-6 .*· …\/project\s+counting context…/);

    // the menu of a command typed now has no custom command yet; it gets them when the session opens
    tui.type('/expl');
    await tui.waitFor('Unknown command /expl');
    held.release();
    await tui.waitFor('Explain a file');
    tui.keys('C-u');
    // the footer shows the open session's id
    await tui.waitFor(/…\/project · [a-z0-9]{8}/);
    server.enqueue({ text: 'Answered in the open session.' });
    tui.type('and now a prompt');
    tui.keys('Enter');
    await tui.waitFor('Answered in the open session.');
    expect(await tui.exitWithCtrlC()).toBe(0);
  });

  it('sends a prompt typed before the session opens, once it does, and only then', async () => {
    const { held, tui } = await firstFrame();
    server.enqueue({ text: 'Answered after the wait.' });
    const before = server.requests.length;
    tui.type('typed at the first frame');
    tui.keys('Enter');
    // the activity line says the session is opening; nothing reaches the provider until it is open
    await tui.waitFor('Opening the session…');
    await new Promise((r) => setTimeout(r, 300));
    expect(server.requests.length).toBe(before);
    held.release();
    await tui.waitFor('Answered after the wait.');
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain('typed at the first frame');
    expect(await tui.exitWithCtrlC()).toBe(0);
  });

  it('gives a prompt sent before the session opens back to the input on Esc, unsent', async () => {
    const { held, tui } = await firstFrame();
    const before = server.requests.length;
    tui.type('take this back');
    tui.keys('Enter');
    await tui.waitFor('Opening the session…');
    tui.keys('Escape');
    await tui.waitFor('the session had not opened yet, so it was not sent');
    await tui.waitFor(/❯ take this back/);
    held.release();
    await tui.waitFor(/…\/project · [a-z0-9]{8}/);
    expect(server.requests.length).toBe(before);
    expect(tui.screen()).not.toContain('Opening the session…');
    expect(await tui.exitWithCtrlC()).toBe(0);
  });

  it('sends the first prompt given as arguments once the session opens', async () => {
    server.enqueue({ text: 'Answered the first prompt.' });
    const { held, tui } = await firstFrame(undefined, ['explain', 'the', 'build']);
    held.release();
    await tui.waitFor('Answered the first prompt.');
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain('explain the build');
    expect(tui.screen()).toContain('explain the build');
    expect(await tui.exitWithCtrlC()).toBe(0);
  });

  it('tells a bad configuration or a missing key before anything is drawn', async () => {
    for (const [rc, env, said] of [
      [{ compaction: { auto: 'yes' } }, {}, 'field "compaction.auto"'],
      [{}, { ANTHROPIC_API_KEY: '' }, 'no API key for anthropic'],
    ] as const) {
      const ws = workspace(rc);
      const tui = new Tmux({
        command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-6'],
        cwd: ws.dir,
        env: { ...agentEnv({ ws, server }), TERM: 'xterm-256color', ...env },
      });
      term = tui;
      expect(await tui.waitForExit()).toBe(EXIT_USAGE);
      expect(tui.screen()).toContain(said);
      expect(tui.screen()).not.toContain('/help commands');
      tui.kill();
    }
  });

  it('ends the app with the reason when the session cannot be built after the first frame', async () => {
    const { held, tui } = await firstFrame();
    held.fail(new CliError('the database at /nowhere could not be opened', EXIT_USAGE));
    expect(await tui.waitForExit()).toBe(EXIT_USAGE);
    expect(tui.screen()).toContain('the database at /nowhere could not be opened');
  });

  it('waits for the session when the person exits before it opens, then ends as an empty session does', async () => {
    const { held, tui } = await firstFrame();
    tui.keys('C-d');
    await new Promise((r) => setTimeout(r, 200));
    expect(tui.screen()).not.toContain('[exited with');
    held.release();
    expect(await tui.waitForExit()).toBe(0);
    expect(tui.screen()).not.toContain('agent --resume');
  });
});
