// What `agent sessions show` and `agent doctor` say of the checkpoints, read from the shadow
// store's files (the records, git's count of its objects) without snapshotting anything.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ShadowRepo } from './git.js';
import { findProject } from './project.js';
import { storeBytes } from './prune.js';
import { parseRecords, type CheckpointRecord } from './records.js';

/** A session's checkpoint records, oldest first (none when the store or the session has none). */
export function sessionRecords(dataDir: string, cwd: string, sessionId: string): CheckpointRecord[] {
  const project = findProject(cwd);
  const repo = new ShadowRepo(dataDir, project.root, project.exclude);
  const file = join(repo.gitDir, 'sessions', `${sessionId.replace(/[^\w.-]/g, '_')}.jsonl`);
  return existsSync(file) ? parseRecords(readFileSync(file, 'utf8')) : [];
}

/** One line per record: when, which boundary of which turn (`turnLabel` names a turn by its id), the tree or why there is none. */
export function checkpointLines(records: readonly CheckpointRecord[], turnLabel: (turnId: string) => string): string[] {
  return records.map((r) => {
    const when = new Date(r.at).toISOString().slice(0, 19).replace('T', ' ');
    const tree = r.tree ? `tree ${r.tree.slice(0, 10)}` : '';
    if (r.edge === 'start') return `- ${when}  start ${turnLabel(r.turn)}`;
    if (r.edge === 'before' || r.edge === 'after') return `- ${when}  ${r.edge} ${turnLabel(r.turn)}  ${r.failed ? `not snapshotted: ${r.failed}` : tree}`;
    if (r.edge === 'rewind')
      return `- ${when}  /rewind ${r.what} to before ${turnLabel(r.turn)}${r.from ? `  from tree ${r.from.slice(0, 10)} to ${tree}` : ''}`;
    return `- ${when}  /rewind undo${tree ? `  back to ${tree}` : ''}`;
  });
}

/** The shadow stores in the data folder: each project's root and its size on disk. */
export async function storeSizes(dataDir: string): Promise<Array<{ project: string; bytes: number }>> {
  const dir = join(dataDir, 'checkpoints');
  if (!existsSync(dir)) return [];
  const out: Array<{ project: string; bytes: number }> = [];
  // a store whose sessions only noted turns (none changed a file) is no repository yet
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.git') && existsSync(join(dir, n, 'HEAD')))) {
    const gitDir = join(dir, name);
    const project = existsSync(join(gitDir, 'project')) ? readFileSync(join(gitDir, 'project'), 'utf8').trim() : '(unknown project)';
    try {
      out.push({ project, bytes: await storeBytes(gitDir) });
    } catch {
      out.push({ project, bytes: 0 });
    }
  }
  return out;
}
