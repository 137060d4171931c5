import { EventEmitter } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import { main, type World } from '../../src/cli.js';
import { collector } from '../worlds.js';
import { agentEnv, inProcessRuns, MODEL, type RunOptions, type RunResult, stopWhenListening } from './harness.js';

// Runs the CLI in this process: `main(argv, world)` (src/cli.ts) with a world of its own — the
// environment and working directory the spawning harness would give the child, standard input
// from `stdin`, standard output and error into strings, its own signals and exit — against the
// fake provider server of this worker. The result has the spawning harness's shape (stdout,
// stderr, the exit code; the database is the workspace's file), so a print-mode file switches
// by importing from here instead of './harness.js'. A round trip costs tens of milliseconds here
// against hundreds for a spawned `node bin/agent.js`. Where the process itself is the subject
// (signals, kill -9, closed pipes, the launcher, the lease between processes, start-up, the
// debug log) a file keeps spawning (CONTRIBUTING.md, "Tests").

export * from './harness.js';

// The modules a run loads on demand (print mode, the commands, the SDK adapters, MCP's
// connection) are compiled once per worker, here, when the first file imports
// this one: otherwise the first run of a worker paid 10-15 s of compiling on a loaded machine,
// inside its test's time limit and its own 20 s bound. Not the tokenizer: whether it is loaded yet
// is what a run's first gauge shows, and the worker keeps it loaded once a run loaded it (a test
// of that first gauge spawns: tui-gauge-continue.test.ts).
await Promise.all([
  import('../../src/print.js'),
  import('../../src/sessionsCommand.js'),
  import('../../src/doctor/doctor.js'),
  import('../../src/llm/anthropic.js'),
  import('../../src/llm/openai.js'),
  import('../../src/llm/responses.js'),
  import('../../src/mcp/connection.js'),
]);

/** Runs `agent <args>` in this process; the model flag for the provider is added unless args name one (as runAgent of harness.ts). */
export function runAgent(args: string[], opts: RunOptions): Promise<RunResult> {
  if (opts.onSpawn) throw new Error('runAgent in-process has no child process: a test that needs one imports runAgent from ./harness.js');
  const provider = opts.provider ?? 'anthropic';
  const fullArgs = args.includes('--model') || args[0] === 'sessions' ? args : [...args, '--model', MODEL[provider]];
  const out = collector();
  const err = collector();
  const stdin = Readable.from(opts.stdin !== undefined && opts.stdin !== '' ? [Buffer.from(opts.stdin)] : []) as unknown as NodeJS.ReadStream;
  const { signals, done } = runMain(fullArgs, opts, { stdin, stdout: out.stream, stderr: err.stream });
  const run = {
    stop: () => {
      stopWhenListening(signals);
      // a run stuck before it listens for signals is left behind, said so, rather than hang the next test's setup
      return Promise.race([done, new Promise<void>((r) => setTimeout(r, 5_000).unref())]).then((code) => {
        if (code === undefined) console.warn(`agent ${fullArgs.join(' ')} (in-process) did not end on SIGTERM within 5 s`);
      });
    },
  };
  inProcessRuns.add(run);
  return new Promise<RunResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`agent ${fullArgs.join(' ')} (in-process) timed out\nstdout: ${out.text()}\nstderr: ${err.text()}`));
    }, opts.timeoutMs ?? 20_000);
    void done.then((code) => {
      inProcessRuns.delete(run);
      clearTimeout(timer);
      resolve({ code, signal: null, stdout: out.text(), stderr: err.text() });
    });
  });
}

/** An agent started in this process whose standard input and output are streams of the test's (`agent acp`, which an editor talks to over them). */
export interface StartedAgent {
  /** What the agent reads as its standard input. */
  stdin: NodeJS.WritableStream;
  /** What the agent writes to its standard output. */
  stdout: NodeJS.ReadableStream;
  stderr: () => string;
  /** Resolves with the exit code when the run ends. */
  done: Promise<number>;
  /** Ends the run (SIGTERM in its world) unless it ended; resolves when it did, or after 5 s. */
  stop: () => Promise<void>;
}

/** Starts `agent <args>` in this process with piped standard input and output, as spawn() with stdio 'pipe' would (no model flag is added). */
export function startAgent(args: string[], opts: Pick<RunOptions, 'ws' | 'server' | 'provider' | 'env'>): StartedAgent {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  // the test's ends of the pipes, apart from the agent's as a process's are: a test's stream
  // destroyed with an error (an ACP client's connection closing) is an end of input to the agent,
  // not that error thrown at it
  const toAgent = new PassThrough();
  const fromAgent = new PassThrough();
  for (const end of [toAgent, fromAgent]) end.on('error', () => {});
  // the agent's own ends: the SDK's connection, closing, aborts them with its reason
  for (const end of [stdin, stdout]) end.on('error', () => {});
  toAgent.on('data', (d: Buffer) => stdin.write(d));
  toAgent.on('close', () => stdin.end());
  toAgent.on('end', () => stdin.end());
  stdout.on('data', (d: Buffer) => fromAgent.destroyed || fromAgent.write(d));
  stdout.on('end', () => fromAgent.destroyed || fromAgent.end());
  const err = collector();
  const { signals, done: ended } = runMain(args, opts, {
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: err.stream,
  });
  const done = ended.then((code) => {
    stdout.end();
    inProcessRuns.delete(run);
    return code;
  });
  const run = {
    stop: async () => {
      stopWhenListening(signals);
      stdin.end();
      const code = await Promise.race([done, new Promise<undefined>((r) => setTimeout(() => r(undefined), 5_000).unref())]);
      if (code === undefined) console.warn(`agent ${args.join(' ')} (in-process) did not end on SIGTERM within 5 s`);
    },
  };
  inProcessRuns.add(run);
  return { stdin: toAgent, stdout: fromAgent, stderr: err.text, done, stop: run.stop };
}

/**
 * Calls `main(argv, world)` with a world of its own (the workspace's environment and folder, these
 * streams, its own signals and exit); `done` resolves with the exit code once the run returned or
 * called its exit, after its exit hooks ran. What bin/agent.js would die of (an uncaught
 * rejection) prints its stack and ends with 1.
 */
function runMain(
  argv: string[],
  opts: Pick<RunOptions, 'ws' | 'server' | 'provider' | 'env'>,
  io: Pick<World, 'stdin' | 'stdout' | 'stderr'>,
): { signals: EventEmitter; done: Promise<number> } {
  const signals = new EventEmitter();
  const exitHooks = new Set<() => void>();
  let exited: ((code: number) => void) | undefined;
  const exitCalled = new Promise<number>((resolve) => (exited = resolve));
  const world: World = {
    env: agentEnv(opts),
    cwd: opts.ws.dir,
    ...io,
    signals,
    exit: (code) => exited?.(code),
    onExit: (fn) => {
      exitHooks.add(fn);
      return () => exitHooks.delete(fn);
    },
    slots: new Map(),
  };
  const finished = main(['node', 'agent', ...argv], world).catch((e: unknown) => {
    world.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return 1;
  });
  const done = Promise.race([finished, exitCalled]).then((code) => {
    for (const fn of exitHooks) fn();
    return code;
  });
  return { signals, done };
}
