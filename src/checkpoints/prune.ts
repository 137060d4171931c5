// Keeping the shadow store bounded: at most once a day, the checkpoints of sessions untouched
// for checkpoints.keepDays are dropped (their records, ref and index) and git's gc removes what
// no ref reaches any more; a store still over checkpoints.maxStoreMB drops the oldest other
// sessions' checkpoints, and one over it even then takes no more snapshots (the reason is returned).
import { existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git, type ShadowRepo } from './git.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface PruneSettings {
  maxStoreMB: number;
  keepDays: number;
}

/** Prunes when due; the reason snapshots must stop (the store over its cap), or undefined. */
export async function pruneStore(repo: ShadowRepo, current: string, s: PruneSettings, now = Date.now()): Promise<string | undefined> {
  const stamp = join(repo.gitDir, 'pruned');
  const due = !existsSync(stamp) || now - statSync(stamp).mtimeMs > DAY_MS;
  let size = await knownBytes(repo.gitDir);
  const cap = s.maxStoreMB * 1024 * 1024;
  if (!due && size <= cap) return undefined;
  const others = sessions(repo).filter((x) => x.id !== current);
  const stale = others.filter((x) => now - x.touched > s.keepDays * DAY_MS);
  const keep = others.filter((x) => !stale.includes(x)).sort((a, b) => a.touched - b.touched);
  if (stale.length > 0) {
    for (const x of stale) drop(repo, x.id, `untouched for over ${s.keepDays} days (checkpoints.keepDays)`);
    await gc(repo);
    size = await storeBytes(repo.gitDir);
  }
  while (size > cap && keep.length > 0) {
    drop(repo, keep.shift()!.id, `the store was over checkpoints.maxStoreMB (${s.maxStoreMB} MB), and the oldest sessions' go first`);
    await gc(repo);
    size = await storeBytes(repo.gitDir);
  }
  if (existsSync(stamp)) utimesSync(stamp, new Date(now), new Date(now));
  else writeFileSync(stamp, '');
  if (size > cap) return `the checkpoint store is ${Math.round(size / 1024 / 1024)} MB, over checkpoints.maxStoreMB (${s.maxStoreMB})`;
  return undefined;
}

/** The store's size on disk: loose objects and packs (git count-objects); none before git made it a repository. */
export async function storeBytes(gitDir: string): Promise<number> {
  if (!existsSync(join(gitDir, 'HEAD'))) return 0;
  return countedBytes((await git([`--git-dir=${gitDir}`, 'count-objects', '-v'], { cwd: gitDir })).stdout.toString('utf8'));
}

/**
 * The store's size as the last snapshot that wrote to it counted it (its `size` file, tree.ts),
 * so a session's open runs no git; none when it holds no object yet; counted now otherwise.
 */
async function knownBytes(gitDir: string): Promise<number> {
  try {
    return countedBytes(readFileSync(join(gitDir, 'size'), 'utf8'));
  } catch {
    const objects = join(gitDir, 'objects');
    const empty = readdirSync(objects).every((n) => n === 'info' || (n === 'pack' && readdirSync(join(objects, n)).length === 0));
    return empty ? 0 : storeBytes(gitDir);
  }
}

function countedBytes(out: string): number {
  const kib = (key: string): number => Number(new RegExp(`^${key}: (\\d+)`, 'm').exec(out)?.[1] ?? 0);
  return (kib('size') + kib('size-pack')) * 1024;
}

/** The sessions with checkpoints in the store, with when each last recorded one. */
export function sessions(repo: ShadowRepo): Array<{ id: string; touched: number }> {
  const dir = join(repo.gitDir, 'sessions');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => ({ id: f.slice(0, -'.jsonl'.length), touched: statSync(join(dir, f)).mtimeMs }));
}

/** Drops a session's checkpoints, leaving why (`sessions/<id>.pruned`), for its /rewind to say. */
function drop(repo: ShadowRepo, id: string, why: string): void {
  for (const p of [join(repo.gitDir, 'sessions', `${id}.jsonl`), join(repo.gitDir, 'refs', 'sessions', id), join(repo.gitDir, 'indexes', id)])
    rmSync(p, { force: true });
  writeFileSync(join(repo.gitDir, 'sessions', `${id}.pruned`), `its checkpoints were pruned: ${why}\n`);
}

function gc(repo: ShadowRepo): Promise<unknown> {
  // refs stay loose files: the session's chain head is read and written as one (tree.ts)
  return repo.run(['-c', 'gc.packRefs=false', 'gc', '--prune=1.hour.ago', '--quiet'], join(repo.gitDir, 'index'));
}
