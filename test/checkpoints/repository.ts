// A person's repository for the checkpoints' tests (test/checkpoints/ and test/e2e/checkpoints.test.ts):
// made with a commit and a stash, and read back as a rewind must leave it.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const gitIn = (dir: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' });

/** `dir` made a repository: `.gitignore` and `files` committed, then `stash` (a file and its text) stashed. */
export function seedRepository(dir: string, o: { ignore: string; files: Record<string, string>; stash: [string, string] }): void {
  gitIn(dir, 'init', '-q');
  writeFileSync(join(dir, '.gitignore'), o.ignore);
  for (const [name, text] of Object.entries(o.files)) writeFileSync(join(dir, name), text);
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-qm', 'start');
  writeFileSync(join(dir, o.stash[0]), o.stash[1]);
  gitIn(dir, 'stash', '-q');
}

/** What of the person's repository a rewind must never change: the index's bytes (git must not have written it), HEAD, refs, stash, objects. */
export function repositoryState(dir: string) {
  return {
    index: readFileSync(join(dir, '.git', 'index')).toString('base64'),
    head: gitIn(dir, 'rev-parse', 'HEAD'),
    refs: gitIn(dir, 'for-each-ref'),
    stash: gitIn(dir, 'stash', 'list'),
    objects: gitIn(dir, 'count-objects', '-v'),
  };
}
