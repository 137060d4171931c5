import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitQuietlyOnClosedPipe, main, version, type World } from '../src/cli.js';
import { onClosedStdout } from '../src/closedPipe.js';
// the print run main loads on demand, loaded here once (and named, so a mutant of print.ts runs this file)
import '../src/print.js';
import { inWorld } from '../src/runtime/world.js';
import { openStore } from '../src/store/index.js';
import { startFakeServer, type FakeServer } from './fake-server/server.js';
import { fakeProviderEnv } from './llm/helpers.js';
import { tempDir } from './tempDirs.js';
import { collector, testWorld } from './worlds.js';

// The entry point in this process, as bin/agent.js calls it: main(argv, world) with a world of the
// test's (its environment, folder, streams, signals and exit) against the fake provider. What the
// end-to-end files check of whole runs, these check of cli.ts itself: commander's output and exits
// kept in the world, the usage errors said on its stderr, which session --continue opens, and a
// closed pipe's handling.

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer({ fallback: { text: 'The fake model answers.' } });
});
afterAll(() => server.close());

/** A project folder and a home of its own, with the fake provider's key and address. */
function project(): { dir: string; env: NodeJS.ProcessEnv; db: string } {
  const home = tempDir('agent-cli-');
  const env: NodeJS.ProcessEnv = { ...fakeProviderEnv(home, server.anthropicBaseURL), NO_COLOR: '1' };
  return { dir: home, env, db: env['AGENT_DB']! };
}

/**
 * `agent <args>` through main() in a world of its own (its signals `signals`): what it wrote, the
 * code it returned or (`exited`) the exit it called, as bin/agent.js's process would end.
 */
async function agent(
  args: string[],
  p: { dir: string; env: NodeJS.ProcessEnv },
  signals = new EventEmitter(),
): Promise<{ code: number; stdout: string; stderr: string; exited?: true }> {
  const out = collector();
  const err = collector();
  let exit: (code: number) => void = () => {};
  const exitCalled = new Promise<number>((resolve) => (exit = resolve));
  const world: World = {
    env: p.env,
    cwd: p.dir,
    stdin: Readable.from([]) as unknown as NodeJS.ReadStream,
    stdout: out.stream,
    stderr: err.stream,
    signals,
    exit: (code) => exit(code),
    onExit: () => () => {},
    slots: new Map(),
  };
  const ended = await Promise.race([
    main(['node', 'agent', ...args], world).then((code) => ({ code })),
    exitCalled.then((code) => ({ code, exited: true as const })),
  ]);
  return { ...ended, stdout: out.text(), stderr: err.text() };
}

describe('main(argv, world)', () => {
  it("answers --version and a flag commander rejects on the world's streams, returning the exit code", async () => {
    const p = project();
    const v = await agent(['--version'], p);
    expect(v).toEqual({ code: 0, stdout: `${version()}\n`, stderr: '' });
    const bad = await agent(['--no-such-flag'], p);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown option '--no-such-flag'");
    expect(bad.stdout).toBe('');
  });
  // mutation: dropping program.exitOverride().configureOutput(output) (cli.ts) fails it: commander
  // writes to the process's streams and exits the process

  it('says a usage error (a flag, a setting) on stderr, prefixed agent:, with exit code 2', async () => {
    const r = await agent(['-p', 'hi', '--resume', 's_x', '--continue'], project());
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('agent: --resume and --continue both name the session to open: give one of them\n');
    // a setting the config refuses is a usage error too
    const c = await agent(['-p', 'hi', '--base-url', 'not a url'], project());
    expect(c.code).toBe(2);
    expect(c.stderr).toBe('agent: --base-url: "not a url" is not a URL\n');
  });
  // mutation: dropping reportFatal's stderr.write for a CliError or a ConfigError (cli.ts) fails it

  it('-p answers a prompt; --continue refuses where no session was, and continues the latest where one was', async () => {
    const p = project();
    const none = await agent(['-p', 'hi', '--continue', '--model', 'claude-sonnet-4-5'], p);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(`agent: --continue: no earlier session in ${p.dir} (start one with \`agent\`)\n`);
    expect(server.requests.filter((r) => r.raw?.includes(p.dir))).toEqual([]);
    const first = await agent(['-p', 'the first prompt', '--model', 'claude-sonnet-4-5'], p);
    expect(first).toMatchObject({ code: 0, stdout: 'The fake model answers.\n' });
    const again = await agent(['-p', 'the second prompt', '--continue', '--model', 'claude-sonnet-4-5'], p);
    expect(again).toMatchObject({ code: 0, stdout: 'The fake model answers.\n' });
    // the second run's request carries the first prompt: it continued that session
    const last = server.requests.at(-1)?.raw ?? '';
    expect(last).toContain('the second prompt');
    expect(last).toContain('the first prompt');
  });
  // mutations: `if (info) throw` for --continue (sessionLookup.ts) fails it both ways; readsOnly's
  // `slash === undefined && VIEWS.has(slash.name)` (print.ts) fails the first -p (a TypeError)

  it('a view of a session another process holds (-p /cost --resume) reads a copy; a prompt to it is refused', async () => {
    const p = project();
    const first = await agent(['-p', 'the first prompt', '--model', 'claude-sonnet-4-5'], p);
    expect(first.code).toBe(0);
    const store = openStore(p.db);
    let id: string;
    try {
      id = store.listSessions({ cwd: p.dir, limit: 8 })[0]!.id;
      // pid 1 lives in every container: the lease is another live process's
      store.acquireLease(id, { token: 'tui', pid: 1, host: hostname() }, () => false);
    } finally {
      store.close();
    }
    const view = await agent(['-p', '/cost', '--resume', id, '--model', 'claude-sonnet-4-5'], p);
    expect(view.stderr).toBe('');
    expect(view.code).toBe(0);
    expect(view.stdout).not.toBe('');
    const prompt = await agent(['-p', 'write to it', '--resume', id, '--model', 'claude-sonnet-4-5'], p);
    expect(prompt.code).toBe(2);
    expect(prompt.stderr).toMatch(/^agent: .*in use/);
  });
  // mutation: readsOnly `slash === undefined && …` (print.ts) fails it (the view is refused as in use)

  it("Ctrl+C during a turn interrupts the turn, and the run ends on its own rather than by the signal's exit", async () => {
    const p = project();
    const signals = new EventEmitter();
    server.respondWith((r) => {
      if (r.raw?.includes('a long job')) signals.emit('SIGINT', 'SIGINT');
      return undefined;
    });
    try {
      const r = await agent(['-p', 'a long job', '--model', 'claude-sonnet-4-5'], p, signals);
      // the interrupted turn is the run's failure (1), returned: no exit by the signal (130)
      expect(r).toMatchObject({ code: 1, stdout: '' });
      expect(r.exited).toBeUndefined();
    } finally {
      server.respondWith(undefined);
    }
  });
  // mutation: `if (session.interrupt()) void terminate('SIGINT', …)` (print.ts) fails it: the first Ctrl+C ends the run with 130
});

describe('a closed pipe (exitQuietlyOnClosedPipe)', () => {
  function pipeWorld(): { w: World; exits: number[]; handled: string[] } {
    const w = testWorld();
    return { w, exits: w.exits, handled: [] };
  }
  const epipe = (): NodeJS.ErrnoException => Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });

  it("on stdout runs the run's handler once instead of exiting; the next one exits quietly", () => {
    const { w, exits, handled } = pipeWorld();
    inWorld(w, () => {
      exitQuietlyOnClosedPipe(w.stdout);
      onClosedStdout(() => handled.push('ended the turn'));
    });
    w.stdout.emit('error', epipe());
    expect(handled).toEqual(['ended the turn']);
    expect(exits).toEqual([]);
    w.stdout.emit('error', Object.assign(new Error('destroyed'), { code: 'ERR_STREAM_DESTROYED' }));
    expect(handled).toEqual(['ended the turn']);
    expect(exits).toEqual([0]);
  });
  // mutations: dropping `s.handler = undefined` (closedPipe.ts) runs the handler again; `stream !== w.stdout` (cli.ts) exits at once

  it('on stderr exits quietly and leaves the stdout handler alone; another error is thrown', () => {
    const { w, exits, handled } = pipeWorld();
    inWorld(w, () => {
      exitQuietlyOnClosedPipe(w.stderr);
      onClosedStdout(() => handled.push('ended the turn'));
    });
    w.stderr.emit('error', epipe());
    expect(handled).toEqual([]);
    expect(exits).toEqual([0]);
    expect(() => w.stderr.emit('error', Object.assign(new Error('disk on fire'), { code: 'EIO' }))).toThrow('disk on fire');
    expect(exits).toEqual([0]);
  });
  // mutations: `stream !== w.stdout` (cli.ts) runs the stdout handler for stderr; `e.code === 'EPIPE' …` exits on any error
});
