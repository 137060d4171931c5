import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ShadowRepo } from '../../src/checkpoints/git.js';
import { pruneStore, storeBytes } from '../../src/checkpoints/prune.js';
import { tempDir } from '../tempDirs.js';

// The shadow store kept bounded (src/checkpoints/prune.ts) on a real git: once a day the sessions
// untouched for keepDays lose their checkpoints, the current one never; a store over its cap is
// pruned even when the day's pruning was done, and one still over it says so.

const DAY = 24 * 60 * 60 * 1000;
const MiB = 1024 * 1024;

/** A shadow store with sessions whose records were last written `ages` days ago, and one object their refs name. */
async function store(ages: Record<string, number>, now: number): Promise<ShadowRepo> {
  const root = tempDir('agent-prune-');
  mkdirSync(join(root, 'project'));
  const repo = new ShadowRepo(join(root, 'data'), join(root, 'project'), undefined);
  await repo.open();
  mkdirSync(join(repo.gitDir, 'sessions'), { recursive: true });
  mkdirSync(join(repo.gitDir, 'refs', 'sessions'), { recursive: true });
  // every session's ref names the one object (git's gc keeps what a ref reaches)
  const object = execFileSync('git', [`--git-dir=${repo.gitDir}`, 'hash-object', '-w', '--stdin'], { input: 'a snapshot\n', encoding: 'utf8' });
  for (const [id, days] of Object.entries(ages)) {
    const file = join(repo.gitDir, 'sessions', `${id}.jsonl`);
    writeFileSync(file, '{}\n');
    writeFileSync(join(repo.gitDir, 'refs', 'sessions', id), object);
    const at = new Date(now - days * DAY);
    utimesSync(file, at, at);
  }
  return repo;
}

const has = (repo: ShadowRepo, id: string): boolean => existsSync(join(repo.gitDir, 'sessions', `${id}.jsonl`));

describe('pruneStore', () => {
  it('drops the sessions untouched for keepDays, never the current one, and then waits a day', async () => {
    const now = Date.now();
    const repo = await store({ current: 40, old: 31, fresh: 2 }, now);
    expect(await pruneStore(repo, 'current', { maxStoreMB: 2048, keepDays: 30 }, now)).toBeUndefined();
    expect([has(repo, 'current'), has(repo, 'old'), has(repo, 'fresh')]).toEqual([true, false, true]);
    expect(existsSync(join(repo.gitDir, 'refs', 'sessions', 'old'))).toBe(false);
    // the day's pruning is done: a session going stale now waits for tomorrow's
    const later = now + DAY / 2;
    utimesSync(join(repo.gitDir, 'sessions', 'fresh.jsonl'), new Date(later - 31 * DAY), new Date(later - 31 * DAY));
    await pruneStore(repo, 'current', { maxStoreMB: 2048, keepDays: 30 }, later);
    expect(has(repo, 'fresh')).toBe(true);
    // over a day after the last pruning it is due again, and the day is counted from then (the stamp's time)
    const next = now + 1.5 * DAY;
    await pruneStore(repo, 'current', { maxStoreMB: 2048, keepDays: 30 }, next);
    expect(has(repo, 'fresh')).toBe(false);
    expect(Math.abs(statSync(join(repo.gitDir, 'pruned')).mtimeMs - next)).toBeLessThan(1000);
  });

  it('a store over its cap is pruned although the day’s pruning was done, and says it is still over', async () => {
    const now = Date.now();
    const repo = await store({ current: 1, other: 1 }, now);
    writeFileSync(join(repo.gitDir, 'pruned'), '');
    // packed as the pruning's gc will pack it, so the size measured is the size it finds
    execFileSync('git', [`--git-dir=${repo.gitDir}`, '-c', 'gc.packRefs=false', 'gc', '--quiet']);
    const size = await storeBytes(repo.gitDir);
    expect(size).toBeGreaterThan(0);
    // a cap of three quarters of the store: the current session's ref keeps the object
    const maxStoreMB = (size * 0.75) / MiB;
    const reason = await pruneStore(repo, 'current', { maxStoreMB, keepDays: 30 }, now);
    // mutations: returning when the day's pruning was done whatever the size (no reason, 'other' kept);
    // the over-cap reason only past twice the cap (no reason)
    expect(reason).toMatch(/^the checkpoint store is \d+ MB, over checkpoints\.maxStoreMB/);
    expect([has(repo, 'current'), has(repo, 'other')]).toEqual([true, false]);
  });

  it('weighs the store at its open from the size file the last snapshot wrote (KiB, loose and packed): exactly at the cap is not over it', async () => {
    const now = Date.now();
    const repo = await store({ current: 1, other: 1 }, now);
    writeFileSync(join(repo.gitDir, 'pruned'), '');
    const sizeFile = (size: number, pack: number): void =>
      writeFileSync(
        join(repo.gitDir, 'size'),
        `count: 3\nsize: ${size}\nin-pack: 2\npacks: 1\nsize-pack: ${pack}\nprune-packable: 0\ngarbage: 0\nsize-garbage: 0\n`,
      );
    // 1,000 + 24 KiB: one MiB, the cap
    sizeFile(1000, 24);
    expect(await pruneStore(repo, 'current', { maxStoreMB: 1, keepDays: 30 }, now)).toBeUndefined();
    expect(has(repo, 'other')).toBe(true);
    // a KiB more: over it, the other session goes (and the store git weighs then is under the cap)
    sizeFile(1001, 24);
    expect(await pruneStore(repo, 'current', { maxStoreMB: 1, keepDays: 30 }, now)).toBeUndefined();
    expect([has(repo, 'current'), has(repo, 'other')]).toEqual([true, false]);
    // nothing left to drop: the store is over, and says by how much (3,672 KiB: 3.6 MB)
    sizeFile(3000, 672);
    expect(await pruneStore(repo, 'current', { maxStoreMB: 1, keepDays: 30 }, now)).toBe('the checkpoint store is 4 MB, over checkpoints.maxStoreMB (1)');
  });

  it('a size file that names no packs weighs the loose objects alone', async () => {
    const now = Date.now();
    const repo = await store({ current: 1, other: 1 }, now);
    writeFileSync(join(repo.gitDir, 'pruned'), '');
    // 1,024 KiB of loose objects and no size-pack line: one MiB, the cap, not over it
    writeFileSync(join(repo.gitDir, 'size'), 'count: 3\nsize: 1024\n');
    // mutation: a missing key counted as 1 KiB puts the store a KiB over the cap, and the other session goes
    expect(await pruneStore(repo, 'current', { maxStoreMB: 1, keepDays: 30 }, now)).toBeUndefined();
    expect([has(repo, 'current'), has(repo, 'other')]).toEqual([true, true]);
  });

  it("counts the store's bytes as git counts its KiB, and none before it is a repository", async () => {
    const now = Date.now();
    const repo = await store({ current: 1 }, now);
    execFileSync('git', [`--git-dir=${repo.gitDir}`, 'hash-object', '-w', '--stdin'], { input: 'loose\n' });
    execFileSync('git', [`--git-dir=${repo.gitDir}`, '-c', 'gc.packRefs=false', 'gc', '--quiet']);
    execFileSync('git', [`--git-dir=${repo.gitDir}`, 'hash-object', '-w', '--stdin'], { input: 'loose again\n' });
    const counted = execFileSync('git', [`--git-dir=${repo.gitDir}`, 'count-objects', '-v'], { encoding: 'utf8' });
    const kib = (key: string): number => Number(new RegExp(`^${key}: (\\d+)$`, 'm').exec(counted)![1]);
    expect(kib('size')).toBeGreaterThan(0);
    expect(kib('size-pack')).toBeGreaterThan(0);
    expect(await storeBytes(repo.gitDir)).toBe((kib('size') + kib('size-pack')) * 1024);
    expect(await storeBytes(join(repo.gitDir, '..', 'none.git'))).toBe(0);
  });
});
