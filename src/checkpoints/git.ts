// The shadow git store of one project: a bare repository in the agent's data folder
// (<data>/checkpoints/<project hash>.git) whose work tree is the project. It owns running git
// against it: every call names the store's git dir and the project as its work tree, with a
// private index per session, hooks and fsmonitor off, no signing, no line-ending or filter
// conversion (its info/attributes unsets them for every path), and an environment of a few
// named variables, so no key and no GIT_* of the person's shell reaches git. What it never does:
// run git on the person's own .git (project.ts only reads where it is, for its info/exclude).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { execa } from 'execa';

/** The variables git may see: where it finds itself, the person's global ignore rules, and a fixed language. */
const PASSED = ['PATH', 'HOME', 'XDG_CONFIG_HOME', 'TMPDIR', 'USER'];

export function gitEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { LC_ALL: 'C', GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
  for (const name of PASSED) {
    const v = process.env[name];
    if (v !== undefined) env[name] = v;
  }
  return { ...env, ...extra };
}

/** Settings that keep the person's and the project's configuration from running code or changing bytes. */
const SAFE = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.autocrlf=false',
  '-c',
  'core.safecrlf=false',
  '-c',
  'core.symlinks=true',
  '-c',
  'commit.gpgSign=false',
  '-c',
  'gc.auto=0',
  '-c',
  'core.untrackedCache=true',
  '-c',
  'advice.addEmbeddedRepo=false',
];

/** Every attribute that would convert a file's bytes on the way in or out, unset for every path (info/attributes wins over .gitattributes). */
const NO_CONVERSION = '* -text -eol -crlf -filter -ident -working-tree-encoding\n';

export class GitFailed extends Error {
  override readonly name = 'GitFailed';
}

export interface GitRun {
  stdout: Buffer;
}

/** Runs git; rejects with GitFailed naming the command and git's first error line. */
export async function git(args: readonly string[], opts: { cwd: string; env?: Record<string, string>; input?: Buffer | string }): Promise<GitRun> {
  const r = await execa('git', [...SAFE, ...args], {
    cwd: opts.cwd,
    env: gitEnv(opts.env),
    extendEnv: false,
    encoding: 'buffer',
    reject: false,
    stdin: opts.input === undefined ? 'ignore' : 'pipe',
    ...(opts.input !== undefined ? { input: opts.input } : {}),
    timeout: 600_000,
  });
  if (r.exitCode !== 0 || r.failed) {
    const err =
      Buffer.from(r.stderr ?? '')
        .toString('utf8')
        .trim()
        .split('\n')[0] ?? '';
    throw new GitFailed(`git ${args.slice(0, 2).join(' ')} failed: ${err || (r.originalMessage ?? `exit ${r.exitCode}`)}`);
  }
  return { stdout: Buffer.from(r.stdout ?? '') };
}

/** Why a project root cannot be snapshotted (the filesystem's root, or the home folder: far too broad), or undefined. */
export function tooBroad(root: string): string | undefined {
  if (resolve(root) === resolve('/')) return 'the project is the filesystem root';
  if (resolve(root) === resolve(homedir())) return 'the project is the home folder';
  return undefined;
}

/** One project's shadow store. */
export class ShadowRepo {
  readonly gitDir: string;

  constructor(
    readonly dataDir: string,
    readonly root: string,
    private readonly personExclude: string | undefined,
  ) {
    const hash = createHash('sha256').update(root).digest('hex').slice(0, 16);
    this.gitDir = join(dataDir, 'checkpoints', `${hash}.git`);
  }

  /** Creates the store on first use; sets its ignore rules (the project's .git/info/exclude, and the data folder when inside the project). */
  async open(): Promise<void> {
    if (!existsSync(join(this.gitDir, 'HEAD'))) {
      mkdirSync(this.gitDir, { recursive: true });
      await git(['init', '--bare', '--quiet', this.gitDir], { cwd: this.dataDir });
      writeFileSync(join(this.gitDir, 'project'), `${this.root}\n`);
    }
    mkdirSync(join(this.gitDir, 'info'), { recursive: true });
    writeIfChanged(join(this.gitDir, 'info', 'attributes'), NO_CONVERSION);
    writeIfChanged(join(this.gitDir, 'info', 'exclude'), this.excludes());
  }

  private excludes(): string {
    const lines: string[] = [];
    if (this.personExclude && existsSync(this.personExclude)) lines.push(readFileSync(this.personExclude, 'utf8'));
    const inside = relative(this.root, resolve(this.dataDir));
    if (inside !== '' && !inside.startsWith('..') && !inside.startsWith(sep)) lines.push(`/${inside.split(sep).join('/')}/`);
    if (inside === '') lines.push('/checkpoints/');
    return `${lines.join('\n')}\n`;
  }

  /** Runs git on the store with the project as its work tree and `index` as its index. */
  run(args: readonly string[], index: string, input?: Buffer | string, env: Record<string, string> = {}): Promise<GitRun> {
    return git([`--git-dir=${this.gitDir}`, `--work-tree=${this.root}`, ...args], {
      cwd: this.root,
      env: { ...env, GIT_INDEX_FILE: index },
      ...(input !== undefined ? { input } : {}),
    });
  }
}

function writeIfChanged(path: string, text: string): void {
  try {
    if (readFileSync(path, 'utf8') === text) return;
  } catch {
    // not there yet
  }
  writeFileSync(path, text);
}
