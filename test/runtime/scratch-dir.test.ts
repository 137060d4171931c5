import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import { expect, it } from 'vitest';
import { scratchFile } from '../../src/runtime/scratchDir.js';
import { inWorld } from '../../src/runtime/world.js';
import { testWorld } from '../worlds.js';

// What the prompt saves as files (a pasted text by Ctrl+S, a clipboard image) lives in one
// scratch folder per run, removed when the run ends: the product left an agent-paste-* and an
// agent-clipboard-* folder in the system's temporary folder for every run that used them.

/** A test world whose exit runs what the run registered for it. */
function endingWorld(): { w: ReturnType<typeof testWorld>; end: () => void } {
  const atExit: Array<() => void> = [];
  const w = { ...testWorld(), onExit: (fn: () => void) => (atExit.push(fn), () => undefined) };
  return { w, end: () => atExit.forEach((fn) => fn()) };
}

it("gives each run one folder of numbered files in the temporary folder, another run's its own, and removes it when the run ends", () => {
  const a = endingWorld();
  const b = endingWorld();
  const [first, second] = inWorld(a.w, () => [scratchFile('pasted-text', '.txt'), scratchFile('clipboard', '.png')]);
  const other = inWorld(b.w, () => scratchFile('pasted-text', '.txt'));
  expect(first).toMatch(/\/agent-scratch-[^/]+\/pasted-text-1\.txt$/);
  expect(second).toBe(`${dirname(first!)}/clipboard-2.png`);
  expect(dirname(first!).startsWith(tmpdir())).toBe(true);
  expect(dirname(other)).not.toBe(dirname(first!));
  expect(other.endsWith('/pasted-text-1.txt')).toBe(true);
  writeFileSync(first!, 'pasted');
  writeFileSync(second!, 'png');
  writeFileSync(other, 'b');
  expect(readdirSync(dirname(first!)).sort()).toEqual(['clipboard-2.png', 'pasted-text-1.txt']);

  a.end();
  expect(existsSync(dirname(first!))).toBe(false);
  // the other run's folder is its own until it ends
  expect(existsSync(other)).toBe(true);
  b.end();
  expect(existsSync(dirname(other))).toBe(false);
});
