// The program's world: what it reads of the process it runs in — the environment, the working
// directory, standard input, output and error (the terminal's size and keys come through them),
// the signals, how it exits and what runs when it does — passed to `main(argv, world)` by the
// entry (bin/agent.js gives the process's own, processWorld()) and by the in-process test
// harness (its own streams, environment and signals). What a run keeps for itself (the log's
// secrets and debug file, the ledger's sections, the child process groups, the closed-pipe
// handler) lives in the world's slots, so two runs in one process never see each other's.
// What it owns: the current run's world (an AsyncLocalStorage scope entered by main) and its
// slots. What it never does: read a setting, write to a stream, or decide anything.
import { AsyncLocalStorage } from 'node:async_hooks';
import { homedir } from 'node:os';

/** Where a run hears about signals: the process itself, or a test's emitter. */
export interface SignalSource {
  on(signal: NodeJS.Signals, handler: (signal: NodeJS.Signals) => void): unknown;
  off(signal: NodeJS.Signals, handler: (signal: NodeJS.Signals) => void): unknown;
}

export interface World {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdin: NodeJS.ReadStream;
  /** The terminal's size is its columns and rows, and its 'resize' event. */
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  signals: SignalSource;
  /** Ends the run now with this code (the process exits; an in-process run resolves with it). */
  exit: (code: number) => void;
  /** Runs `fn` when the run ends, whatever path the end took (the process's 'exit'); returns the undo. */
  onExit: (fn: () => void) => () => void;
  /** What the run keeps for itself (slot()); a new world starts with an empty map. */
  readonly slots: Map<symbol, unknown>;
}

const scope = new AsyncLocalStorage<World>();
let processOwn: World | undefined;

/** The process's own world: what bin/agent.js passes to main, and what code outside any run (a unit test) sees. */
export function processWorld(): World {
  processOwn ??= {
    env: process.env,
    get cwd(): string {
      return process.cwd();
    },
    // a getter: process.stdin makes its stream (tty, net or fs) on first use, which `-p "…"` never needs
    get stdin(): NodeJS.ReadStream {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    signals: process,
    exit: (code) => process.exit(code),
    onExit: (fn) => {
      process.once('exit', fn);
      return () => process.off('exit', fn);
    },
    slots: new Map(),
  };
  return processOwn;
}

/** The world of the run this code belongs to (the process's outside any run). */
export function world(): World {
  return scope.getStore() ?? processWorld();
}

/**
 * Runs `fn` (and everything it starts) in `w`. The process's own world, entered where no other
 * is, needs no scope: world() answers it outside any. Entering one would turn on Node 20's
 * async hooks (what AsyncLocalStorage is built on there) for every promise of the run, ~12 ms of
 * a `-p` start and a cost on every streamed chunk after; only in-process runs (tests, ACP's
 * sessions in their own folders) need them.
 */
export function inWorld<T>(w: World, fn: () => T): T {
  if (w === processOwn && scope.getStore() === undefined) return fn();
  return scope.run(w, fn);
}

/** A run's own instance of something that was process-wide: made on first use in each world. */
export function slot<T>(key: symbol, make: () => T): T {
  const slots = world().slots;
  if (!slots.has(key)) slots.set(key, make());
  return slots.get(key) as T;
}

/** The run's home directory: its HOME, else the account's. */
export function homeDir(): string {
  return world().env['HOME'] || homedir();
}
