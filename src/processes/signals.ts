// What a terminating signal does. SIGTERM (a supervisor, `timeout`, `kill`), SIGHUP (the terminal
// went away) and SIGINT from outside (the TUI reads Ctrl+C as a key; print mode's first Ctrl+C
// interrupts the turn instead, print.ts) end the program the same way: the front end's own
// shutdown starts (interrupt the turn, save what can be saved, close the MCP connections), every
// child group (groups.ts) is stopped meanwhile, and once both are done — the shutdown bounded in
// time — the program exits with 128 + the signal's number, as a shell reports a death by that
// signal. A second signal while that runs ends it at once, the groups SIGKILLed.
import { constants } from 'node:os';
import { killAllGroups, stopAllGroups } from './groups.js';

/** The longest a front end's shutdown may take before the program exits anyway. */
export const SHUTDOWN_MS = 3_000;
/** How long a child group gets between SIGTERM and SIGKILL. */
export const GROUP_GRACE_MS = 1_000;

let stopping: NodeJS.Signals | undefined;

/** The signal the program is ending on, once one came (the front ends skip their questions then). */
export function terminatingSignal(): NodeJS.Signals | undefined {
  return stopping;
}

/**
 * For a front end whose work ended because a signal's shutdown ended it: never settles while a
 * signal is being handled (terminate() exits, with the signal's code, once the children are
 * gone), and settles at once otherwise.
 */
export function untilTerminated(): Promise<void> {
  return stopping ? new Promise<void>(() => {}) : Promise.resolve();
}

/** 128 + the signal's number (SIGHUP 129, SIGINT 130, SIGTERM 143). */
export function exitCodeOf(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? constants.signals.SIGTERM);
}

export type Shutdown = (signal: NodeJS.Signals) => Promise<void> | void;

let sigintHeld = 0;

/**
 * While the person's editor has the terminal (a plan opened in $EDITOR), a SIGINT is the Ctrl+C
 * of the editor, which shares the terminal's process group, not the program's end (git does the
 * same). `true` holds it; `false` lets go, after a moment: the signal is handled once the editor
 * has exited.
 */
export function holdSigint(held: boolean): void {
  if (held) sigintHeld++;
  else setTimeout(() => sigintHeld--, 250).unref();
}

/** Ends the program on these signals as described above; returns the function that removes the handlers. */
export function onTerminatingSignals(signals: readonly NodeJS.Signals[], shutdown: Shutdown): () => void {
  const handler = (signal: NodeJS.Signals): void => {
    if (signal === 'SIGINT' && sigintHeld > 0) return;
    void terminate(signal, shutdown);
  };
  for (const s of signals) process.on(s, handler);
  return () => {
    for (const s of signals) process.off(s, handler);
  };
}

/** Runs the shutdown and stops every child group, then exits 128 + n; a second call exits at once. */
export async function terminate(signal: NodeJS.Signals, shutdown: Shutdown, exit: (code: number) => void = (c) => process.exit(c)): Promise<void> {
  if (stopping) {
    killAllGroups();
    return exit(exitCodeOf(stopping));
  }
  stopping = signal;
  // with the database and the connections closed the event loop could drain (a group already gone
  // leaves no timer), and the program end with 0, before the exit below names the signal
  setInterval(() => {}, 1_000);
  // the shutdown's first synchronous steps (closing the MCP manager, interrupting the turn) come
  // before the groups are signalled, so that no owner mistakes its child's end for a crash to recover from
  let shut: Promise<void>;
  try {
    shut = Promise.resolve(shutdown(signal)).catch(() => undefined);
  } catch {
    shut = Promise.resolve();
  }
  const groups = stopAllGroups(GROUP_GRACE_MS);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([shut, new Promise<void>((r) => (timer = setTimeout(r, SHUTDOWN_MS)))]);
  clearTimeout(timer);
  await groups;
  // whatever started while the shutdown ran
  killAllGroups();
  exit(exitCodeOf(signal));
}
