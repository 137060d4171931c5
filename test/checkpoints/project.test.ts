import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findProject } from '../../src/checkpoints/project.js';
import { tempDir } from '../tempDirs.js';
import { gitIn, seedRepository } from './repository.js';

// Which project a session's checkpoints cover (src/checkpoints/project.ts), read without git: the
// repository the folder is in (a worktree's too) and its info/exclude; outside one, the folder.

describe('findProject', () => {
  it("is the repository's top level from any folder in it, with its .git/info/exclude; outside a repository, the folder itself", () => {
    const root = realpathSync(tempDir('agent-project-'));
    const dir = join(root, 'repo');
    mkdirSync(join(dir, 'src', 'deep'), { recursive: true });
    gitIn(dir, 'init', '-q');
    expect(findProject(join(dir, 'src', 'deep'))).toEqual({ root: dir, exclude: join(dir, '.git', 'info', 'exclude') });
    expect(findProject(dir)).toEqual({ root: dir, exclude: join(dir, '.git', 'info', 'exclude') });
    const plain = join(root, 'plain');
    mkdirSync(join(plain, 'sub'), { recursive: true });
    // (the temp folder is in no repository: the walk reaches the filesystem's root)
    expect(findProject(join(plain, 'sub'))).toEqual({ root: join(plain, 'sub') });
  });

  it("in a worktree (.git a file naming its gitdir), the exclude is the main repository's, read through commondir", () => {
    const root = realpathSync(tempDir('agent-project-wt-'));
    const main = join(root, 'main');
    mkdirSync(main);
    seedRepository(main, { ignore: '', files: { 'a.txt': 'a\n' }, stash: ['a.txt', 'b\n'] });
    const wt = join(root, 'wt');
    gitIn(main, 'worktree', 'add', '-q', wt);
    // mutation: commondir's text not trimmed names a folder ending in a newline
    expect(findProject(join(wt))).toEqual({ root: wt, exclude: join(main, '.git', 'info', 'exclude') });
    // a .git file naming a gitdir without commondir (a submodule's): that gitdir's own exclude
    const sub = join(root, 'sub');
    mkdirSync(sub);
    mkdirSync(join(root, 'modules', 'sub'), { recursive: true });
    writeFileSync(join(sub, '.git'), 'gitdir: ../modules/sub\n');
    expect(findProject(sub)).toEqual({ root: sub, exclude: join(root, 'modules', 'sub', 'info', 'exclude') });
    // white space after the gitdir is no part of it (mutation: its text untrimmed names 'sub ')
    writeFileSync(join(sub, '.git'), 'gitdir: ../modules/sub \t\n');
    expect(findProject(sub)).toEqual({ root: sub, exclude: join(root, 'modules', 'sub', 'info', 'exclude') });
    // a .git file that names none: the project still, with no exclude
    writeFileSync(join(sub, '.git'), 'not a gitdir line\n');
    expect(findProject(sub)).toEqual({ root: sub });
  });
});
