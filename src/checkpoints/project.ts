// Which project a session's checkpoints cover: the repository the working directory is in (its
// top level, found by the nearest `.git` folder or file above it, a worktree's or a submodule's
// too) and that repository's info/exclude; outside a repository, the working directory itself.
// Read without running git, so /rewind can list the checkpoints of a session before any snapshot.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export interface Project {
  root: string;
  /** The repository's info/exclude (its ignore rules beside .gitignore), when there is a repository. */
  exclude?: string;
}

export function findProject(cwd: string): Project {
  let dir = resolve(cwd);
  for (;;) {
    const dotGit = join(dir, '.git');
    if (existsSync(dotGit)) return { root: dir, ...excludeOf(dotGit) };
    const up = dirname(dir);
    if (up === dir) return { root: resolve(cwd) };
    dir = up;
  }
}

/** `.git` a folder: its info/exclude; a file (`gitdir: …`, a worktree): the common folder's. */
function excludeOf(dotGit: string): { exclude?: string } {
  try {
    if (statSync(dotGit).isDirectory()) return { exclude: join(dotGit, 'info', 'exclude') };
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'));
    if (!m) return {};
    const gitDir = resolve(dirname(dotGit), m[1]!.trim());
    const common = join(gitDir, 'commondir');
    const base = existsSync(common) ? resolve(gitDir, readFileSync(common, 'utf8').trim()) : gitDir;
    return { exclude: join(base, 'info', 'exclude') };
  } catch {
    return {};
  }
}
