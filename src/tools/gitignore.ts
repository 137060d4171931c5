// .gitignore handling shared by Grep and Glob: the rules of every .gitignore from the
// ignore root (the repository root) down, applied the way git applies them, and a file
// listing (fast-glob) that never descends into ignored directories.
import { readdir as fsReaddir, lstatSync, type Dirent } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type fg from 'fast-glob';
import ignore, { type Ignore } from 'ignore';
import { isInside, toSlash } from './paths.js';

interface Level {
  base: string;
  ig: Ignore;
}

const exists = async (p: string): Promise<boolean> =>
  stat(p).then(
    () => true,
    () => false,
  );

/**
 * Where .gitignore files start to count for a search in `dir`: the repository root
 * (nearest ancestor holding .git); outside a repository, cwd when the search is inside
 * it, else the searched directory itself.
 */
export async function findIgnoreRoot(dir: string, cwd: string): Promise<string> {
  for (let d = dir; ; d = dirname(d)) {
    if (await exists(join(d, '.git'))) return d;
    if (dirname(d) === d) break;
  }
  return isInside(cwd, dir) ? cwd : dir;
}

/** True when some directory above `root` holds a .gitignore (which these rules leave out). */
export async function gitignoreAbove(root: string): Promise<boolean> {
  for (let d = dirname(root); ; d = dirname(d)) {
    if (await exists(join(d, '.gitignore'))) return true;
    if (dirname(d) === d) return false;
  }
}

export class GitignoreRules {
  private readonly chains = new Map<string, Promise<Level[]>>();
  private readonly dirVerdicts = new Map<string, Promise<boolean>>();

  constructor(readonly root: string) {}

  static async forSearch(dir: string, cwd: string): Promise<GitignoreRules> {
    return new GitignoreRules(await findIgnoreRoot(dir, cwd));
  }

  /** The rules that apply inside `dir`: one level per .gitignore from the root down to `dir`. */
  chain(dir: string): Promise<Level[]> {
    let c = this.chains.get(dir);
    if (!c) {
      c = (async () => {
        const parent = dir === this.root || !isInside(this.root, dir) ? [] : await this.chain(dirname(dir));
        const own = await loadGitignore(dir);
        return own ? [...parent, { base: dir, ig: own }] : parent;
      })();
      this.chains.set(dir, c);
    }
    return c;
  }

  /** Whether an entry of a directory is ignored, given that directory's chain. */
  static matches(chain: Level[], abs: string, isDir: boolean): boolean {
    let ignored = false;
    for (const { base, ig } of chain) {
      const rel = toSlash(relative(base, abs));
      if (rel === '' || rel === '..' || rel.startsWith('../')) continue;
      const r = ig.test(isDir ? `${rel}/` : rel);
      if (r.ignored) ignored = true;
      else if (r.unignored) ignored = false;
    }
    return ignored;
  }

  /** Whether a path is ignored, its directories included (git never looks inside an ignored directory). */
  async isIgnored(abs: string, isDir: boolean): Promise<boolean> {
    if (!isInside(this.root, abs) || abs === this.root) return false;
    const dir = dirname(abs);
    if (isGitDir(abs) || (await this.dirIgnored(dir))) return true;
    return GitignoreRules.matches(await this.chain(dir), abs, isDir);
  }

  private dirIgnored(dir: string): Promise<boolean> {
    if (dir === this.root || !isInside(this.root, dir)) return Promise.resolve(false);
    let v = this.dirVerdicts.get(dir);
    if (!v) {
      v = this.isIgnored(dir, true);
      this.dirVerdicts.set(dir, v);
    }
    return v;
  }

  /** A readdir for fast-glob that leaves ignored entries out, so ignored trees are never walked. */
  readdirAdapter(): fg.FileSystemAdapter['readdir'] {
    const readdir = (dir: string, a: unknown, b?: unknown): void => {
      const callback = (typeof a === 'function' ? a : b) as (err: NodeJS.ErrnoException | null, entries?: Array<string | Dirent>) => void;
      const options = typeof a === 'function' ? undefined : (a as { withFileTypes?: boolean } | undefined);
      const done = (err: NodeJS.ErrnoException | null, entries?: Array<string | Dirent>): void => {
        if (err || !entries) return callback(err);
        this.chain(dir).then(
          (chain) =>
            callback(
              null,
              entries.filter((e) => {
                const name = typeof e === 'string' ? e : e.name;
                if (name === '.git') return false;
                const abs = join(dir, name);
                const isDir = typeof e === 'string' ? isDirectory(abs) : e.isDirectory();
                return !GitignoreRules.matches(chain, abs, isDir);
              }),
            ),
          (e: NodeJS.ErrnoException) => callback(e),
        );
      };
      if (options?.withFileTypes) fsReaddir(dir, { withFileTypes: true }, done);
      else fsReaddir(dir, done);
    };
    return readdir as unknown as fg.FileSystemAdapter['readdir'];
  }
}

const isGitDir = (abs: string): boolean => abs.split(/[\\/]/).includes('.git');

function isDirectory(abs: string): boolean {
  try {
    return lstatSync(abs).isDirectory();
  } catch {
    return false;
  }
}

async function loadGitignore(dir: string): Promise<Ignore | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, '.gitignore'), 'utf8');
  } catch {
    return undefined;
  }
  return ignore({ allowRelativePaths: true }).add(text);
}

export interface ListOptions {
  /** Directory the patterns are relative to. */
  root: string;
  patterns: string[];
  rules: GitignoreRules;
  signal: AbortSignal;
}

/**
 * Files under `root` matching the fast-glob patterns, absolute, minus what .gitignore
 * excludes and minus .git/. Dotfiles included; symbolic links are not followed.
 */
export async function listFiles(o: ListOptions): Promise<string[]> {
  const { default: fg } = await import('fast-glob');
  const stream = fg.stream(o.patterns, {
    cwd: o.root,
    absolute: true,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    suppressErrors: true,
    ignore: ['**/.git', '**/.git/**'],
    fs: { readdir: o.rules.readdirAdapter() },
  });
  const found: string[] = [];
  const onAbort = (): void => {
    (stream as NodeJS.ReadableStream & { destroy(): void }).destroy();
  };
  o.signal.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const entry of stream) found.push(String(entry));
  } catch (e) {
    if (!o.signal.aborted) throw e;
  } finally {
    o.signal.removeEventListener('abort', onAbort);
  }
  // fast-glob checks static paths without reading their directories: filter everything once more
  const keep = await Promise.all(found.map((f) => o.rules.isIgnored(f, false).then((ig) => !ig)));
  return found.filter((_, i) => keep[i]);
}
