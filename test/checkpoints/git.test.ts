import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitFailed, git, gitEnv, gitScript, ShadowRepo, tooBroad } from '../../src/checkpoints/git.js';
import { tempDir } from '../tempDirs.js';

// Running git against the shadow store (src/checkpoints/git.ts): a shell of git steps with its two
// outputs, the step that failed named, and the store written without git.

describe('the shadow store', () => {
  it("a shell of steps gives what it wrote to descriptors 3 and 4 apart, and a failing step is named with git's first error line", async () => {
    const root = tempDir('agent-git-');
    const repo = new ShadowRepo(join(root, 'data'), root, undefined);
    await repo.open();
    const run = await gitScript('printf three >&3\nprintf four >&4\nprintf err >&2\n', [], { gitDir: repo.gitDir, root });
    expect([run.out3.toString(), run.out4.toString()]).toEqual(['three', 'four']);
    const failing = gitScript('g rev-parse --verify --quiet HEAD >&3 || exit 10\ng cat-file -t 0000000 >&3 2>&2 || exit 11\n', ['rev-parse', 'cat-file'], {
      gitDir: repo.gitDir,
      root,
    });
    await expect(failing).rejects.toThrow(GitFailed);
    await expect(failing).rejects.toThrow(/^git rev-parse failed: exit 10$/);
    const second = gitScript('g cat-file -t 0000000 || exit 11\n', ['rev-parse', 'cat-file'], { gitDir: repo.gitDir, root });
    await expect(second).rejects.toThrow(/^git cat-file failed: fatal: /);
  });

  it('with no git to be found, a git step rejects with GitFailed saying git could not be run (not an uncaught error)', async () => {
    const root = tempDir('agent-git-none-');
    const path = process.env['PATH'];
    process.env['PATH'] = '/nonexistent';
    try {
      // mutation: no 'error' listener on the child leaves the spawn failure uncaught and the promise pending
      await expect(git(['version'], { cwd: root })).rejects.toThrow(new GitFailed('git could not be run: spawn git ENOENT'));
    } finally {
      process.env['PATH'] = path;
    }
    // found again: it runs, and a failing command names itself and git's first error line
    expect((await git(['version'], { cwd: root })).stdout.toString('utf8')).toMatch(/^git version /);
    await expect(git(['rev-parse', '--verify', 'HEAD'], { cwd: root })).rejects.toThrow(/^git rev-parse failed: fatal: /);
  });

  it('is written as git init --bare writes one, without git; its excludes name the data folder inside the project', async () => {
    const root = tempDir('agent-git-open-');
    const project = join(root, 'project');
    mkdirSync(project);
    const inside = new ShadowRepo(join(project, '.data', 'agent'), project, undefined);
    await inside.open();
    expect(readFileSync(join(inside.gitDir, 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
    expect(readFileSync(join(inside.gitDir, 'project'), 'utf8')).toBe(`${project}\n`);
    expect(readFileSync(join(inside.gitDir, 'info', 'exclude'), 'utf8')).toBe('/.data/agent/\n');
    const same = new ShadowRepo(project, project, undefined);
    await same.open();
    expect(readFileSync(join(same.gitDir, 'info', 'exclude'), 'utf8')).toBe('/checkpoints/\n');
    const outside = new ShadowRepo(join(root, 'data'), project, undefined);
    await outside.open();
    expect(readFileSync(join(outside.gitDir, 'info', 'exclude'), 'utf8')).toBe('\n');
    expect(tooBroad('/')).toBe('the project is the filesystem root');
    expect(tooBroad(project)).toBeUndefined();
  });

  it('git sees the named variables the shell has (PATH, HOME…) and no name the shell lacks', () => {
    const had = process.env['XDG_CONFIG_HOME'];
    delete process.env['XDG_CONFIG_HOME'];
    try {
      const env = gitEnv({ GIT_INDEX_FILE: '/x/index' });
      // mutation: the test of a variable being set flipped passes none of the set ones (git without PATH or HOME)
      expect([env['PATH'], env['HOME'], env['GIT_INDEX_FILE'], env['LC_ALL']]).toEqual([process.env['PATH'], process.env['HOME'], '/x/index', 'C']);
      expect('XDG_CONFIG_HOME' in env).toBe(false);
    } finally {
      if (had !== undefined) process.env['XDG_CONFIG_HOME'] = had;
    }
  });

  it('a git or a shell that cannot be started in the folder rejects with GitFailed (no uncaught error event)', async () => {
    const gone = join(tempDir('agent-git-gone-'), 'gone');
    // a working folder that does not exist: spawn fails with ENOENT, reported as an 'error' event
    await expect(git(['version'], { cwd: gone })).rejects.toThrow(new GitFailed('git could not be run: spawn git ENOENT'));
    await expect(gitScript('exit 0', [], { gitDir: join(gone, 'x.git'), root: gone })).rejects.toThrow(
      new GitFailed('git could not be run: spawn /bin/sh ENOENT'),
    );
  });

  it("the store of a project is found again under the same name by every version: the first 16 hex digits of the root's sha-256", () => {
    const project = '/some/project';
    const name = createHash('sha256').update(project).digest('hex').slice(0, 16);
    // mutation: a longer or shorter name leaves every store written before unfound (and unpruned)
    expect(new ShadowRepo('/data', project, undefined).gitDir).toBe(join('/data', 'checkpoints', `${name}.git`));
  });

  it('is a bare repository to git (its config as git init --bare writes it), and an exclude file the repository lacks is no error', async () => {
    const root = tempDir('agent-git-bare-');
    const project = join(root, 'project');
    mkdirSync(project);
    // (a repository whose .git/info/exclude was never made: the person's exclude names a missing file)
    const repo = new ShadowRepo(join(root, 'data'), project, join(project, '.git', 'info', 'exclude'));
    await repo.open();
    expect(readFileSync(join(repo.gitDir, 'config'), 'utf8')).toBe('[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n');
    expect(execFileSync('git', [`--git-dir=${repo.gitDir}`, 'rev-parse', '--is-bare-repository'], { encoding: 'utf8' }).trim()).toBe('true');
    expect(readFileSync(join(repo.gitDir, 'info', 'exclude'), 'utf8')).toBe('\n');
    expect(readFileSync(join(repo.gitDir, 'info', 'attributes'), 'utf8')).toBe('* -text -eol -crlf -filter -ident -working-tree-encoding\n');
  });

  it('opened again with the same rules, leaves its info files unwritten (git keys its untracked cache on their stat)', async () => {
    const root = tempDir('agent-git-again-');
    const repo = new ShadowRepo(join(root, 'data'), root, undefined);
    await repo.open();
    // whole seconds: the files' times hold them exactly
    const past = new Date(Math.floor(Date.now() / 1000 - 3600) * 1000);
    for (const f of ['exclude', 'attributes']) utimesSync(join(repo.gitDir, 'info', f), past, past);
    await new ShadowRepo(join(root, 'data'), root, undefined).open();
    // mutation: written whenever the text is the same (or whenever it differs) moves the mtime
    for (const f of ['exclude', 'attributes']) expect(statSync(join(repo.gitDir, 'info', f)).mtimeMs).toBe(past.getTime());
  });
});
