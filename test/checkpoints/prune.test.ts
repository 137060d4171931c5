import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
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

  it('a session exactly keepDays untouched is kept; a quarter of a day more, dropped', async () => {
    // whole seconds: the files' times hold them exactly
    const now = Math.floor(Date.now() / 1000) * 1000;
    const repo = await store({ current: 1, edge: 30, over: 30.25 }, now);
    // mutations: stale from keepDays on (edge dropped), or a day a minute longer (over kept)
    expect(await pruneStore(repo, 'current', { maxStoreMB: 2048, keepDays: 30 }, now)).toBeUndefined();
    expect([has(repo, 'current'), has(repo, 'edge'), has(repo, 'over')]).toEqual([true, true, false]);
  });

  it("a stale session's objects go with it before the store is weighed against the cap, so the sessions it holds room for stay", async () => {
    const now = Date.now();
    const repo = await store({ current: 1, stale: 40, fresh: 1 }, now);
    const blob = bigObjectOf(repo, 'stale');
    // mutations: no gc after dropping the stale session, or the store not weighed again after it:
    // still over the cap, the fresh session is dropped too
    expect(await pruneStore(repo, 'current', { maxStoreMB: 0.1, keepDays: 30 }, now)).toBeUndefined();
    expect([has(repo, 'current'), has(repo, 'stale'), has(repo, 'fresh')]).toEqual([true, false, true]);
    expect(spawnSync('git', [`--git-dir=${repo.gitDir}`, 'cat-file', '-e', blob]).status).not.toBe(0);
  });

  it('over the cap, the oldest other session is dropped and its objects collected before the next one is weighed', async () => {
    const now = Date.now();
    const repo = await store({ current: 1, older: 3, newer: 2 }, now);
    writeFileSync(join(repo.gitDir, 'pruned'), '');
    bigObjectOf(repo, 'older');
    // mutation: the gc not awaited weighs the store with the older session's objects still there, and drops the newer too
    expect(await pruneStore(repo, 'current', { maxStoreMB: 0.1, keepDays: 30 }, now)).toBeUndefined();
    expect([has(repo, 'current'), has(repo, 'older'), has(repo, 'newer')]).toEqual([true, false, true]);
  });

  it('a store holding no object yet weighs nothing: not over even a cap of none', async () => {
    const root = tempDir('agent-prune-empty-');
    const repo = new ShadowRepo(join(root, 'data'), root, undefined);
    await repo.open();
    // mutation: an empty store counted as a byte is over a cap of 0
    expect(await pruneStore(repo, 'current', { maxStoreMB: 0, keepDays: 30 }, Date.now())).toBeUndefined();
  });
});

/** A 300 KiB object nothing compresses, named by `id`'s ref alone, and as old as gc's --prune=1.hour.ago collects once unreachable: its id. */
function bigObjectOf(repo: ShadowRepo, id: string): string {
  const blob = execFileSync('git', [`--git-dir=${repo.gitDir}`, 'hash-object', '-w', '--stdin'], { input: randomBytes(300 * 1024), encoding: 'utf8' }).trim();
  writeFileSync(join(repo.gitDir, 'refs', 'sessions', id), `${blob}\n`);
  const hoursAgo = new Date(Date.now() - 2 * 3600_000);
  utimesSync(join(repo.gitDir, 'objects', blob.slice(0, 2), blob.slice(2)), hoursAgo, hoursAgo);
  return blob;
}
