import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderWatch } from '../../src/checkpoints/folderWatch.js';
import { tempDir } from '../tempDirs.js';
import { canReadWatches, watchesOn } from './inotify.js';

// The folders' watches the checkpoints ask before looking at any file (src/checkpoints/tree.ts).

describe('FolderWatch', () => {
  it('is quiet until something happens in a watched folder, written just before it is asked', async () => {
    const dir = tempDir('folder-watch-');
    mkdirSync(join(dir, 'sub'));
    const w = new FolderWatch();
    try {
      w.add(dir);
      w.add(join(dir, 'sub'));
      // nothing settled yet: it cannot say
      expect(await w.quiet()).toBe(false);
      w.settle();
      expect(await w.quiet()).toBe(true);
      writeFileSync(join(dir, 'sub', 'a.txt'), 'a');
      expect(await w.quiet()).toBe(false);
      w.settle();
      expect(await w.quiet()).toBe(true);
      // a folder let go is no longer heard
      w.keepOnly(new Set([dir]));
      writeFileSync(join(dir, 'sub', 'b.txt'), 'b');
      expect(await w.quiet()).toBe(true);
      // added again, it is watched again (mutation: one let go still counted as watched is never heard)
      w.add(join(dir, 'sub'));
      w.settle();
      writeFileSync(join(dir, 'sub', 'c.txt'), 'c');
      expect(await w.quiet()).toBe(false);
      // closed, it hears nothing more, so it never says quiet again
      w.close();
      w.settle();
      expect(await w.quiet()).toBe(false);
    } finally {
      w.close();
    }
  });

  it('hears a change made in an I/O callback just before it is asked (the next immediate there comes before the next poll)', async () => {
    const dir = tempDir('folder-watch-io-');
    writeFileSync(join(dir, 'read.txt'), 'r');
    const w = new FolderWatch();
    try {
      w.add(dir);
      w.settle();
      expect(await w.quiet()).toBe(true);
      // a read's completion runs in the loop's poll phase: the write after it is told in the next one
      await readFile(join(dir, 'read.txt'));
      writeFileSync(join(dir, 'a.txt'), 'a');
      // mutation: one immediate, not two, settles in this loop's check phase before the event is read
      expect(await w.quiet()).toBe(false);
    } finally {
      w.close();
    }
  });

  it('a folder added again is the one watch it has: at the cap it stays watched, and once over the cap nothing is watched again', async () => {
    const dir = tempDir('folder-watch-again-');
    mkdirSync(join(dir, 'b'));
    const w = new FolderWatch(1);
    try {
      // mutation: a folder watched already watched again counts as one more, over the cap of one
      w.add(dir);
      w.add(dir);
      w.settle();
      expect(await w.quiet()).toBe(true);
      writeFileSync(join(dir, 'a.txt'), 'a');
      expect(await w.quiet()).toBe(false);
      // over the cap: none watched, for good; adding a folder afterwards watches nothing (a closed watch is never quiet)
      w.add(join(dir, 'b'));
      w.settle();
      expect(await w.quiet()).toBe(false);
      w.add(dir);
      w.settle();
      expect(await w.quiet()).toBe(false);
    } finally {
      w.close();
    }
  });

  it('a folder gone before it could be watched is a change (its parent tells it), not a broken watch', async () => {
    const dir = tempDir('folder-watch-gone-');
    const w = new FolderWatch();
    try {
      w.add(dir);
      w.settle();
      w.add(join(dir, 'gone'));
      expect(await w.quiet()).toBe(false);
      // mutation: any failure to watch breaks the watch for good (never quiet again)
      w.settle();
      expect(await w.quiet()).toBe(true);
    } finally {
      w.close();
    }
  });

  it('a folder that cannot be watched for another reason than being gone (a file in its path) breaks the watch for good', async () => {
    const dir = tempDir('folder-watch-broken-');
    writeFileSync(join(dir, 'file'), 'x');
    const w = new FolderWatch();
    try {
      w.add(dir);
      w.add(join(dir, 'file', 'sub'));
      w.settle();
      // mutation: a failure other than ENOENT not breaking it says quiet with a folder unwatched
      expect(await w.quiet()).toBe(false);
    } finally {
      w.close();
    }
  });

  it.runIf(canReadWatches)("over its folder cap lets go of the watches it held (inotify watches are the person's too)", async () => {
    const dir = tempDir('folder-watch-release-');
    for (const d of ['a', 'b', 'c']) mkdirSync(join(dir, d));
    const held = watchesOn(['a', 'b', 'c'].map((d) => join(dir, d)));
    const w = new FolderWatch(2);
    try {
      w.add(join(dir, 'a'));
      w.add(join(dir, 'b'));
      expect(held()).toBe(2);
      // mutation: the watches not closed when the cap is passed stay held for the rest of the session
      w.add(join(dir, 'c'));
      expect(held()).toBe(0);
    } finally {
      w.close();
    }
  });

  it('over its folder cap watches none, and is never quiet (the caller looks as before)', async () => {
    const dir = tempDir('folder-watch-cap-');
    for (const d of ['a', 'b', 'c']) mkdirSync(join(dir, d));
    const w = new FolderWatch(2);
    try {
      for (const d of ['a', 'b', 'c']) w.add(join(dir, d));
      w.settle();
      expect(await w.quiet()).toBe(false);
    } finally {
      w.close();
    }
  });
});

// Mutations checked: the cap not enforced (the second test is quiet); quiet() not waiting for the
// queued events (a.txt, written just before, is not told).
