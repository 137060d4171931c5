// One session's view of the shadow store: snapshotting the project into a tree (`git add -A`
// into the session's own index, incremental through the index's stat cache, then `write-tree`),
// keeping each new tree reachable (a commit chain under refs/sessions/<id>), comparing trees and
// putting the project back as a tree holds it. It never touches the project's own .git.
import {
  closeSync,
  type Dirent,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { FolderStamps } from '../tools/folderStamps.js';
import { FolderWatch } from './folderWatch.js';
import type { ShadowRepo } from './git.js';
import type { TreeChange } from '../capability/checkpoints.js';
import { fmtInt } from '../tools/format.js';

/**
 * A snapshot's git steps, in one shell (codes: SNAPSHOT_STEPS). With CP_CLEAN (no folder moved
 * since the last snapshot), nothing tracked differing from the index ends it with no output.
 * `add -A --ignore-errors` still exits 1 after adding what it could (an unreadable file): the
 * index holds the rest. The tree goes to fd 3; a commit on CP_PARENT when the tree is not the
 * head's (CP_HEAD_TREE) to fd 4; git's count of the store's objects to its `size` file (what
 * prune.ts weighs against the cap at a session's open, instead of running git then).
 */
const SNAPSHOT = [
  'if [ -n "$CP_CLEAN" ] && g diff-files --quiet; then exit 0; fi',
  'g add -A --ignore-errors -- . || [ -f "$GIT_INDEX_FILE" ] || exit 10',
  't=$(g write-tree) || exit 11',
  'printf %s "$t" >&3',
  'if [ "$t" != "$CP_HEAD_TREE" ]; then g commit-tree "$t" ${CP_PARENT:+-p "$CP_PARENT"} -m checkpoint >&4 || exit 12; fi',
  'g count-objects -v >"$CP_D/size.$$" && mv -f "$CP_D/size.$$" "$CP_D/size"',
  'exit 0',
].join('\n');
const SNAPSHOT_STEPS = ['add', 'write-tree', 'commit-tree'];

const IDENTITY = { GIT_AUTHOR_NAME: 'agent', GIT_AUTHOR_EMAIL: 'agent@localhost', GIT_COMMITTER_NAME: 'agent', GIT_COMMITTER_EMAIL: 'agent@localhost' };
const GITLINK = '160000';

export class TooManyFiles extends Error {
  override readonly name = 'TooManyFiles';
}

export class SessionTree {
  private readonly index: string;
  private readonly shared: string;
  private readonly ref: string;
  private head: string | undefined;
  private headTree: string | undefined;
  /** The tree this process last wrote, and the project's folders' stamps (taken before). */
  private last: { tree: string; dirs: FolderStamps } | undefined;
  /** What happened in the project's folders since the last look. */
  private readonly watch = new FolderWatch();

  constructor(
    private readonly repo: ShadowRepo,
    sessionId: string,
    private readonly maxFiles: number,
  ) {
    const safe = sessionId.replace(/[^\w.-]/g, '_');
    this.index = join(repo.gitDir, 'indexes', safe);
    this.shared = join(repo.gitDir, 'indexes', 'latest');
    this.ref = join(repo.gitDir, 'refs', 'sessions', safe);
  }

  /**
   * Snapshots the project as it is now: the tree's id. An unchanged project is told without
   * `git add -A` (which lists every folder for new files), and most often without a look at
   * any file: nothing happened in any of the project's folders since the last snapshot (a
   * watch a folder: folderWatch.ts). Otherwise by no tracked file differing from the index
   * (`diff-files`: one lstat a file, ~110 ms of CPU for 17,700) and no folder's mtime moved
   * (a file added, removed or renamed in a folder changes its mtime; the folders are every one
   * but .git's and the ignored ones, listed when the last snapshot was taken).
   *
   * Git runs in at most two shells (gitScript: this process forks once for each, not once a git
   * step): the folders' listing (and the first snapshot's file count), then
   * `diff-files`, `add -A`, `write-tree` and `commit-tree`. Two, because the folders listed are
   * watched before git looks at their files.
   */
  async snapshot(): Promise<string> {
    const last = this.last;
    if (last && (await this.watch.quiet())) return last.tree;
    // what happens from here on is seen next time: in a folder watched already, or (the folders
    // walked below are watched before they are listed) before git looks at it
    this.watch.settle();
    const dirsBefore = last ? last.dirs.changed() : undefined;
    const first = !existsSync(this.index) && !this.firstIndex();
    // taken before git looks: what changes while it does shows next time
    const dirs = last && dirsBefore === false && !first ? last.dirs.again() : await this.folders(first);
    if (this.head === undefined && existsSync(this.ref)) {
      // the ref file holds the commit, then its tree (git reads the first word only)
      [this.head, this.headTree] = readFileSync(this.ref, 'utf8').trim().split(/\s+/);
    }
    const run = await this.repo.script(SNAPSHOT, SNAPSHOT_STEPS, this.index, {
      ...IDENTITY,
      ...(last && dirsBefore === false && !first ? { CP_CLEAN: last.tree } : {}),
      ...(this.head ? { CP_PARENT: this.head, CP_HEAD_TREE: this.headTree ?? '' } : {}),
    });
    const tree = run.out3.toString('utf8').trim();
    // nothing tracked differs and no folder moved: the tree this process last wrote
    if (last && tree === '') return last.tree;
    this.refuseOverCap(indexEntries(this.index));
    const commit = run.out4.toString('utf8').trim();
    if (commit !== '') this.keep(commit, tree);
    // the next session in this project starts from this index: its first snapshot is incremental too
    const tmp = `${this.shared}.${process.pid}`;
    copyFileSync(this.index, tmp);
    renameSync(tmp, this.shared);
    this.last = { tree, dirs };
    return tree;
  }

  /** Stops watching the project (the session's end). */
  close(): void {
    this.watch.close();
  }

  /**
   * Every folder of the project a new file could land in unignored (not .git's, not an ignored
   * one: git lists a folder as ignored only when nothing in it is tracked), stamped; each watched
   * from now on, before it is listed. With `count` (a first snapshot with no index to start from)
   * the same shell lists what the snapshot would hold, refused over the cap before anything is hashed.
   */
  private async folders(count: boolean): Promise<FolderStamps> {
    const listed = await this.repo
      .script(
        `${count ? 'g ls-files -z --others --exclude-standard >&4 || exit 10\n' : ''}g ls-files -z --others --ignored --exclude-standard --directory >&3\n`,
        ['ls-files'],
        this.index,
      )
      .catch((e: unknown) => {
        // a listing that fails leaves every folder walked; a count that fails, the snapshot
        if (count) throw e;
        return undefined;
      });
    if (count && listed) {
      let files = 0;
      for (const byte of listed.out4) if (byte === 0) files++;
      this.refuseOverCap(files);
    }
    const others = (listed?.out3.toString('utf8') ?? '').split('\0');
    const ignored = new Set(others.filter((p) => p.endsWith('/')).map((p) => join(this.repo.root, p.slice(0, -1))));
    const out: string[] = [];
    const walk = (dir: string): void => {
      out.push(dir);
      this.watch.add(dir);
      let entries: Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const abs = join(dir, e.name);
        if (e.isDirectory() && e.name !== '.git' && !ignored.has(abs)) walk(abs);
      }
    };
    walk(this.repo.root);
    this.watch.keepOnly(new Set(out));
    return new FolderStamps(out);
  }

  /** A snapshot of `files` files over checkpoints.maxFiles is refused, naming both. */
  private refuseOverCap(files: number): void {
    if (files > this.maxFiles) throw new TooManyFiles(`${fmtInt(files)} files, over checkpoints.maxFiles (${fmtInt(this.maxFiles)})`);
  }

  /** A session's first index: the project's latest (true), or none yet (false: the first snapshot counts what it would hold). */
  private firstIndex(): boolean {
    mkdirSync(dirname(this.index), { recursive: true });
    if (!existsSync(this.shared)) return false;
    copyFileSync(this.shared, this.index);
    return true;
  }

  /** Makes a new tree reachable from the session's ref (git's gc keeps it while the ref stands): its commit, made by the snapshot's shell on the last. */
  private keep(commit: string, tree: string): void {
    mkdirSync(dirname(this.ref), { recursive: true });
    writeFileSync(`${this.ref}.lock`, `${commit} ${tree}\n`);
    renameSync(`${this.ref}.lock`, this.ref);
    this.head = commit;
    this.headTree = tree;
  }

  /** The paths (relative to the root) that differ between two trees. */
  async changed(from: string, to: string): Promise<string[]> {
    if (from === to) return [];
    const out = (await this.repo.run(['diff-tree', '-r', '-z', '--no-renames', '--name-only', from, to], this.index)).stdout.toString('utf8');
    return out.split('\0').filter((p) => p !== '');
  }

  /**
   * Puts the project back as `to` holds it, from `from` (a snapshot of it now): what `to` lacks
   * is removed (and the folders that leaves empty), what differs or is missing is checked out of
   * `to` with its mode. Embedded repositories (gitlinks) are left alone.
   */
  async restore(from: string, to: string): Promise<TreeChange[]> {
    if (from === to) return [];
    const raw = (await this.repo.run(['diff-tree', '-r', '-z', '--no-renames', from, to], this.index)).stdout.toString('utf8').split('\0');
    const remove: string[] = [];
    const checkout: string[] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const [oldMode, newMode, , , status] = raw[i]!.slice(1).split(' ');
      const path = raw[i + 1]!;
      if (oldMode === GITLINK || newMode === GITLINK) continue;
      if (status === 'D') remove.push(path);
      else checkout.push(path);
    }
    const out: TreeChange[] = [];
    for (const p of remove) {
      const abs = join(this.repo.root, p);
      try {
        await rm(abs, { force: true });
        pruneEmptyParents(this.repo.root, abs);
        out.push({ path: abs, action: 'removed' });
      } catch (e) {
        out.push({ path: abs, action: 'failed', error: (e as Error).message });
      }
    }
    if (checkout.length === 0) return out;
    const temp = `${this.index}.restore`;
    try {
      await this.repo.run(['read-tree', to], temp);
      await this.repo.run(['checkout-index', '-f', '-z', '--stdin'], temp, `${checkout.join('\0')}\0`);
      for (const p of checkout) out.push({ path: join(this.repo.root, p), action: 'restored' });
    } catch (e) {
      for (const p of checkout) out.push({ path: join(this.repo.root, p), action: 'failed', error: (e as Error).message });
    } finally {
      rmSync(temp, { force: true });
    }
    return out;
  }

  /** Of these absolute paths, those the store does not hold: outside the project, or ignored (and not tracked in the index). */
  async uncovered(paths: readonly string[]): Promise<string[]> {
    const inside = paths.filter((p) => isInside(this.repo.root, p));
    const out = paths.filter((p) => !isInside(this.repo.root, p));
    if (inside.length === 0) return out;
    const rel = inside.map((p) => relative(this.repo.root, p));
    // check-ignore exits 1 when nothing is ignored
    const r = await this.repo.run(['check-ignore', '-z', '--stdin'], this.index, `${rel.join('\0')}\0`).catch(() => ({ stdout: Buffer.alloc(0) }));
    const ignored = new Set(
      r.stdout
        .toString('utf8')
        .split('\0')
        .filter((p) => p !== ''),
    );
    return [...out, ...inside.filter((_, i) => ignored.has(rel[i]!))];
  }
}

/** The entry count in an index file's header (bytes 8–11, big-endian): what the tree would hold, without asking git. */
function indexEntries(path: string): number {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(12);
    readSync(fd, head, 0, 12, 0);
    return head.readUInt32BE(8);
  } finally {
    closeSync(fd);
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, resolve(path));
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep);
}

/** Removes the folders a removal left empty, up to (never including) the root. */
function pruneEmptyParents(root: string, abs: string): void {
  let dir = dirname(abs);
  while (isInside(root, dir)) {
    try {
      rmdirSync(dir);
    } catch {
      return; // not empty (or gone): stop
    }
    dir = dirname(dir);
  }
}
