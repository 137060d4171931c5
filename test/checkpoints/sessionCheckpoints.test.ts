import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CapabilityHost } from '../../src/capability/capability.js';
import { checkpointsCapability } from '../../src/checkpoints/capability.js';
import { gitEnv, ShadowRepo } from '../../src/checkpoints/git.js';
import { findProject } from '../../src/checkpoints/project.js';
import { SessionTree } from '../../src/checkpoints/tree.js';
import { SessionCheckpoints } from '../../src/checkpoints/sessionCheckpoints.js';
import { tempDir } from '../tempDirs.js';
import { canReadWatches, watchesOn } from './inotify.js';
import { gitIn, repositoryState, seedRepository } from './repository.js';

// The working tree's checkpoints on a real project and a real git: snapshots at turn boundaries
// in a shadow store outside the project, a rewind that restores what any command did (changed,
// created, deleted, mode, symlink), ignored files left alone, the outside-change check, undo, and
// the person's .git never written.

const settings = { maxFiles: 1000, maxStoreMB: 2048, keepDays: 30 };

/** A repository with one commit, a stash and an ignored folder; the data folder outside it. */
function project() {
  const root = tempDir('agent-cp-');
  const dir = join(root, 'project');
  mkdirSync(dir);
  seedRepository(dir, { ignore: 'build/\n', files: { 'a.txt': 'one\n', 'base.txt': 'base\n', 'run.sh': '#!/bin/sh\n' }, stash: ['a.txt', 'stashed\n'] });
  mkdirSync(join(dir, 'build'));
  writeFileSync(join(dir, 'build', 'out.js'), 'built\n');
  return { dir, data: join(root, 'data') };
}

/** What of the person's repository a rewind must never change (the status read without refreshing the index). */
function repoState(dir: string) {
  return { ...repositoryState(dir), status: gitIn(dir, '--no-optional-locks', 'status', '--porcelain') };
}

/** The shadow store of `dir`, counting the git commands it runs. */
class CountingRepo extends ShadowRepo {
  readonly commands: string[] = [];
  override run(...args: Parameters<ShadowRepo['run']>): ReturnType<ShadowRepo['run']> {
    this.commands.push(args[0][0]!);
    return super.run(...args);
  }
  override script(...args: Parameters<ShadowRepo['script']>): ReturnType<ShadowRepo['script']> {
    this.commands.push(`sh: ${args[1].join(', ')}`);
    return super.script(...args);
  }
}

describe('a snapshot of an unchanged tree', () => {
  it("is told by the folders' watches alone (no git), and still sees a new file in a folder made empty before, a file changed just before, a tracked file in a folder ignored since, and nothing in an ignored one", async () => {
    const { dir, data } = project();
    const p = findProject(dir);
    const repo = new CountingRepo(data, p.root, p.exclude);
    await repo.open();
    const tree = new SessionTree(repo, 's_fast', 1000);
    const first = await tree.snapshot();
    repo.commands.length = 0;
    expect(await tree.snapshot()).toBe(first);
    // nothing happened in a watched folder: no git at all (no diff-files, no `git add -A`, no write-tree)
    expect(repo.commands).toEqual([]);
    mkdirSync(join(dir, 'later'));
    expect(await tree.snapshot()).toBe(first);
    // a file in that folder changes its mtime, not the root's
    writeFileSync(join(dir, 'later', 'x.txt'), 'x\n');
    const withX = await tree.snapshot();
    expect(withX).not.toBe(first);
    // a tracked file changed in place (same folder mtimes), just before the boundary: its folder's watch tells it
    writeFileSync(join(dir, 'base.txt'), 'changed\n');
    const changed = await tree.snapshot();
    expect(changed).not.toBe(withX);
    // an ignored folder is not among those watched, and its files are not snapshotted
    writeFileSync(join(dir, 'build', 'more.js'), 'built\n');
    repo.commands.length = 0;
    expect(await tree.snapshot()).toBe(changed);
    expect(repo.commands).toEqual([]);
    // a folder ignored after its file was snapshotted: the file is still tracked, and its change still seen
    mkdirSync(join(dir, 'gen'));
    writeFileSync(join(dir, 'gen', 'a.txt'), 'one\n');
    await tree.snapshot();
    appendFileSync(join(dir, '.gitignore'), 'gen/\n');
    // (a new name in the root too: the folders are listed again, gen/ now among the ignored)
    writeFileSync(join(dir, 'notes.txt'), 'n\n');
    const ignoredSince = await tree.snapshot();
    writeFileSync(join(dir, 'gen', 'a.txt'), 'two\n');
    expect(await tree.snapshot()).not.toBe(ignoredSince);
  });
});

describe('SessionCheckpoints', () => {
  it("restores what commands did before a turn, leaves ignored files and the person's .git alone, and undo brings the tree back", async () => {
    const { dir, data } = project();
    const notices: string[] = [];
    const cp = new SessionCheckpoints('s_1', dir, data, settings, (t) => notices.push(t));
    await cp.boundary('before', 't1');
    writeFileSync(join(dir, 'a.txt'), 'two\n');
    await cp.boundary('after', 't1');
    const before = repoState(dir);
    await cp.boundary('before', 't2');
    writeFileSync(join(dir, 'a.txt'), 'three\n');
    writeFileSync(join(dir, 'c.txt'), 'new\n');
    mkdirSync(join(dir, 'gen', 'deep'), { recursive: true });
    writeFileSync(join(dir, 'gen', 'deep', 'x.ts'), 'generated\n');
    rmSync(join(dir, 'base.txt'));
    chmodSync(join(dir, 'run.sh'), 0o755);
    symlinkSync('a.txt', join(dir, 'link'));
    writeFileSync(join(dir, 'build', 'out.js'), 'rebuilt\n');
    await cp.boundary('after', 't2');
    expect(notices).toEqual([]);
    expect(cp.before('t2')).toEqual({ ok: true });
    expect(cp.before('t9')).toMatchObject({ ok: false });

    const done = await cp.rewind('t2', 'code', false);
    expect('changes' in done && done.changes.map((c) => `${c.action} ${c.path.slice(dir.length + 1)}`).sort()).toEqual([
      'removed c.txt',
      'removed gen/deep/x.ts',
      'removed link',
      'restored a.txt',
      'restored base.txt',
      'restored run.sh',
    ]);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('two\n');
    expect(readFileSync(join(dir, 'base.txt'), 'utf8')).toBe('base\n');
    expect(existsSync(join(dir, 'c.txt'))).toBe(false);
    expect(existsSync(join(dir, 'gen'))).toBe(false);
    expect(statSync(join(dir, 'run.sh')).mode & 0o111).toBe(0);
    // ignored: the checkpoints never held it, so it stays as the command left it
    expect(readFileSync(join(dir, 'build', 'out.js'), 'utf8')).toBe('rebuilt\n');
    expect(repoState(dir)).toEqual(before);
    expect(readdirSync(join(dir, '.git')).some((f) => f.includes('checkpoint'))).toBe(false);

    expect(cp.lastRewind()).toEqual({ what: 'code' });
    const undone = await cp.undo(false);
    expect('changes' in undone && undone.changes.length).toBe(6);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('three\n');
    expect(readFileSync(join(dir, 'gen', 'deep', 'x.ts'), 'utf8')).toBe('generated\n');
    expect(existsSync(join(dir, 'base.txt'))).toBe(false);
    expect(statSync(join(dir, 'run.sh')).mode & 0o111).not.toBe(0);
    expect(cp.lastRewind()).toBeUndefined();
    // the files differ from the person's HEAD as turn 2 left them; nothing else of the repository moved
    expect({ ...repoState(dir), status: before.status }).toEqual(before);
  });

  it('refuses to overwrite a file changed since the last turn unless forced, and names it', async () => {
    const { dir, data } = project();
    const cp = new SessionCheckpoints('s_2', dir, data, settings, () => {});
    await cp.boundary('before', 't1');
    appendFileSync(join(dir, 'a.txt'), 'by the agent\n');
    await cp.boundary('after', 't1');
    writeFileSync(join(dir, 'mine.txt'), 'the person wrote this\n');
    const refused = await cp.rewind('t1', 'code', false);
    expect(refused).toEqual({ outside: [join(dir, 'mine.txt')] });
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('one\nby the agent\n');
    expect(existsSync(join(dir, 'mine.txt'))).toBe(true);
    const forced = await cp.rewind('t1', 'code', true);
    expect('changes' in forced).toBe(true);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('one\n');
    expect(existsSync(join(dir, 'mine.txt'))).toBe(false);
    // the undo checks too: a file the person wrote since the rewind is named, and kept unless forced
    writeFileSync(join(dir, 'later.txt'), 'after the rewind\n');
    expect(await cp.undo(false)).toEqual({ outside: [join(dir, 'later.txt')] });
    expect(existsSync(join(dir, 'mine.txt'))).toBe(false);
    expect(cp.lastRewind()).toEqual({ what: 'code' });
    // the forced rewind is taken back like any other: the person's file returns
    expect('changes' in (await cp.undo(true))).toBe(true);
    expect(readFileSync(join(dir, 'mine.txt'), 'utf8')).toBe('the person wrote this\n');
    expect(existsSync(join(dir, 'later.txt'))).toBe(false);
    expect(cp.lastRewind()).toBeUndefined();
  });

  it("takes the project as an undo left it for the agent's: a rewind after the undo finds nothing changed outside", async () => {
    const { dir, data } = project();
    const cp = new SessionCheckpoints('s_redo', dir, data, settings, () => {});
    await cp.boundary('before', 't1');
    writeFileSync(join(dir, 'a.txt'), 'two\n');
    await cp.boundary('after', 't1');
    expect('changes' in (await cp.rewind('t1', 'code', false))).toBe(true);
    expect('changes' in (await cp.undo(false))).toBe(true);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('two\n');
    // mutation: the undo's tree recorded unawaited leaves no tree to compare the project with
    expect(await cp.rewind('t1', 'code', false)).toEqual({ changes: [{ path: join(dir, 'a.txt'), action: 'restored' }] });
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('one\n');
    cp.close();
  });

  it('keeps no key of the environment from git, and says when a tree is over the file cap', async () => {
    const { dir, data } = project();
    process.env['ANTHROPIC_API_KEY'] = 'sk-ant-test-not-for-git';
    process.env['GIT_DIR'] = '/nonexistent';
    try {
      const env = gitEnv();
      expect(Object.keys(env).some((k) => k.includes('KEY') || k === 'GIT_DIR')).toBe(false);
      const notices: string[] = [];
      const cp = new SessionCheckpoints('s_3', dir, data, { ...settings, maxFiles: 2 }, (t) => notices.push(t));
      await cp.boundary('before', 't1');
      expect(cp.before('t1')).toMatchObject({ ok: false, missing: expect.stringContaining('over checkpoints.maxFiles (2)') });
      expect(notices).toHaveLength(1);
      await cp.boundary('after', 't1');
      expect(notices).toHaveLength(1);
    } finally {
      delete process.env['ANTHROPIC_API_KEY'];
      delete process.env['GIT_DIR'];
    }
  });

  it('ignores what the repository excludes in .git/info/exclude, and the data folder inside the project', async () => {
    const { dir } = project();
    writeFileSync(join(dir, '.git', 'info', 'exclude'), 'secret.local\n');
    const data = join(dir, '.agent-data');
    const cp = new SessionCheckpoints('s_4', dir, data, settings, () => {});
    await cp.boundary('before', 't1');
    writeFileSync(join(dir, 'secret.local'), 'x\n');
    writeFileSync(join(dir, 'kept.txt'), 'x\n');
    await cp.boundary('after', 't1');
    const done = await cp.rewind('t1', 'code', false);
    expect('changes' in done && done.changes.map((c) => c.path)).toEqual([join(dir, 'kept.txt')]);
    expect(existsSync(join(dir, 'secret.local'))).toBe(true);
    expect(await cp.uncovered([join(dir, 'secret.local'), join(dir, 'a.txt'), '/elsewhere/x'])).toEqual(['/elsewhere/x', join(dir, 'secret.local')]);
  });
});

describe('a store that cannot be used', () => {
  it('in the home folder: no store, no snapshot, the reason told once and recorded for /rewind, and nothing covered', async () => {
    const home = realpathSync(tempDir('agent-cp-home-'));
    const data = join(tempDir('agent-cp-home-data-'), 'data');
    const was = process.env['HOME'];
    process.env['HOME'] = home;
    try {
      const notices: string[] = [];
      const cp = new SessionCheckpoints('s_home', home, data, settings, (t) => notices.push(t));
      await cp.turnStarted('t1', true);
      await cp.turnEnded('t1');
      const why = 'the project is the home folder, too broad to snapshot';
      expect(cp.before('t1')).toEqual({ ok: false, missing: `it could not be snapshotted: ${why}` });
      expect(notices).toEqual([`No checkpoint of the project at this turn (${why}): /rewind can restore only what Edit and Write changed in it.`]);
      expect(await cp.uncovered([join(home, 'a.txt')])).toEqual([join(home, 'a.txt')]);
      expect(existsSync(join(new ShadowRepo(data, home, undefined).gitDir, 'HEAD'))).toBe(false);
      cp.close();
    } finally {
      process.env['HOME'] = was;
    }
  });

  it('a project that became the home folder since its checkpoints: a rewind says why it cannot restore, an undo refuses, both touching nothing', async () => {
    const { dir, data } = project();
    const cp = new SessionCheckpoints('s_later_home', dir, data, settings, () => {});
    await cp.boundary('before', 't1');
    writeFileSync(join(dir, 'a.txt'), 'two\n');
    await cp.boundary('after', 't1');
    expect('changes' in (await cp.rewind('t1', 'code', false))).toBe(true);
    writeFileSync(join(dir, 'a.txt'), 'three\n');
    cp.close();
    const was = process.env['HOME'];
    process.env['HOME'] = dir;
    try {
      const again = new SessionCheckpoints('s_later_home', dir, data, settings, () => {});
      const why = 'the project is the home folder, too broad to snapshot';
      expect(await again.rewind('t1', 'code', false)).toEqual({ missing: why });
      await expect(again.undo(false)).rejects.toThrow(`the checkpoints cannot be read: ${why}`);
      expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('three\n');
      again.close();
    } finally {
      process.env['HOME'] = was;
    }
  });

  it('whose pruning at the open fails: the failure is the reason (not a rejection), and a record that cannot be written is told once', async () => {
    const { dir, data } = project();
    const p = findProject(dir);
    const repo = new ShadowRepo(data, p.root, p.exclude);
    await repo.open();
    // its sessions folder a file: the pruning cannot list the sessions, nor can a record be written
    writeFileSync(join(repo.gitDir, 'sessions'), '');
    const notices: string[] = [];
    const cp = new SessionCheckpoints('s_unlisted', dir, data, settings, (t) => notices.push(t));
    // mutation: the pruning's promise returned unawaited inside open()'s try rejects here
    expect(await cp.uncovered([join(dir, 'a.txt'), '/elsewhere/x'])).toEqual([join(dir, 'a.txt'), '/elsewhere/x']);
    await cp.boundary('before', 't1');
    await cp.boundary('after', 't1');
    expect(notices).toEqual([
      expect.stringMatching(/^No checkpoint of the project at this turn \(ENOTDIR: .*\): \/rewind can restore only/),
      expect.stringMatching(/^the checkpoint record could not be written: /),
    ]);
    cp.close();
  });
});

describe('turns and forks', () => {
  it('an end naming another turn takes no snapshot; a fork adopts only when it has no records of its own and the source has some', async () => {
    const { dir, data } = project();
    const cp = new SessionCheckpoints('s_a', dir, data, settings, () => {});
    await cp.turnStarted('t1');
    await cp.changing();
    writeFileSync(join(dir, 'a.txt'), 'two\n');
    await cp.turnEnded('t0');
    // the turn was let go: a change asked for now snapshots nothing, and its own end neither
    await cp.changing();
    await cp.turnEnded('t1');
    const repo = new ShadowRepo(data, findProject(dir).root, undefined);
    const lines = (id: string): string[] =>
      readFileSync(join(repo.gitDir, 'sessions', `${id}.jsonl`), 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { edge: string }).edge);
    expect(lines('s_a')).toEqual(['start', 'before']);
    cp.adopt('s_a');
    expect(lines('s_a')).toEqual(['start', 'before']);
    // a session with records of its own keeps them; one from a session with none has nothing to adopt
    const own = new SessionCheckpoints('s_own', dir, data, settings, () => {});
    await own.conversationRewound('t9');
    own.adopt('s_a');
    expect(lines('s_own')).toEqual(['rewind']);
    expect(own.lastRewind()).toEqual({ what: 'conversation' });
    const none = new SessionCheckpoints('s_none', dir, data, settings, () => {});
    none.adopt('s_missing');
    expect(existsSync(join(repo.gitDir, 'sessions', 's_none.jsonl'))).toBe(false);
    expect(none.before('t1')).toMatchObject({ ok: false });
    for (const c of [cp, own, none]) c.close();
  });
});

describe('a session closed', () => {
  it.runIf(canReadWatches)("lets go of its watches of the project's folders (inotify watches are the person's too)", async () => {
    const { dir, data } = project();
    const watches = watchesOn([dir, join(dir, 'build')]);
    const cp = new SessionCheckpoints('s_closed', dir, data, settings, () => {});
    await cp.boundary('before', 't1');
    // the project's folder is watched, the ignored build/ not
    expect(watches()).toBe(1);
    // mutation: close() not closing the session's tree keeps the watch for the process's life
    cp.close();
    expect(watches()).toBe(0);
  });
});

describe("a pruned session's turns", () => {
  it('a turn recorded since the pruning says its own reason; one the pruning dropped says the pruning note', () => {
    const { dir, data } = project();
    const gitDir = new ShadowRepo(data, findProject(dir).root, undefined).gitDir;
    mkdirSync(join(gitDir, 'sessions'), { recursive: true });
    writeFileSync(join(gitDir, 'sessions', 's_p.pruned'), 'its checkpoints were pruned: untouched for over 30 days\n');
    writeFileSync(
      join(gitDir, 'sessions', 's_p.jsonl'),
      `${JSON.stringify({ edge: 'start', turn: 't5', at: 1 })}\n${JSON.stringify({ edge: 'before', turn: 't5', at: 2, failed: 'git failed' })}\n`,
    );
    const cp = new SessionCheckpoints('s_p', dir, data, settings, () => {});
    expect(cp.before('t1')).toEqual({ ok: false, missing: 'its checkpoints were pruned: untouched for over 30 days' });
    // mutation: the pruning note for every missing tree hides why t5 has none
    expect(cp.before('t5')).toEqual({ ok: false, missing: 'it could not be snapshotted: git failed' });
    cp.close();
  });
});

describe('the checkpoints capability', () => {
  it("takes no snapshot in a sub-agent's session (its changes belong to the parent's turn), and a fork continues the records it copied", async () => {
    const { dir, data } = project();
    const host = (sessionId: string, parent?: CapabilityHost['parent']): CapabilityHost =>
      ({ sessionId, resumed: false, ...(parent ? { parent } : {}), turn: { notice: () => {} } }) as unknown as CapabilityHost;
    const cap = checkpointsCapability(dir, data, settings);
    const child = cap.open(host('s_child', { id: 's_parent', label: 'explore: look', handBackground: false }));
    expect(child.hooks?.turnBoundary).toBeUndefined();
    expect(child.checkpoints).toBeUndefined();
    const parent = cap.open(host('s_parent'));
    await parent.hooks!.turnBoundary!('before', 't1');
    // (a turn is snapshotted before its first call that may change files: lazy.test.ts)
    await parent.hooks!.beforeChange!();
    expect(parent.checkpoints!.before('t1')).toEqual({ ok: true });
    expect(parent.state!.save()).toEqual({ session: 's_parent' });
    const fork = cap.open(host('s_fork'));
    fork.state!.restore({ session: 's_parent' });
    expect(fork.checkpoints!.before('t1')).toEqual({ ok: true });
    // the fork's tree chain goes on from the parent's head, so its trees stay reachable when the
    // parent's checkpoints are pruned; mutation: adopt() not copying the ref leaves the fork without one
    const store = join(data, 'checkpoints', readdirSync(join(data, 'checkpoints')).find((f) => f.endsWith('.git'))!);
    const head = (id: string): string => readFileSync(join(store, 'refs', 'sessions', id), 'utf8');
    expect(head('s_fork')).toBe(head('s_parent'));
  });
});

// Mutations checked (each fails a test above): treating no diff entry as a removal keeps c.txt and
// gen/ (the first); running git without --git-dir (on the person's repository) adds objects to it (the
// first: count-objects); skipping the outside check overwrites mine.txt (the second); giving git
// process.env passes the key and GIT_DIR (the third); not copying .git/info/exclude makes
// secret.local part of the rewind (the fourth).

describe('the store cap', () => {
  it("prunes the oldest other session's checkpoints first, and that session's /rewind says its turn cannot be restored, and why", async () => {
    const { dir, data } = project();
    // two sessions, each holding a megabyte of its own that nothing compresses (gone from the project since)
    const sessionWith = async (id: string, blob: string): Promise<SessionCheckpoints> => {
      const cp = new SessionCheckpoints(id, dir, data, settings, () => {});
      await cp.boundary('before', 't1');
      writeFileSync(join(dir, blob), randomBytes(1024 * 1024));
      await cp.boundary('after', 't1');
      await cp.boundary('before', 't2');
      rmSync(join(dir, blob));
      await cp.boundary('after', 't2');
      return cp;
    };
    const oldest = await sessionWith('s_old', 'old.bin');
    await sessionWith('s_new', 'new.bin');
    const sessionsDir = readdirSync(join(data, 'checkpoints')).map((f) => join(data, 'checkpoints', f, 'sessions'))[0]!;
    const aged = (Date.now() - 60_000) / 1000;
    utimesSync(join(sessionsDir, 's_old.jsonl'), aged, aged);
    // its objects as old as a session worth pruning has (gc keeps unreachable objects younger than an hour)
    const objects = join(sessionsDir, '..', 'objects');
    const hoursAgo = (Date.now() - 2 * 3600_000) / 1000;
    for (const d of readdirSync(objects).filter((n) => /^[0-9a-f]{2}$/.test(n)))
      for (const f of readdirSync(join(objects, d))) utimesSync(join(objects, d, f), hoursAgo, hoursAgo);
    expect(oldest.before('t2')).toEqual({ ok: true });
    // a third session opens the store under a cap that holds one of the two: the oldest goes
    const third = new SessionCheckpoints('s_third', dir, data, { ...settings, maxStoreMB: 1.5 }, () => {});
    await third.boundary('before', 't1');
    expect(
      readdirSync(sessionsDir)
        .filter((f) => f.endsWith('.jsonl'))
        .sort(),
    ).toEqual(['s_new.jsonl', 's_third.jsonl']);
    const gone = oldest.before('t2');
    expect(gone).toEqual({ ok: false, missing: expect.stringContaining('its checkpoints were pruned: the store was over checkpoints.maxStoreMB') });
    const rewind = await oldest.rewind('t2', 'code', false);
    expect(rewind).toEqual({ missing: expect.stringContaining('its checkpoints were pruned') });
    expect(existsSync(join(dir, 'old.bin'))).toBe(false);
  });
});

// Mutations checked: the untracked folder list without the folders' mtimes (the fast path on
// diff-files alone: later/x.txt is not seen) and without diff-files (base.txt's change is not
// seen); the watch's wait for events already queued removed (base.txt, written just before the
// boundary, is not seen); drop() leaving no .pruned note (the pruned session's /rewind
// says "no checkpoint was taken before it" instead of why); pruning the newest first.
