// Runs one hook command: a shell command in its own process group, the event's JSON on its
// stdin, this process's environment without the secret variables. It is killed (the whole
// group) at its timeout or when the turn is interrupted. Never throws: what happened is returned.
import { spawn } from 'node:child_process';
import { basename } from 'node:path';
import { killGroup, trackGroup } from '../processes/groups.js';
import { defaultShell } from '../tools/shell.js';

export interface HookRun {
  /** Exit code; undefined when it was killed or could not start. */
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  interrupted: boolean;
  /** It could not be started (the reason). */
  spawnError?: string;
  durationMs: number;
}

export interface HookRunOptions {
  cwd: string;
  /** The full environment the command sees. */
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** After SIGTERM, how long before SIGKILL (ms). */
  killGraceMs?: number;
}

/** Most output kept of a hook's stdout and of its stderr. */
const MAX_OUTPUT = 100_000;

export function runHookCommand(command: string, input: string, opts: HookRunOptions): Promise<HookRun> {
  const started = Date.now();
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let interrupted = false;
    let done = false;
    const shell = defaultShell();
    // bash takes a socket on stdin (Node's pipes are socket pairs) for a remote login and runs the
    // person's ~/.bashrc first; --norc stops that, as a hook in a plain pipe would never read it
    const args = basename(shell) === 'bash' ? ['--norc', '-c', command] : ['-c', command];
    const child = spawn(shell, args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const untrack = child.pid !== undefined ? trackGroup(child.pid, 'hook', command) : () => {};
    let killTimer: NodeJS.Timeout | undefined;
    const finish = (exitCode: number | undefined, spawnError?: string): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      untrack();
      resolve({ exitCode, stdout, stderr, timedOut, interrupted, durationMs: Date.now() - started, ...(spawnError ? { spawnError } : {}) });
    };
    const kill = (): void => {
      if (child.pid === undefined) return;
      killGroup(child.pid, 'SIGTERM');
      // a group that ignores SIGTERM is killed for good; the run ends then even if a grandchild holds the pipes
      killTimer = setTimeout(() => {
        if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
        setTimeout(() => finish(undefined), 200).unref();
      }, opts.killGraceMs ?? 1_000);
      killTimer.unref();
    };
    const onAbort = (): void => {
      interrupted = true;
      kill();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, opts.timeoutMs);
    timer.unref();
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      if (stdout.length < MAX_OUTPUT) stdout += d.slice(0, MAX_OUTPUT - stdout.length);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < MAX_OUTPUT) stderr += d.slice(0, MAX_OUTPUT - stderr.length);
    });
    child.on('error', (e) => finish(undefined, e.message));
    child.on('close', (code) => finish(timedOut || interrupted ? undefined : (code ?? undefined)));
    // a hook that does not read its stdin must not fail the run (EPIPE)
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}
