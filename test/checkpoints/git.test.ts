import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitFailed, git, gitScript, ShadowRepo, tooBroad } from '../../src/checkpoints/git.js';
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
});
