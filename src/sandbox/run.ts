// One command run to its end inside the sandbox, for a feature that runs a command of its own
// (a check command, a goal's test) "in the sandbox where there is one": the output (stderr into
// stdout), the exit code and what the sandbox denied. Without a sandbox that is on, it runs the
// command plainly: the caller decides whether that is allowed (SandboxRuntime.status says why).
// Bash does more (live output, timeouts, the background): tools/bash.ts.
import { spawn } from 'node:child_process';
import type { CommandSandbox } from '../tools/types.js';
import { defaultShell } from '../tools/shell.js';

export interface SandboxedRun {
  code: number | null;
  output: string;
  /** Whether it ran inside the sandbox. */
  sandboxed: boolean;
  /** What the sandbox denied it (paths, domains), one line each. */
  denied: string[];
}

let seq = 0;

export async function runInSandbox(
  sandbox: CommandSandbox | undefined,
  command: string,
  o: { cwd: string; env?: Record<string, string>; signal?: AbortSignal; readOnly?: boolean },
): Promise<SandboxedRun> {
  const shell = defaultShell();
  const plan = sandbox?.plan(command, false);
  const inside = sandbox !== undefined && plan !== undefined && plan.kind !== 'unavailable';
  const id = `run#${++seq}`;
  const wrapped = inside ? await sandbox.wrap(command, shell, { cwd: o.cwd, readOnly: o.readOnly === true, id }) : undefined;
  const args = wrapped ? ['-c', 'exec "$@" 2>&1', shell, ...wrapped.argv] : ['-c', 'exec "$0" -c "$1" 2>&1', shell, command];
  const env = { ...(o.env ?? (process.env as Record<string, string>)), ...wrapped?.env };
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(shell, args, { cwd: o.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], ...(o.signal ? { signal: o.signal } : {}) });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.stderr.on('data', (d: Buffer) => (text += d.toString()));
    child.once('error', (e) => resolve({ code: null, output: `${text}${e.message}` }));
    child.once('close', (c) => resolve({ code: c, output: text }));
  });
  const denied = inside ? sandbox.denials(id, output, { readOnly: o.readOnly === true }) : [];
  return { code, output, sandboxed: inside, denied };
}
