import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Temporary folders for unit tests, removed when the test file that made them ends: the unit
// projects' setup file (test/tempDirsSetup.ts) calls removeTempDirs() in an afterAll of every
// file. The record lives on globalThis, not in this module: a file that reloads its modules
// (vi.resetModules) would otherwise record into a copy the setup file's hook never sees.
const MADE = Symbol.for('agent.test.tempDirs');
type WithMade = typeof globalThis & { [MADE]?: string[] };
const g = globalThis as WithMade;

/** A fresh folder under the system temp folder, named `<prefix>XXXXXX`, removed after the test file. */
export function tempDir(prefix: string): string {
  const made = g[MADE];
  // a project without the setup file would leave every folder behind, silently: say so instead
  if (!made) throw new Error('tempDir(): nothing removes its folders in this project; list test/tempDirsSetup.ts in its setupFiles (vitest.config.ts)');
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** The setup file starts the record once per worker; until then tempDir() refuses. */
export function recordTempDirs(): void {
  g[MADE] ??= [];
}

/** The folders made since the last removal (what the current test file made). */
export function tempDirsMade(): readonly string[] {
  return [...(g[MADE] ?? [])];
}

/** Removes every folder recorded, and forgets them. */
export function removeTempDirs(): void {
  const made = g[MADE] ?? [];
  while (made.length > 0) rmSync(made.pop()!, { recursive: true, force: true });
}
