// The shadow git store of one project: a bare repository in the agent's data folder
// (<data>/checkpoints/<project hash>.git) whose work tree is the project. It owns running git
// against it: every call names the store's git dir and the project as its work tree, with a
// private index per session, hooks and fsmonitor off, no signing, no line-ending or filter
// conversion (its info/attributes unsets them for every path), and an environment of a few
// named variables, so no key and no GIT_* of the person's shell reaches git. What it never does:
// run git on the person's own .git (project.ts only reads where it is, for its info/exclude).
import { homeDir, world } from '../runtime/world.js';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { spawn } from 'node:child_process';

/** The variables git may see: where it finds itself, the person's global ignore rules, and a fixed language. */
const PASSED = ['PATH', 'HOME', 'XDG_CONFIG_HOME', 'TMPDIR', 'USER'];

export function gitEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { LC_ALL: 'C', GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
  for (const name of PASSED) {
    const v = world().env[name];
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

/**
 * Runs git; rejects with GitFailed naming the command and git's first error line. Spawned with
 * node's child_process, not execa: a -p round trip snapshots twice and must not load execa
 * (test/e2e/startup.test.ts).
 */
export function git(args: readonly string[], opts: { cwd: string; env?: Record<string, string>; input?: Buffer | string }): Promise<GitRun> {
  return new Promise((done, fail) => {
    const child = spawn('git', [...SAFE, ...args], {
      cwd: opts.cwd,
      env: gitEnv(opts.env),
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => fail(new GitFailed(`git could not be run: ${e.message}`)));
    child.on('close', (code) => {
      if (code === 0) return done({ stdout: Buffer.concat(out) });
      const first = Buffer.concat(err).toString('utf8').trim().split('\n')[0] ?? '';
      fail(new GitFailed(`git ${args.filter((a) => !a.startsWith('--git-dir') && !a.startsWith('--work-tree'))[0] ?? ''} failed: ${first || `exit ${code}`}`));
    });
    if (opts.input !== undefined && child.stdin) {
      child.stdin.on('error', () => {}); // git may exit before reading it all: its exit code tells
      child.stdin.end(opts.input);
    }
  });
}

/** What a shell run of git steps gave on its two outputs (file descriptors 3 and 4). */
export interface ScriptRun {
  out3: Buffer;
  out4: Buffer;
}

/**
 * Runs a few git steps in one `/bin/sh` (one fork of this process, which is large: the shell forks
 * git for each step). `body` calls `g` for git on the store with the project as its work tree
 * (the SAFE settings, `$CP_D` the store, `$CP_W` the project) and writes what node reads to
 * descriptors 3 and 4; a failing step exits with a code of 10 or more, named in `steps` (its
 * code minus 10), and rejects with GitFailed naming it and git's first error line.
 */
export function gitScript(body: string, steps: readonly string[], opts: { gitDir: string; root: string; env?: Record<string, string> }): Promise<ScriptRun> {
  const safe = SAFE.map((a) => `'${a}'`).join(' ');
  const script = `g() { git ${safe} --git-dir="$CP_D" --work-tree="$CP_W" "$@"; }\n${body}`;
  return new Promise((done, fail) => {
    const child = spawn('/bin/sh', ['-c', script], {
      cwd: opts.root,
      env: gitEnv({ ...opts.env, CP_D: opts.gitDir, CP_W: opts.root }),
      stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
    });
    const outs: Buffer[][] = [[], [], []];
    for (const fd of [2, 3, 4]) (child.stdio[fd] as NodeJS.ReadableStream | null)?.on('data', (b: Buffer) => outs[fd - 2]!.push(b));
    child.on('error', (e) => fail(new GitFailed(`git could not be run: ${e.message}`)));
    child.on('close', (code) => {
      if (code === 0) return done({ out3: Buffer.concat(outs[1]!), out4: Buffer.concat(outs[2]!) });
      const first = Buffer.concat(outs[0]!).toString('utf8').trim().split('\n')[0] ?? '';
      fail(new GitFailed(`git ${steps[(code ?? 0) - 10] ?? ''} failed: ${first || `exit ${code}`}`));
    });
  });
}

/** Why a project root cannot be snapshotted (the filesystem's root, or the home folder: far too broad), or undefined. */
export function tooBroad(root: string): string | undefined {
  if (resolve(root) === resolve('/')) return 'the project is the filesystem root';
  if (resolve(root) === resolve(homeDir())) return 'the project is the home folder';
  return undefined;
}

/** A bare repository's configuration, as `git init --bare` writes it. */
const BARE_CONFIG = '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n';

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

  /**
   * Creates the store on first use; sets its ignore rules (the project's .git/info/exclude, and the
   * data folder when inside the project). No git runs: a new store is written as `git init --bare
   * --template=` writes one (HEAD, config, objects/, refs/: repository format 0), HEAD last.
   */
  async open(): Promise<void> {
    if (!existsSync(join(this.gitDir, 'HEAD'))) {
      for (const dir of ['objects/info', 'objects/pack', 'refs/heads', 'refs/tags']) mkdirSync(join(this.gitDir, dir), { recursive: true });
      writeFileSync(join(this.gitDir, 'config'), BARE_CONFIG);
      writeFileSync(join(this.gitDir, 'project'), `${this.root}\n`);
      writeFileSync(join(this.gitDir, 'HEAD'), 'ref: refs/heads/main\n');
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

  /** Runs git steps in one shell on the store (gitScript), with `index` as its index. */
  script(body: string, steps: readonly string[], index: string, env: Record<string, string> = {}): Promise<ScriptRun> {
    return gitScript(body, steps, { gitDir: this.gitDir, root: this.root, env: { ...env, GIT_INDEX_FILE: index } });
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
