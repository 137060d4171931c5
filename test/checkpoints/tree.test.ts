import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ShadowRepo } from '../../src/checkpoints/git.js';
import { findProject } from '../../src/checkpoints/project.js';
import { SessionTree, TooManyFiles } from '../../src/checkpoints/tree.js';
import { tempDir } from '../tempDirs.js';
import { canReadWatches, watchesOn } from './inotify.js';
import { gitIn, seedRepository } from './repository.js';

// One session's view of the shadow store (src/checkpoints/tree.ts) on a real project and a real
// git: its chain of commits across processes, the file cap on both of its roads, what a restore
// leaves alone and what the store does not cover.

/** A repository with four files the store holds (.gitignore, a.txt, b.txt, c.txt) and an ignored folder; its opened shadow store. */
async function project(): Promise<{ dir: string; repo: ShadowRepo }> {
  const root = tempDir('agent-tree-');
  const dir = join(root, 'project');
  mkdirSync(dir);
  seedRepository(dir, { ignore: 'build/\n', files: { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' }, stash: ['a.txt', 'stashed\n'] });
  mkdirSync(join(dir, 'build'));
  writeFileSync(join(dir, 'build', 'out.js'), 'built\n');
  const p = findProject(dir);
  const repo = new ShadowRepo(join(root, 'data'), p.root, p.exclude);
  await repo.open();
  return { dir, repo };
}

const store = (repo: ShadowRepo, ...args: string[]): string => execFileSync('git', [`--git-dir=${repo.gitDir}`, ...args], { encoding: 'utf8' }).trim();

/** The session's chain head as its ref file holds it: the commit, then its tree. */
const head = (repo: ShadowRepo, id: string): { commit: string; tree: string } => {
  const [commit = '', tree = ''] = readFileSync(join(repo.gitDir, 'refs', 'sessions', id), 'utf8')
    .trim()
    .split(' ');
  return { commit, tree };
};

/** A snapshot by a session tree made for it alone (a process of its own), closed after. */
async function snapshotOnce(repo: ShadowRepo, id: string, maxFiles = 1000): Promise<string> {
  const tree = new SessionTree(repo, id, maxFiles);
  try {
    return await tree.snapshot();
  } finally {
    tree.close();
  }
}

describe('a session tree', () => {
  it('a resumed session (a new process) goes on with the chain its ref names, and an unchanged project adds no commit to it', async () => {
    const { dir, repo } = await project();
    const first = await snapshotOnce(repo, 's_resumed');
    const one = head(repo, 's_resumed');
    expect(one.tree).toBe(first);
    writeFileSync(join(dir, 'a.txt'), 'changed\n');
    const second = await snapshotOnce(repo, 's_resumed');
    const two = head(repo, 's_resumed');
    expect(two.tree).toBe(second);
    // the new commit's parent is the last process's head (mutation: the head not read from the ref starts the chain anew)
    expect(store(repo, 'rev-list', '--parents', '-n', '1', two.commit).split(' ')).toEqual([two.commit, one.commit]);
    expect(store(repo, 'rev-parse', `${two.commit}^{tree}`)).toBe(second);
    // nothing changed since: the same tree, and no commit on the same tree (the ref's tree read too)
    expect(await snapshotOnce(repo, 's_resumed')).toBe(second);
    expect(head(repo, 's_resumed')).toEqual(two);
    expect(existsSync(join(repo.gitDir, 'refs', 'sessions', 's_resumed.lock'))).toBe(false);
  });

  it('a snapshot that finds the tree the chain head holds adds no commit, in the process that wrote the head too', async () => {
    const { dir, repo } = await project();
    const tree = new SessionTree(repo, 's_same', 1000);
    try {
      const first = await tree.snapshot();
      const one = head(repo, 's_same');
      // a file made and removed again: the root folder moved, so git adds and writes the tree, the same one
      writeFileSync(join(dir, 'tmp.txt'), 'x\n');
      rmSync(join(dir, 'tmp.txt'));
      expect(await tree.snapshot()).toBe(first);
      expect(head(repo, 's_same')).toEqual(one);
      writeFileSync(join(dir, 'a.txt'), 'changed\n');
      const second = await tree.snapshot();
      const two = head(repo, 's_same');
      expect(two.tree).toBe(second);
      expect(two.commit).not.toBe(one.commit);
      // written again with the same text: diff-files sends it to git, which finds the head's tree
      // (mutation: the new head's tree not kept after its commit makes a commit on the same tree)
      writeFileSync(join(dir, 'a.txt'), 'changed\n');
      expect(await tree.snapshot()).toBe(second);
      expect(head(repo, 's_same')).toEqual(two);
      expect(store(repo, 'rev-list', '--count', two.commit)).toBe('2');
    } finally {
      tree.close();
    }
  });

  it("in one process, each changed snapshot's commit has the last one as its parent, so the ref reaches every turn's tree", async () => {
    const { dir, repo } = await project();
    const tree = new SessionTree(repo, 's_chain', 1000);
    try {
      const trees = [await tree.snapshot()];
      const commits = [head(repo, 's_chain').commit];
      for (const text of ['one\n', 'two\n']) {
        writeFileSync(join(dir, 'a.txt'), text);
        trees.push(await tree.snapshot());
        commits.push(head(repo, 's_chain').commit);
      }
      // mutation: the new head not kept after its commit parents the third on the first, and the
      // second turn's tree, reachable from no ref, goes at the store's next gc
      expect(store(repo, 'rev-list', commits[2]!).split('\n')).toEqual([...commits].reverse());
      expect(commits.map((c) => store(repo, 'rev-parse', `${c}^{tree}`))).toEqual(trees);
    } finally {
      tree.close();
    }
  });

  it('holds as many files as checkpoints.maxFiles and refuses one more: counted before the first snapshot, and from the index after one', async () => {
    const { repo } = await project();
    // no index yet: the first snapshot counts what it would hold (4) before hashing anything
    await expect(snapshotOnce(repo, 's_count_over', 3)).rejects.toThrow(new TooManyFiles('4 files, over checkpoints.maxFiles (3)'));
    expect(existsSync(join(repo.gitDir, 'indexes', 'latest'))).toBe(false);
    await expect(snapshotOnce(repo, 's_count_at', 4)).resolves.toMatch(/^[0-9a-f]{40}$/);
    // the next session starts from the project's latest index: the index's own entry count decides
    expect(existsSync(join(repo.gitDir, 'indexes', 'latest'))).toBe(true);
    await expect(snapshotOnce(repo, 's_index_over', 3)).rejects.toThrow(new TooManyFiles('4 files, over checkpoints.maxFiles (3)'));
    await expect(snapshotOnce(repo, 's_index_at', 4)).resolves.toMatch(/^[0-9a-f]{40}$/);
  });

  it('a restore that cannot remove a file or check one out says so for each path, and still does the rest', async () => {
    const { dir, repo } = await project();
    const tree = new SessionTree(repo, 's_failing', 1000);
    try {
      const before = await tree.snapshot();
      writeFileSync(join(dir, 'a.txt'), 'changed\n');
      writeFileSync(join(dir, 'd.txt'), 'd\n');
      writeFileSync(join(dir, 'e.txt'), 'e\n');
      const after = await tree.snapshot();
      // since: d.txt became a folder (rm of a file fails on it), and the store lost a.txt's old text
      rmSync(join(dir, 'd.txt'));
      mkdirSync(join(dir, 'd.txt'));
      writeFileSync(join(dir, 'd.txt', 'inner'), 'x\n');
      const blob = store(repo, 'rev-parse', `${before}:a.txt`);
      rmSync(join(repo.gitDir, 'objects', blob.slice(0, 2), blob.slice(2)));
      const changes = await tree.restore(after, before);
      expect(changes.map((c) => `${c.action} ${c.path.slice(dir.length + 1)}`)).toEqual(['failed d.txt', 'removed e.txt', 'failed a.txt']);
      expect(changes.filter((c) => c.action === 'failed').every((c) => 'error' in c && c.error !== '')).toBe(true);
      expect(existsSync(join(dir, 'e.txt'))).toBe(false);
      // the temporary index of the checkout is gone either way
      expect(existsSync(join(repo.gitDir, 'indexes', 's_failing.restore'))).toBe(false);
    } finally {
      tree.close();
    }
  });

  it('a restore leaves an embedded repository alone, and the paths outside the project or ignored are the uncovered ones', async () => {
    const { dir, repo } = await project();
    const tree = new SessionTree(repo, 's_restore', 1000);
    try {
      const before = await tree.snapshot();
      expect(await tree.changed(before, before)).toEqual([]);
      // an embedded repository (a gitlink in the store's tree) and a plain file, added after
      const inner = join(dir, 'inner');
      mkdirSync(inner);
      seedRepository(inner, { ignore: '', files: { 'x.txt': 'x\n' }, stash: ['x.txt', 'y\n'] });
      writeFileSync(join(dir, 'd.txt'), 'd\n');
      const after = await tree.snapshot();
      expect((await tree.changed(before, after)).sort()).toEqual(['d.txt', 'inner']);
      const changes = await tree.restore(after, before);
      expect(changes.map((c) => `${c.action} ${c.path.slice(dir.length + 1)}`)).toEqual(['removed d.txt']);
      expect(gitIn(inner, 'rev-parse', '--is-inside-work-tree').trim()).toBe('true');
      expect(readFileSync(join(inner, 'x.txt'), 'utf8')).toBe('x\n');
      // only paths outside the project: no git asked, they are returned as they are
      expect(await tree.uncovered(['/elsewhere/x', join(dir, '..', 'beside.txt')])).toEqual(['/elsewhere/x', join(dir, '..', 'beside.txt')]);
      expect(await tree.uncovered([join(dir, 'build', 'out.js'), join(dir, 'a.txt'), dir])).toEqual([dir, join(dir, 'build', 'out.js')]);
      // one path inside, asked alone: git still looks (mutation: a single path taken as covered)
      expect(await tree.uncovered([join(dir, 'build', 'out.js')])).toEqual([join(dir, 'build', 'out.js')]);
      expect(await tree.uncovered([join(dir, 'a.txt')])).toEqual([]);
    } finally {
      tree.close();
    }
  });

  it("starts a session's first snapshot from the project's latest index (no count then), and an index that held a tree converts no file's bytes", async () => {
    const { dir, repo } = await project();
    // the person's attributes would write a text file back with CRLF line ends
    writeFileSync(join(dir, '.gitattributes'), '*.txt text eol=crlf\n');
    await snapshotOnce(repo, 's_first');
    const watched = new ShellsSeen(repo.dataDir, repo.root);
    await watched.open();
    const tree = new SessionTree(watched, 's_second', 1000);
    try {
      const before = await tree.snapshot();
      // mutations: the latest index not copied (git hashes every file again), or copied and still
      // counted as a store's first snapshot
      expect(watched.shells[0]).toEqual({ steps: 'ls-files', indexThere: true, counted: false });
      writeFileSync(join(dir, 'a.txt'), 'changed\n');
      const after = await tree.snapshot();
      await tree.restore(after, before);
      // mutation: the store's info/attributes not written lets eol=crlf convert what it checks out
      expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('a\n');
    } finally {
      tree.close();
    }
  });

  it('lets go of a folder ignored since the last listing: what lands in it runs no git', async () => {
    const { dir, repo } = await project();
    const watched = new ShellsSeen(repo.dataDir, repo.root);
    const tree = new SessionTree(watched, 's_let_go', 1000);
    try {
      await tree.snapshot();
      mkdirSync(join(dir, 'gen'));
      const first = await tree.snapshot();
      // gen/ ignored, and a new name in the root: the folders are listed again, gen/ among the ignored
      appendFileSync(join(dir, '.gitignore'), 'gen/\n');
      writeFileSync(join(dir, 'notes.txt'), 'n\n');
      const second = await tree.snapshot();
      expect(second).not.toBe(first);
      watched.shells.length = 0;
      writeFileSync(join(dir, 'gen', 'x.txt'), 'x\n');
      // mutation: the folders not listed any more kept watched stir the watch, and git runs
      expect(await tree.snapshot()).toBe(second);
      expect(watched.shells).toEqual([]);
    } finally {
      tree.close();
    }
  });

  // Linux: the process's open files and inotify watches (/proc/self/fd, /proc/self/fdinfo)
  it.runIf(canReadWatches)("holds no file of the store open after a snapshot, and closed, no watch of the project's folders", async () => {
    const { dir, repo } = await project();
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'x.txt'), 'x\n');
    const watches = watchesOn([dir, join(dir, 'src')]);
    const open = (): string[] =>
      readdirSync('/proc/self/fd').flatMap((fd) => {
        try {
          const target = readlinkSync(join('/proc/self/fd', fd));
          return target.startsWith(repo.gitDir) ? [target] : [];
        } catch {
          return [];
        }
      });
    const tree = new SessionTree(repo, 's_closed', 1000);
    try {
      await tree.snapshot();
      expect(watches()).toBe(2);
      // mutation: the index's header read without closing it leaves its descriptor open for the session
      expect(open()).toEqual([]);
    } finally {
      tree.close();
    }
    // mutation: close() not closing the watch keeps both (inotify watches are the person's too)
    expect(watches()).toBe(0);
  });
});

/** The shadow store, noting each shell of git steps a snapshot runs: its steps, whether its index was there, whether it counted the files. */
class ShellsSeen extends ShadowRepo {
  readonly shells: Array<{ steps: string; indexThere: boolean; counted: boolean }> = [];
  constructor(dataDir: string, root: string) {
    super(dataDir, root, undefined);
  }
  override script(...args: Parameters<ShadowRepo['script']>): ReturnType<ShadowRepo['script']> {
    this.shells.push({ steps: args[1].join(', '), indexThere: existsSync(args[2]), counted: args[0].includes('>&4') && args[1][0] === 'ls-files' });
    return super.script(...args);
  }
}
