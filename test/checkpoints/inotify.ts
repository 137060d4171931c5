// Linux: how many inotify watches this process holds on given folders, read from /proc/self/fdinfo
// (each watch names the inode it watches): the checkpoints' folder watches are the person's too.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Whether the process's inotify watches can be read here. */
export const canReadWatches = existsSync('/proc/self/fdinfo');

/** A counter of the watches held on these folders (their inodes taken now). */
export function watchesOn(dirs: readonly string[]): () => number {
  const inodes = new Set(dirs.map((d) => statSync(d).ino.toString(16)));
  return () =>
    readdirSync('/proc/self/fdinfo')
      .flatMap((fd) => {
        try {
          return readFileSync(join('/proc/self/fdinfo', fd), 'utf8').split('\n');
        } catch {
          return [];
        }
      })
      .filter((l) => l.startsWith('inotify wd:') && inodes.has(/ ino:([0-9a-f]+) /.exec(l)?.[1] ?? '')).length;
}
