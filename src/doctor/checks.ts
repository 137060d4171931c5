// The checks of `agent doctor`, each a function from what this machine has to one CheckResult.
// They read and try things (load SQLite, run rg --version, start the MCP servers the person
// allowed) but change nothing the agent keeps: the SQLite probe's file is removed after, the
// database is not opened, no project server runs without its approval. No key is ever part
// of a result: keys are reported as set or not set, by variable name.

import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, statfsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Config } from '../config/config.js';
import { MissingKeyError, resolveCredentials } from '../config/credentials.js';
import { PROVIDER_KEY_VARS } from '../config/secrets.js';
import { mcpFor } from '../mcp/fromConfig.js';
import { TokenCounter } from '../compaction/tokens.js';
import { NativeModuleError, probeSqlite } from '../store/index.js';
import { resolveRg } from '../tools/grep.js';
import { findOnPath } from '../tools/shell.js';
import { startSandbox } from '../sandbox/start.js';
import { trustFilePath } from '../trust/projectTrust.js';
import { storeSizes } from '../checkpoints/listing.js';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface CheckResult {
  /** Stable: scripts and tests match on it. */
  name: 'node' | 'npm' | 'sqlite' | 'ripgrep' | 'database' | 'config' | 'keys' | 'mcp' | 'sandbox' | 'checkpoints';
  status: CheckStatus;
  summary: string;
  details?: string[];
}

const firstLine = (s: string): string => s.split('\n')[0]!.trim();

/** Node.js: the versions package.json's engines allow (^20.11 or ≥ 22), and which SQLite binding that means. */
export function checkNode(version: string = process.versions.node): CheckResult {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const sqlite = major >= 22 ? 'SQLite: better-sqlite3 13, prebuilt' : 'SQLite: better-sqlite3 12, built from source at install';
  if (major < 20 || (major === 20 && minor < 11))
    return { name: 'node', status: 'fail', summary: `v${version}: agent needs Node.js 20.11 or later (22 or later recommended)` };
  if (major === 21) return { name: 'node', status: 'warn', summary: `v${version}: an odd release agent is not tested on; use 20.11+ or 22+ (${sqlite})` };
  return { name: 'node', status: 'ok', summary: `v${version} (${sqlite})` };
}

/** npm on PATH: only needed to install or update agent. npm 12 blocks dependencies' install scripts, which agent on Node ≥ 22 does not need. */
export function checkNpm(env: NodeJS.ProcessEnv): CheckResult {
  const r = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['--version'], { env, encoding: 'utf8', timeout: 15_000 });
  const version = r.status === 0 ? r.stdout.trim() : undefined;
  if (!version) return { name: 'npm', status: 'warn', summary: 'npm was not found on PATH (needed only to install or update agent)' };
  const major = Number(version.split('.')[0]);
  const note = major >= 12 ? ": it runs no dependency's install script unless allowed (--allow-scripts); agent needs none on Node.js 22+" : '';
  return { name: 'npm', status: 'ok', summary: `${version}${note}` };
}

/** The SQLite binding loads, and FTS5 (the archive's search) and WAL (concurrent sessions) work. */
export function checkSqlite(): CheckResult {
  try {
    const p = probeSqlite(tmpdir());
    const summary =
      `${p.package === 'better-sqlite3-13' ? 'better-sqlite3 (prebuilt)' : 'better-sqlite3'} ${p.version}, SQLite ${p.sqliteVersion}, ` +
      `FTS5 ${p.fts5 ? 'yes' : 'no'}, WAL ${p.wal ? 'yes' : 'no'}`;
    if (!p.fts5 || !p.wal)
      return { name: 'sqlite', status: 'fail', summary, details: ['agent needs FTS5 (searching the archive) and WAL journaling (sessions side by side)'] };
    return { name: 'sqlite', status: 'ok', summary };
  } catch (e) {
    if (e instanceof NativeModuleError) return { name: 'sqlite', status: 'fail', summary: 'the native module did not load', details: [e.message] };
    return { name: 'sqlite', status: 'fail', summary: `the probe failed: ${firstLine((e as Error).message)}` };
  }
}

/** The ripgrep Grep runs: the packaged one (@vscode/ripgrep's platform package), else rg on PATH, else the JavaScript search. */
export async function checkRipgrep(): Promise<CheckResult> {
  const rg = await resolveRg(undefined);
  if (!rg) return { name: 'ripgrep', status: 'warn', summary: 'no ripgrep: Grep uses its JavaScript search (same results, slower on large trees)' };
  const r = spawnSync(rg, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  if (r.status !== 0)
    return { name: 'ripgrep', status: 'warn', summary: `${rg} does not run (${firstLine(r.stderr || String(r.error ?? ''))}); Grep falls back to JavaScript` };
  const version = firstLine(r.stdout);
  const packaged = /[\\/]@vscode[\\/]ripgrep-[^\\/]+[\\/]/.test(rg);
  if (packaged) return { name: 'ripgrep', status: 'ok', summary: `${version} (${rg})` };
  return {
    name: 'ripgrep',
    status: 'warn',
    summary: `${version} from PATH (${rg}): the packaged one (@vscode/ripgrep-${process.platform}-${process.arch}) is missing; reinstall agent to get it`,
  };
}

/**
 * The sandbox Bash runs in: off (with whether this machine could run it), or started for real
 * (the dependencies, the proxies, one command run inside) and stopped again. Enabled but unable
 * to start is a failure, with what to install.
 */
export async function checkSandbox(config: Config | undefined, env: NodeJS.ProcessEnv): Promise<CheckResult> {
  if (!config) return { name: 'sandbox', status: 'warn', summary: 'not checked: the configuration did not load' };
  if (!config.sandbox?.enabled) {
    const missing = process.platform === 'linux' ? ['bwrap', 'socat'].filter((p) => findOnPath(p, env['PATH']) === undefined) : [];
    const could = missing.length > 0 ? ` (this machine lacks ${missing.join(' and ')}: install bubblewrap and socat first)` : '';
    return { name: 'sandbox', status: 'ok', summary: `off: Bash runs unsandboxed; "sandbox": { "enabled": true } turns it on${could}` };
  }
  const sandbox = await startSandbox({ ...config, warnings: [] }, trustFilePath(env), undefined);
  const s = sandbox?.status;
  await sandbox?.close();
  if (s?.state === 'on')
    return { name: 'sandbox', status: 'ok', summary: `on: a test command ran inside it${s.warnings.length > 0 ? ` (${s.warnings.join('; ')})` : ''}` };
  if (s?.state === 'unavailable')
    return {
      name: 'sandbox',
      status: 'fail',
      summary: `enabled but it cannot start: ${s.why}`,
      details: [
        `to fix: ${s.install}`,
        config.sandbox.failIfUnavailable ? 'meanwhile every Bash command is refused' : 'meanwhile every Bash command asks first',
      ],
    };
  return { name: 'sandbox', status: 'warn', summary: 'enabled, but it did not start' };
}

const MiB = 1024 * 1024;
/** Below this much free space the database folder is reported: a long session's archive grows by megabytes. */
export const LOW_DISK_BYTES = 200 * MiB;

const fmtBytes = (n: number): string => (n >= 1024 * MiB ? `${(n / 1024 / MiB).toFixed(1)} GiB` : `${Math.round(n / MiB)} MiB`);

/** The database's folder: the nearest existing one is writable and has room (`statfs`: the machine's figures unless a test hands others); the file's size when it exists. */
export function checkDatabase(dbPath: string, statfs: (dir: string) => { bavail: number; bsize: number } = statfsSync): CheckResult {
  let dir = dirname(dbPath);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    return { name: 'database', status: 'fail', summary: `${dbPath}: ${dir} is not writable` };
  }
  const fs = statfs(dir);
  const free = fs.bavail * fs.bsize;
  const size = existsSync(dbPath) ? `, ${fmtBytes(statSync(dbPath).size)} now` : ', not created yet';
  const summary = `${dbPath} (${fmtBytes(free)} free${size})`;
  if (free < LOW_DISK_BYTES)
    return { name: 'database', status: 'warn', summary, details: [`less than ${fmtBytes(LOW_DISK_BYTES)} free: a full disk stops sessions from being saved`] };
  return { name: 'database', status: 'ok', summary };
}

/** The working tree's checkpoints: git to take them, and the shadow stores' size on disk against checkpoints.maxStoreMB. */
export async function checkCheckpoints(config: Config | undefined, dataDir: string): Promise<CheckResult> {
  if (config && !config.checkpoints.enabled) return { name: 'checkpoints', status: 'ok', summary: 'off (checkpoints.enabled is false)' };
  if (!findOnPath('git')) return { name: 'checkpoints', status: 'warn', summary: 'git not found on PATH: /rewind restores only what Edit and Write changed' };
  const stores = await storeSizes(dataDir);
  const total = stores.reduce((n, s) => n + s.bytes, 0);
  const summary = `${stores.length} project${stores.length === 1 ? '' : 's'}, ${fmtBytes(total)} in ${join(dataDir, 'checkpoints')}`;
  const cap = (config?.checkpoints.maxStoreMB ?? 2048) * MiB;
  const over = stores.filter((s) => s.bytes > cap).map((s) => `${s.project}: ${fmtBytes(s.bytes)}, over checkpoints.maxStoreMB (${cap / MiB})`);
  const details = stores.map((s) => `${s.project}: ${fmtBytes(s.bytes)}`);
  return over.length > 0
    ? { name: 'checkpoints', status: 'warn', summary, details: over }
    : { name: 'checkpoints', status: 'ok', summary, ...(details.length > 0 ? { details } : {}) };
}

/** The key the configured provider needs is set; other key variables that are set are named. Never a value. */
export function checkKeys(config: Config | undefined, env: NodeJS.ProcessEnv): CheckResult {
  const set = PROVIDER_KEY_VARS.filter((v) => env[v]?.trim());
  const also = set.length > 0 ? `set: ${set.join(', ')}` : 'no provider key variable is set';
  if (!config) return { name: 'keys', status: 'warn', summary: `not checked against the configuration, which did not load (${also})` };
  try {
    const creds = resolveCredentials(config, env);
    const source = creds.keyVar ? `${creds.keyVar} is set` : 'no key needed (a local server)';
    return { name: 'keys', status: 'ok', summary: `${config.provider} (${config.model.name}): ${source}`, details: [also] };
  } catch (e) {
    if (e instanceof MissingKeyError)
      return { name: 'keys', status: 'fail', summary: `${config.provider} (${config.model.name}): ${e.message}`, details: [also] };
    throw e;
  }
}

/**
 * Starts the MCP servers a session would start (the project's only once approved, or with
 * --mcp-trust), through the session's own McpManager (mcp/fromConfig.ts), waits for them (mcp.startupMs, at least
 * 10 s) and closes them.
 */
export async function checkMcp(config: Config, env: NodeJS.ProcessEnv, secrets: ReadonlySet<string>): Promise<CheckResult> {
  const manager = mcpFor(config, env, new TokenCounter(), (name) => secrets.has(name));
  if (!manager) return { name: 'mcp', status: 'ok', summary: 'no servers configured' };
  try {
    manager.start();
    await manager.ready(Math.max(10_000, config.mcp.startupMs));
    const views = manager.views();
    const details = views.map((v) => {
      const where = `${v.name} (${v.transport}, ${v.file})`;
      switch (v.state) {
        case 'connected':
          return `${where}: started, ${v.tools} tool${v.tools === 1 ? '' : 's'}`;
        case 'needs-approval':
          return `${where}: not started, a project server waits for your approval (run \`agent\` here, or --mcp-trust)`;
        case 'connecting':
          return `${where}: still starting after ${Math.max(10_000, config.mcp.startupMs) / 1000} s`;
        default:
          return `${where}: ${v.state}${v.error ? `: ${v.error}` : ''}`;
      }
    });
    const failed = views.filter((v) => v.state === 'failed' || v.state === 'connecting');
    const waiting = views.filter((v) => v.state === 'needs-approval');
    const started = views.filter((v) => v.state === 'connected').length;
    const summary = `${started} of ${views.length} server${views.length === 1 ? '' : 's'} started${failed.length > 0 ? `; failed: ${failed.map((v) => v.name).join(', ')}` : ''}`;
    return { name: 'mcp', status: failed.length > 0 ? 'fail' : waiting.length > 0 ? 'warn' : 'ok', summary, details };
  } finally {
    await manager.close();
  }
}
