// Fresh modules: node:fs's watch is wrapped (vi.mock) to reach the watchers FolderWatch makes;
// in the shared module graph another file would get the wrapper, or this one the real module.
import type { FSWatcher } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { FolderWatch } from '../../src/checkpoints/folderWatch.js';
import { tempDir } from '../tempDirs.js';

// A watch that fails after it was set up (src/checkpoints/folderWatch.ts): its watcher's 'error'
// event, which no folder a test can remove on Linux raises (a removed folder is a 'rename').

const made = vi.hoisted((): FSWatcher[] => []);
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const watch = (...args: Parameters<typeof fs.watch>): FSWatcher => {
    const w = fs.watch(...args);
    made.push(w);
    return w;
  };
  return { ...fs, watch };
});

describe('a folder watch that fails once set up', () => {
  it('is broken for good (never quiet again), and its error is no uncaught exception', async () => {
    const dir = tempDir('folder-watch-error-');
    const w = new FolderWatch();
    try {
      w.add(dir);
      w.settle();
      expect(await w.quiet()).toBe(true);
      // mutations: no 'error' listener throws here; one that does not break the watch says quiet
      made.at(-1)!.emit('error', new Error('EPERM: the watch failed'));
      w.settle();
      expect(await w.quiet()).toBe(false);
    } finally {
      w.close();
    }
  });
});
