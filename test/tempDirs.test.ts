import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getHooks } from 'vitest/suite';
import { tempDir, tempDirsMade } from './tempDirs.js';

// The unit test files leave no folder behind: what tempDir() makes goes when the file ends.

describe('tempDir', () => {
  it('makes a new folder under the system temp folder, named by its prefix, each time', () => {
    const a = tempDir('agent-tempdirs-');
    const b = tempDir('agent-tempdirs-');
    expect(a).not.toBe(b);
    expect([dirname(a), basename(a).startsWith('agent-tempdirs-'), existsSync(a), existsSync(b)]).toEqual([tmpdir(), true, true, true]);
    expect(tempDirsMade()).toEqual(expect.arrayContaining([a, b]));
  });

  // This file's own afterAll hooks would run before the setup file's (hooks run in stack order),
  // so the test runs this file's hooks itself: the ones the setup file gave it must remove the
  // folder and empty the record, and this file registers none of its own.
  // mutation: removing `afterAll(removeTempDirs)` from test/tempDirsSetup.ts, or the setup file
  // from the unit projects in vitest.config.ts (tempDir then throws), or removeTempDirs no longer
  // removing the folders (or no longer forgetting them), fails this test.
  it('is removed, with the record, by the afterAll the setup file gives every test file', async ({ task }) => {
    const dir = tempDir('agent-tempdirs-');
    const hooks = getHooks(task.file).afterAll;
    expect(hooks.length).toBeGreaterThan(0);
    for (const hook of hooks) await hook(task.file);
    expect([existsSync(dir), tempDirsMade()]).toEqual([false, []]);
  });
});
