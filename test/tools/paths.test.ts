import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderStamps } from '../../src/tools/folderStamps.js';
import { displayPath, resolvePath } from '../../src/tools/paths.js';
import { inWorld, processWorld } from '../../src/runtime/world.js';
import { tempDir } from '../tempDirs.js';

// The paths a model gives (paths.ts) and the folders' stamps (folderStamps.ts) the sandbox's wrap
// made ahead and the checkpoints' unchanged tree ask.

describe('resolvePath', () => {
  it('~ alone is the home, ~/x under it; ~x, a relative and an absolute path are not the home', () => {
    const home = tempDir('agent-paths-home-');
    const world = { ...processWorld(), env: { HOME: home }, slots: new Map<symbol, unknown>() };
    inWorld(world, () => {
      // mutations: `p !== '~'`, or `p.endsWith('~/')`, each miss the home
      expect(resolvePath('/work', '~')).toBe(home);
      expect(resolvePath('/work', '~/notes/a.md')).toBe(join(home, 'notes/a.md'));
      expect(resolvePath('/work', '~x')).toBe('/work/~x');
      expect(resolvePath('/work', 'src/a.ts')).toBe('/work/src/a.ts');
      expect(resolvePath('/work', '/etc/hosts')).toBe('/etc/hosts');
    });
    expect(displayPath('/work', '/work/src/a.ts')).toBe('src/a.ts');
    expect(displayPath('/work', '/elsewhere/a.ts')).toBe('/elsewhere/a.ts');
  });
});

describe('FolderStamps', () => {
  it('a name added, removed or the folder replaced moves the stamps; a file written in place does not; a folder gone and one come back count', () => {
    const root = tempDir('agent-stamps-');
    const a = join(root, 'a');
    const b = join(root, 'b');
    mkdirSync(a);
    mkdirSync(b);
    writeFileSync(join(a, 'kept.txt'), 'one');
    const stamps = new FolderStamps([a, b]);
    expect(stamps.changed()).toBe(false);
    writeFileSync(join(a, 'kept.txt'), 'two, in place');
    expect(stamps.changed()).toBe(false);
    // a name added in the second folder only: mutation `.every(` for `.some(` misses it
    writeFileSync(join(b, 'new.txt'), 'x');
    expect(stamps.changed()).toBe(true);
    const again = stamps.again();
    expect(again.changed()).toBe(false);
    // the folder replaced by another of the same name
    renameSync(b, join(root, 'old-b'));
    mkdirSync(b);
    expect(again.changed()).toBe(true);
    // a folder that was missing when stamped and now exists
    const missing = new FolderStamps([join(root, 'later')]);
    expect(missing.changed()).toBe(false);
    mkdirSync(join(root, 'later'));
    expect(missing.changed()).toBe(true);
    rmSync(join(root, 'later'), { recursive: true });
    expect(missing.changed()).toBe(false);
  });
});
