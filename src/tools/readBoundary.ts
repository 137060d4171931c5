import { homeDir } from '../runtime/world.js';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { PermissionMode } from '../config/schema.js';
import { isInside } from './paths.js';
import type { Approver } from './permissions.js';

// Where the read-only tools (FileRead, Grep, Glob) may look without asking: the working
// directory and its repository, plus permissions.readPaths and --add-dir. Outside, the person
// is asked (print mode refuses unless --permission-mode allow or one of those allows it).
// Secret stores (~/.ssh, ~/.aws, private keys…) are refused outright; a .env file outside the
// project is always asked about.

export type ReadCheck = { kind: 'inside' } | { kind: 'outside'; path: string; sensitive: boolean } | { kind: 'denied'; path: string; why: string };

export type ReadAuthorization = { ok: true } | { ok: false; message: string };

/** Directories under the home directory that hold credentials. */
const SECRET_HOME_DIRS = ['.ssh', '.aws', '.gnupg', '.azure', '.kube', '.docker', '.password-store', join('.config', 'gcloud'), join('.config', 'gh')];
/** Credential files under the home directory. */
const SECRET_HOME_FILES = ['.netrc', '.pgpass', '.git-credentials', '.npmrc', '.pypirc', join('.cargo', 'credentials'), join('.cargo', 'credentials.toml')];
const SECRET_SYSTEM = ['/etc/shadow', '/etc/gshadow', '/etc/sudoers', '/etc/sudoers.d', '/etc/ssh', '/etc/ssl/private'];
/** Private SSH keys, refused wherever they are. */
const PRIVATE_KEY_NAMES = /^id_(rsa|dsa|ecdsa|ed25519)(_sk)?$/;
/** Key and certificate stores, refused outside the project. */
const KEY_FILE = /\.(pem|key|p12|pfx|jks|keystore|ppk|asc|gpg)$/i;
const DOTENV = /^\.env(\..+)?$/;

/** The paths a read-only tool call will read, by tool; undefined for a tool that reads no files. */
export function readTargets(toolName: string, input: unknown, cwd: string, home = homeDir()): string[] | undefined {
  const resolvePath = (base: string, p: string): string => (p === '~' ? home : p.startsWith('~/') ? join(home, p.slice(2)) : resolve(base, p));
  const o = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
  switch (toolName) {
    case 'FileRead':
      return str(o.path) ? [resolvePath(cwd, str(o.path)!)] : undefined;
    case 'Grep':
      return [resolvePath(cwd, str(o.path) ?? '.')];
    case 'Glob': {
      const root = resolvePath(cwd, str(o.path) ?? '.');
      // the literal directories a pattern starts with ("../../etc/*", "/var/log/**") move the search
      const pattern = str(o.pattern) ?? '';
      const literal = pattern.split('/').findIndex((part) => /[*?[\]{}!]/.test(part));
      const fixed = literal === -1 ? dirname(pattern) : pattern.split('/').slice(0, literal).join('/');
      return [fixed ? resolvePath(root, fixed) : root];
    }
    default:
      return undefined;
  }
}

/** The real path (symlinks resolved) of `p`, or of its nearest existing ancestor joined with the rest. */
function realPath(p: string): string {
  let existing = p;
  const rest: string[] = [];
  while (!existsSync(existing) && dirname(existing) !== existing) {
    rest.unshift(basename(existing));
    existing = dirname(existing);
  }
  try {
    return join(realpathSync(existing), ...rest);
  } catch {
    return p;
  }
}

/** The directory a session grant for `path` covers: the directory itself (Grep, Glob), or the one holding the file (FileRead). */
function grantScope(path: string): string {
  try {
    if (statSync(path).isDirectory()) return path;
  } catch {
    // not there (yet): its parent
  }
  return dirname(path);
}

/** The nearest directory from `cwd` up that holds .git, or undefined. */
export function repoRoot(cwd: string): string | undefined {
  for (let d = resolve(cwd); ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return d;
    if (dirname(d) === d) return undefined;
  }
}

export interface ReadBoundaryOptions {
  cwd: string;
  /** permissions.readPaths and --add-dir, as given (relative to cwd, ~ for home). */
  readPaths: readonly string[];
  home?: string;
}

export class ReadBoundary {
  private readonly project: string[];
  private readonly allowed: string[];
  private readonly home: string;
  /**
   * Directories outside the project that the person let a tool read for the rest of the
   * session ("Allow FileRead in <dir> for this session"). Never a .env file there (always
   * asked) nor a secret store (always refused): those are checked before a grant counts.
   */
  private readonly sessionDirs = new Map<string, string[]>();

  constructor(private readonly opts: ReadBoundaryOptions) {
    this.home = realPath(opts.home ?? homeDir());
    const cwd = realPath(resolve(opts.cwd));
    const repo = repoRoot(cwd);
    this.project = repo && repo !== cwd ? [cwd, repo] : [cwd];
    this.allowed = opts.readPaths.map((p) => realPath(p.startsWith('~/') ? join(this.home, p.slice(2)) : resolve(cwd, p)));
  }

  check(toolName: string, input: unknown): ReadCheck {
    const targets = readTargets(toolName, input, this.opts.cwd, this.opts.home);
    if (!targets) return { kind: 'inside' };
    let outside: ReadCheck = { kind: 'inside' };
    for (const target of targets) {
      const path = realPath(target);
      const inProject = this.project.some((d) => isInside(d, path));
      const why = this.secret(path, inProject);
      // an explicit readPaths / --add-dir entry inside the secret area is the person's own choice
      if (why && !this.allowed.some((a) => isInside(a, path) && this.secret(a, false) !== undefined)) return { kind: 'denied', path, why };
      if (inProject) continue;
      const sensitive = DOTENV.test(basename(path));
      if (this.allowed.some((a) => isInside(a, path))) continue;
      outside = { kind: 'outside', path, sensitive };
    }
    return outside;
  }

  /** Why `path` is a secret store, or undefined. */
  private secret(path: string, inProject: boolean): string | undefined {
    const name = basename(path);
    if (PRIVATE_KEY_NAMES.test(name)) return 'is a private SSH key';
    for (const d of SECRET_HOME_DIRS) if (isInside(join(this.home, d), path)) return `is in ~/${d}, which holds credentials`;
    for (const f of SECRET_HOME_FILES) if (path === join(this.home, f)) return `is ~/${f}, which holds credentials`;
    for (const s of SECRET_SYSTEM) if (isInside(s, path)) return 'holds system credentials';
    if (!inProject && KEY_FILE.test(name)) return 'is a key or certificate file';
    return undefined;
  }

  /**
   * The boundary's verdict on a read-only call, asking the person where needed; undefined when
   * the call stays inside (the permission policy decides then).
   */
  async authorize(
    call: { toolName: string; toolUseId: string; input: unknown; summary: string },
    mode: PermissionMode,
    approver: Approver | undefined,
    signal: AbortSignal,
  ): Promise<ReadAuthorization | undefined> {
    const check = this.check(call.toolName, call.input);
    if (check.kind === 'inside') return undefined;
    const shown = this.shown(check.path);
    if (check.kind === 'denied') {
      return {
        ok: false,
        message: `${call.toolName} refused: ${shown} ${check.why}, and secrets are never read. Do not try to read it another way; if the user really needs it, they will share what is needed.`,
      };
    }
    if (!check.sensitive && (this.sessionDirs.get(call.toolName) ?? []).some((d) => isInside(d, check.path))) return { ok: true };
    if (mode === 'allow' && !check.sensitive) return { ok: true };
    const what = check.sensitive ? `${shown} is an environment file outside the project` : `${shown} is outside the working directory`;
    if (mode === 'deny') return { ok: false, message: `${call.toolName} refused: ${what} (permissions mode "deny"). Stay inside the project.` };
    if (!approver) {
      return {
        ok: false,
        message:
          `${call.toolName} refused: ${what}, and nobody can approve reading it in non-interactive mode. ` +
          `The user can allow it with --add-dir <dir>, permissions.readPaths in .agentrc${check.sensitive ? '' : ', or --permission-mode allow'}.`,
      };
    }
    const scope = grantScope(check.path);
    const answer = await approver(
      {
        toolName: call.toolName,
        toolUseId: call.toolUseId,
        input: call.input,
        summary: `${call.summary}  (${what})`,
        // an environment file outside is asked about every time: no session-wide answer
        ...(check.sensitive ? { onceOnly: true } : { sessionScope: this.shown(scope).replace(/\/?$/, '/') }),
      },
      signal,
    );
    if (answer.kind === 'deny') return { ok: false, message: `The user denied reading ${shown}${answer.note ? ` and said: ${answer.note}` : '.'}` };
    if (answer.kind === 'allow_tool' && !check.sensitive) this.sessionDirs.set(call.toolName, [...(this.sessionDirs.get(call.toolName) ?? []), scope]);
    return { ok: true };
  }

  private shown(path: string): string {
    return isInside(this.home, path) ? `~/${relative(this.home, path)}` : path;
  }
}
