// Folders' stamps: whether a name was added, removed or renamed in any of a set of folders since
// they were stamped (a folder's mtime moves when an entry comes or goes; its inode when the folder
// itself is replaced). Asked by the sandbox's wrap made ahead (sandbox/prepared.ts: is it still
// the wrap the library would make?) and by the checkpoints' unchanged tree (checkpoints/tree.ts:
// can a new file have appeared?). A folder's own stamp says nothing of its files' contents.
import { statSync } from 'node:fs';

const stampOf = (dir: string): string => {
  try {
    const s = statSync(dir);
    return `${s.ino}:${s.mtimeMs}`;
  } catch {
    return '-';
  }
};

export class FolderStamps {
  private readonly taken: string[];

  constructor(readonly dirs: readonly string[]) {
    this.taken = dirs.map(stampOf);
  }

  /** Whether any folder's stamp moved since they were taken (one gone, or come back, counts). */
  changed(): boolean {
    return this.dirs.some((d, i) => stampOf(d) !== this.taken[i]);
  }

  /** The same folders, stamped now. */
  again(): FolderStamps {
    return new FolderStamps(this.dirs);
  }
}
