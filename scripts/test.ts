import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

// `npm test`: the type check, Biome, every vitest project and the install test, side by side
// rather than one after another. Most of vitest's time is end-to-end tests waiting on the fake
// provider and on the agents they run, which leaves CPU that tsc (one core for most of its run)
// and the install test (npm installing into empty prefixes, in a copy of the checkout:
// scripts/install-test.ts) use meanwhile. vitest writes to the terminal as it runs; the
// others' output is printed when vitest has ended, each under its step's name, then one line a
// step with its result and wall time. Exits 1 when any step failed. Arguments go to vitest
// (`npm test -- --project unit`).

const ROOT = resolve(import.meta.dirname, '..');
const bin = (name: string): string => join(ROOT, 'node_modules', '.bin', name);
const t0 = performance.now();

interface Step {
  name: string;
  command: string;
  args: string[];
  /** Writes to the terminal as it runs (vitest); the others' output is kept for the end. */
  live?: boolean;
}

interface Ended {
  step: Step;
  code: number | null;
  output: string;
  seconds: number;
}

function run(step: Step): Promise<Ended> {
  return new Promise((done) => {
    const child = spawn(step.command, step.args, { cwd: ROOT, stdio: step.live ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (output += d));
    const end = (code: number | null, error?: Error): void =>
      done({ step, code, output: error ? `${output}${step.name}: ${error.message}\n` : output, seconds: (performance.now() - t0) / 1000 });
    child.on('error', (e) => end(null, e));
    child.on('close', (code) => end(code));
  });
}

const steps: Step[] = [
  { name: 'tsc', command: bin('tsc'), args: ['-p', 'tsconfig.json', '--noEmit'] },
  { name: 'biome', command: bin('biome'), args: ['ci', '.'] },
  { name: 'install test', command: process.execPath, args: ['--import', 'tsx', join('scripts', 'install-test.ts')] },
  { name: 'vitest', command: bin('vitest'), args: ['run', ...process.argv.slice(2)], live: true },
];

const ended = await Promise.all(steps.map(run));
for (const e of ended.filter((x) => !x.step.live)) process.stdout.write(`\n── ${e.step.name}\n${e.output.trimEnd() || '(no output)'}\n`);
console.log('');
for (const e of ended) console.log(`${e.code === 0 ? 'ok    ' : 'FAILED'} ${e.step.name.padEnd(12)} ended at ${e.seconds.toFixed(1)} s`);
console.log(`npm test: ${((performance.now() - t0) / 1000).toFixed(1)} s wall`);
if (ended.some((e) => e.code !== 0)) process.exitCode = 1;
