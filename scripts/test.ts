import { join, resolve } from 'node:path';
import { runSteps } from './steps.js';

// `npm test`: the type check, Biome, every vitest project and the install test, side by side
// (scripts/steps.ts): vitest streams to the terminal; each other step's output is printed whole
// when it ends; last, one line a step with its wall time, and the failed steps named (exit 1).
// The install test works in a copy of the checkout, so its `npm pack` and its store tests'
// vitest never build the `dist/` that this vitest's end-to-end files run (scripts/install-test.ts).
// Arguments go to vitest (`npm test -- --project unit`).

const ROOT = resolve(import.meta.dirname, '..');
const bin = (name: string): string => join(ROOT, 'node_modules', '.bin', name);
process.chdir(ROOT);

// vitest has the machine first: its end-to-end files wait with bounds, so the other steps run at
// the lowest priority and take only the CPU it leaves idle (its files' waits, its last files),
// then all of it once vitest is done.
const { ok } = await runSteps(
  [
    // the install test first: most of its time is npm waiting on the registry and the disk
    { name: 'install test', command: process.execPath, args: ['--import', 'tsx', join('scripts', 'install-test.ts')], nice: 19 },
    {
      name: 'tsc',
      command: process.execPath,
      args: [join(ROOT, 'node_modules', 'typescript-native', 'bin', 'tsc'), '-p', 'tsconfig.json', '--noEmit'],
      nice: 19,
    },
    { name: 'biome', command: bin('biome'), args: ['ci', '.'], nice: 19 },
    { name: 'vitest', command: bin('vitest'), args: ['run', ...process.argv.slice(2)], live: true },
  ],
  (text) => process.stdout.write(text),
);
if (!ok) process.exitCode = 1;
