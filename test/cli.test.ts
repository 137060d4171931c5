import { EventEmitter } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitQuietlyOnClosedPipe, main, version, type World } from '../src/cli.js';
import { onClosedStdout } from '../src/closedPipe.js';
// the print run main loads on demand, loaded here once (and named, so a mutant of print.ts runs this file)
import '../src/print.js';
import { inWorld } from '../src/runtime/world.js';
import { readOnlyCopy } from '../src/sessionLookup.js';
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
  stdin: Readable = Readable.from([]),
): Promise<{ code: number; stdout: string; stderr: string; exited?: true }> {
  const out = collector();
  const err = collector();
  let exit: (code: number) => void = () => {};
  const exitCalled = new Promise<number>((resolve) => (exit = resolve));
  const world: World = {
    env: p.env,
    cwd: p.dir,
    stdin: stdin as unknown as NodeJS.ReadStream,
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

describe('main(argv, world): subcommands, closed pipes and a failure', () => {
  it("a subcommand and a subcommand's own command reject a flag on the world's stderr with exit 2", async () => {
    const p = project();
    const sub = await agent(['sessions', '--no-such-flag'], p);
    expect(sub).toMatchObject({ code: 2, stdout: '' });
    expect(sub.stderr).toContain("unknown option '--no-such-flag'");
    const subsub = await agent(['sessions', 'list', '--no-such-flag'], p);
    expect(subsub).toMatchObject({ code: 2, stdout: '' });
    expect(subsub.stderr).toContain("unknown option '--no-such-flag'");
  });
  // mutations: dropping `c.exitOverride().configureOutput(output)` or the same for `s` (cli.ts) fails it:
  // commander writes to the process's stderr and exits the process

  it('a reader closing either pipe after a run ends it quietly (exit 0), not with a thrown error', async () => {
    const p = project();
    const out = collector();
    const err = collector();
    const exits: number[] = [];
    const world: World = { ...testWorld(p.env), cwd: p.dir, stdout: out.stream, stderr: err.stream, exit: (code) => void exits.push(code) };
    expect(await main(['node', 'agent', '--version'], world)).toBe(0);
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    out.stream.emit('error', epipe);
    err.stream.emit('error', epipe);
    expect(exits).toEqual([0, 0]);
  });
  // mutations: dropping either exitQuietlyOnClosedPipe(io.stdout / io.stderr) in run (cli.ts) throws the EPIPE

  it('a failure that is not a usage error is said on stderr, a key in it redacted, with exit code 1', async () => {
    const p = project();
    const key = p.env['ANTHROPIC_API_KEY']!;
    // a path with the key in it: the message names the file, and its key is redacted there
    const notADatabase = join(p.dir, `${key}.db`);
    writeFileSync(notADatabase, 'this is no database\n'.repeat(200));
    const r = await agent(['sessions', 'show', 's_any'], { ...p, env: { ...p.env, AGENT_DB: notADatabase } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^agent: .*\[redacted\]\.db is not an SQLite database/);
    expect(r.stderr).not.toContain(key);
  });
  // mutation: dropping reportFatal's last stderr.write (cli.ts) leaves the failure unsaid
});

describe('print mode through main: its prompt from stdin, its signals, its MCP servers', () => {
  it('-p without a prompt reads it from piped standard input, trimmed; the run leaves no signal listener behind', async () => {
    const p = project();
    const signals = new EventEmitter();
    const r = await agent(['-p', '--model', 'claude-sonnet-4-5'], p, signals, Readable.from([Buffer.from('  the piped-in question  \n')]));
    expect(r).toMatchObject({ code: 0, stdout: 'The fake model answers.\n' });
    const asked = server.requests.find((q) => q.raw?.includes('the piped-in question'))?.raw ?? '';
    // mutations: `if (world().stdin.isTTY)` in promptOf (print.ts) sends no prompt; dropping its trim() sends the spaces
    expect(asked).toContain('"the piped-in question"');
    // mutation: dropping `w.signals.off('SIGINT', onSigint)` (print.ts) leaves the run's handler on the world's signals
    expect(signals.listenerCount('SIGINT')).toBe(0);
  });

  it('a trusted project MCP server still connecting after mcp.startupMs is said on stderr, and the turn goes on without it', async () => {
    const p = project();
    mkdirSync(p.dir, { recursive: true });
    writeFileSync(
      join(p.dir, '.mcp.json'),
      JSON.stringify({ mcpServers: { sleepy: { command: process.execPath, args: ['-e', 'setTimeout(() => {}, 30000)'] } } }),
    );
    writeFileSync(join(p.dir, '.agentrc'), JSON.stringify({ mcp: { startupMs: 50 } }));
    const r = await agent(['-p', 'go on without it', '--mcp-trust', '--model', 'claude-sonnet-4-5'], p);
    expect(r).toMatchObject({ code: 0, stdout: 'The fake model answers.\n' });
    expect(r.stderr).toContain('agent: MCP server "sleepy" is still connecting after 50 ms (mcp.startupMs); going on without it\n');
  });
});

describe('which session --resume and --continue open (sessionLookup.ts through main)', () => {
  it('--resume of an unknown id or an ambiguous short id is a usage error named for the flag', async () => {
    const p = project();
    const first = await agent(['-p', 'make the store', '--model', 'claude-sonnet-4-5'], p);
    expect(first.code).toBe(0);
    const store = openStore(p.db);
    try {
      for (const id of ['s_twin1', 's_twin2']) store.createSession({ id, cwd: p.dir, provider: 'anthropic', model: 'claude-sonnet-4-5', title: id });
    } finally {
      store.close();
    }
    const unknown = await agent(['-p', 'hi', '--resume', 's_nobody', '--model', 'claude-sonnet-4-5'], p);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(`agent: --resume: no session with id "s_nobody" in ${p.db} (list them with \`agent sessions\`)\n`);
    const twins = await agent(['-p', 'hi', '--resume', 's_twin', '--model', 'claude-sonnet-4-5'], p);
    expect(twins.code).toBe(2);
    expect(twins.stderr).toMatch(/^agent: --resume: The short session id "s_twin" is ambiguous/);
  });
  // mutation: `e.kind !== 'not_found'` in lookUpSession (sessionLookup.ts) says the ambiguity with exit 1, unnamed

  it("--continue never continues a read-only run's copy, even the newest: the session it copied instead", async () => {
    const p = project();
    expect((await agent(['-p', 'the original prompt', '--model', 'claude-sonnet-4-5'], p)).code).toBe(0);
    const store = openStore(p.db);
    let original: string;
    let copy: string;
    let had: number;
    try {
      original = store.listSessions({ cwd: p.dir, limit: 8 })[0]!.id;
      had = store.getSession(original)!.messageCount;
      copy = readOnlyCopy(store, store.getSession(original)!, p.dir).id;
      expect(store.latestSession(p.dir)?.id).toBe(copy);
    } finally {
      store.close();
    }
    expect((await agent(['-p', 'and one more', '--continue', '--model', 'claude-sonnet-4-5'], p)).code).toBe(0);
    const after = openStore(p.db);
    try {
      // mutation: `latest?.id.endsWith(COPY_PREFIX)` (sessionLookup.ts) continues the copy
      expect(after.getSession(original)?.messageCount).toBeGreaterThan(had);
      expect(after.getSession(copy)?.messageCount ?? had).toBe(had);
    } finally {
      after.close();
    }
  });
});

describe("print mode through main: a resumed session's goal", () => {
  it('a goal that waits (paused, budget-limited) is said on stderr when -p continues its session; an active one is not', async () => {
    const p = project();
    expect((await agent(['-p', 'the first prompt', '--model', 'claude-sonnet-4-5'], p)).code).toBe(0);
    const withGoal = (goal: Record<string, unknown>) => {
      const store = openStore(p.db);
      try {
        const id = store.listSessions({ cwd: p.dir, limit: 1 })[0]!.id;
        store.updateSession(id, { meta: { capabilities: { goal: { objective: 'ship the parser', check: 'make', ...goal } } } });
      } finally {
        store.close();
      }
    };
    const said = async () => {
      const r = await agent(['-p', 'and now?', '--continue', '--model', 'claude-sonnet-4-5'], p);
      expect(r.code).toBe(0);
      return r.stderr.split('\n').filter((l) => l.startsWith('agent: goal'));
    };
    withGoal({ status: 'paused', reason: 'by hand' });
    expect(await said()).toEqual(['agent: goal paused (by hand): ship the parser; /goal resume goes on with it']);
    withGoal({ status: 'budget_limited' });
    expect(await said()).toEqual(['agent: goal budget-limited: ship the parser; /goal resume goes on with it']);
    // mutation: `goal.status !== 'paused'` (print.ts) says it of a goal that ended, and not of a paused one
    withGoal({ status: 'complete', reason: 'the check passed' });
    expect(await said()).toEqual([]);
  });
});

describe('print mode through main: a background command still running at the end', () => {
  it('is stopped, and said, before the run returns', async () => {
    const p = project();
    const call = JSON.stringify({ command: 'sleep 30', run_in_background: true });
    const r = await agent(['-p', `@call Bash ${call}\n@report Started.`, '--permission-mode', 'allow', '--model', 'claude-sonnet-4-5'], p);
    expect(r.code).toBe(0);
    // mutation: `stopAfterPrint(…)` without its await (print.ts) returns first and says it after
    expect(r.stderr).toMatch(/agent: stopping the background command still running: \S+ `sleep 30`\n/);
  });
});

describe('the interactive app through main', () => {
  it('refuses to start without a terminal on both sides: stdin piped, or stdout piped while stdin is a terminal', async () => {
    const p = project();
    const refusal = 'agent: the interactive app needs a terminal; for scripts and pipes use `agent -p "<prompt>"`\n';
    const piped = await agent([], p);
    expect(piped).toMatchObject({ code: 2, stderr: refusal });
    const typing = Object.assign(Readable.from([]), { isTTY: true });
    const outPiped = await agent([], p, new EventEmitter(), typing);
    expect(outPiped).toMatchObject({ code: 2, stderr: refusal });
  });
  // mutation: `!stdin.isTTY && !stdout.isTTY` in runInteractive (interactive.ts) starts the app into a pipe
});
