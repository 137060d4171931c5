import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';

// Runs commands side by side (scripts/test.ts, `npm test`): one step streams to the terminal as
// it runs (vitest); each of the others is kept and printed whole when it ends, under a line with
// its name, result and wall time, so that the log stays readable. Last, one line a step and the
// failed ones named. A step fails when it exits non-zero, is killed by a signal, or cannot start.

export interface Step {
  name: string;
  command: string;
  args: string[];
  /** Writes to the terminal as it runs (the step's stdout and stderr are this process's); the others' output is kept until they end. */
  live?: boolean;
  /** Its niceness (and its children's): a step given 19 takes only the CPU the others leave idle. */
  nice?: number;
}

export interface StepResult {
  name: string;
  ok: boolean;
  /** What ended it: `exit 0`, `exit 2`, `SIGKILL`, or why it did not start. */
  how: string;
  seconds: number;
}

export interface RunResult {
  ok: boolean;
  steps: StepResult[];
  seconds: number;
}

const since = (t: number): number => (performance.now() - t) / 1000;

function runStep(step: Step, write: (text: string) => void): Promise<StepResult> {
  const t0 = performance.now();
  return new Promise((done) => {
    const child = spawn(step.command, step.args, { stdio: step.live ? ['ignore', 'inherit', 'inherit'] : ['ignore', 'pipe', 'pipe'] });
    if (step.nice !== undefined && child.pid !== undefined) setPriority(child.pid, step.nice);
    let output = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (output += d));
    let ended = false;
    const end = (ok: boolean, how: string): void => {
      if (ended) return;
      ended = true;
      const result = { name: step.name, ok, how, seconds: since(t0) };
      const head = `── ${step.name}: ${ok ? 'ok' : `FAILED (${how})`} in ${result.seconds.toFixed(1)} s`;
      write(step.live ? `\n${head}\n` : `\n${head}\n${output.trimEnd() || '(no output)'}\n`);
      done(result);
    };
    child.on('error', (e) => end(false, `did not start: ${e.message}`));
    child.on('close', (code, signal) => end(code === 0, signal ?? `exit ${code}`));
  });
}

/** Starts every step at once and waits for all; `write` gets each kept output whole, then the summary. */
export async function runSteps(steps: Step[], write: (text: string) => void): Promise<RunResult> {
  const t0 = performance.now();
  const results = await Promise.all(steps.map((s) => runStep(s, write)));
  const seconds = since(t0);
  const width = Math.max(...steps.map((s) => s.name.length));
  const lines = results.map((r) => `${r.ok ? 'ok    ' : 'FAILED'} ${r.name.padEnd(width)} ${r.seconds.toFixed(1).padStart(6)} s${r.ok ? '' : `  (${r.how})`}`);
  const failed = results.filter((r) => !r.ok).map((r) => r.name);
  const verdict = failed.length === 0 ? `all ${results.length} steps passed` : `FAILED: ${failed.join(', ')}`;
  write(`\n${lines.join('\n')}\n${verdict}, ${seconds.toFixed(1)} s wall\n`);
  return { ok: failed.length === 0, steps: results, seconds };
}
