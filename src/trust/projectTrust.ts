// What the person approved to run from a project's own files. A cloned repository can carry
// code that runs by itself (MCP servers in .mcp.json, hooks in .agentrc); none of it runs until
// the person approves it once for that project. An approval names the project directory, the
// kind of thing (an MCP server, the hooks) and a fingerprint of exactly what would run: change
// the command, its arguments or environment and the approval no longer matches, so a pull that
// edits a server's command asks again. Approvals live in one JSON file private to the person
// ($XDG_CONFIG_HOME/agent/trust.json, else ~/.config/agent/trust.json); this module owns that
// file and nothing else. It never asks the person: the front ends do, and call approve().

import { homeDir, world } from '../runtime/world.js';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** What kind of project code an approval covers. */
export type TrustKind = 'mcp' | 'hooks' | 'skills';

/** One thing that would run: where it comes from and a fingerprint of exactly what runs. */
export interface TrustSubject {
  kind: TrustKind;
  /** The project directory whose files carry it (resolved to an absolute path). */
  projectDir: string;
  /** The name the person sees: the server's name, or "hooks". */
  name: string;
  /** fingerprintOf(what would run). */
  fingerprint: string;
}

interface TrustEntry {
  kind: TrustKind;
  projectDir: string;
  name: string;
  fingerprint: string;
  /** epoch milliseconds */
  approvedAt: number;
}

interface TrustFile {
  version: 1;
  approvals: TrustEntry[];
}

/** `$XDG_CONFIG_HOME/agent/trust.json`, else `~/.config/agent/trust.json`. */
export function trustFilePath(env: NodeJS.ProcessEnv = world().env, home = homeDir()): string {
  const xdg = env['XDG_CONFIG_HOME'];
  return join(xdg?.startsWith('/') ? xdg : join(home, '.config'), 'agent', 'trust.json');
}

/** Canonical JSON (object keys sorted at every depth), so the same config always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A fingerprint of what would run (a server's config, the hooks' config): sha256 of its canonical JSON. */
export function fingerprintOf(value: unknown): string {
  return createHash('sha256').update(canonical(value)).digest('hex');
}

/** The file could not be read as approvals: named, so the person can fix or remove it. */
export class TrustFileError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'TrustFileError';
  }
}

function parse(file: string, text: string): TrustFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new TrustFileError(file, `not valid JSON (${(err as Error).message})`);
  }
  const approvals = (raw as { approvals?: unknown } | null)?.approvals;
  if (!Array.isArray(approvals)) throw new TrustFileError(file, 'field "approvals" must be an array');
  const good: TrustEntry[] = [];
  for (const [i, a] of approvals.entries()) {
    const e = a as Partial<TrustEntry> | null;
    const ok =
      e !== null &&
      (e.kind === 'mcp' || e.kind === 'hooks' || e.kind === 'skills') &&
      typeof e.projectDir === 'string' &&
      typeof e.name === 'string' &&
      typeof e.fingerprint === 'string' &&
      typeof e.approvedAt === 'number';
    if (!ok) throw new TrustFileError(file, `field "approvals[${i}]" is not an approval ({kind, projectDir, name, fingerprint, approvedAt})`);
    good.push(e as TrustEntry);
  }
  return { version: 1, approvals: good };
}

const same = (e: TrustEntry, s: Pick<TrustSubject, 'kind' | 'projectDir' | 'name'>): boolean =>
  e.kind === s.kind && e.projectDir === resolve(s.projectDir) && e.name === s.name;

/** The person's approvals, read from and written to one file (read again on every question: another process may have approved). */
export class ProjectTrust {
  constructor(readonly file: string = trustFilePath()) {}

  private read(): TrustFile {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, approvals: [] };
      throw new TrustFileError(this.file, (err as Error).message);
    }
    return parse(this.file, text);
  }

  /** Written whole to a private temporary file, then renamed over the old one: never half a file. */
  private write(data: TrustFile): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.file);
  }

  /** Approved, and for exactly this fingerprint. */
  isApproved(s: TrustSubject): boolean {
    return this.read().approvals.some((e) => same(e, s) && e.fingerprint === s.fingerprint);
  }

  /** Approved before, but for something else than what would run now (the config changed since). */
  changedSinceApproval(s: TrustSubject): boolean {
    return this.read().approvals.some((e) => same(e, s) && e.fingerprint !== s.fingerprint);
  }

  /** Records the approval (replacing an older one for the same project, kind and name). */
  approve(s: TrustSubject, now = Date.now()): void {
    const data = this.read();
    data.approvals = data.approvals.filter((e) => !same(e, s));
    data.approvals.push({ kind: s.kind, projectDir: resolve(s.projectDir), name: s.name, fingerprint: s.fingerprint, approvedAt: now });
    this.write(data);
  }

  /** Forgets the approval of one thing (or, without a name, of every thing of that kind) in a project. */
  revoke(kind: TrustKind, projectDir: string, name?: string): void {
    const data = this.read();
    const dir = resolve(projectDir);
    data.approvals = data.approvals.filter((e) => !(e.kind === kind && e.projectDir === dir && (name === undefined || e.name === name)));
    this.write(data);
  }
}
