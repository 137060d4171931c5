// Which SQLite binding this process loads: decided once, when the first database is opened.
//
// Node 22 and later load better-sqlite3 13, installed under the npm alias better-sqlite3-13 (an
// optional dependency): its tarball carries prebuilt binaries (Linux glibc and musl, macOS,
// Windows; x64 and arm64) and it has no install script, so it loads after any installer, npm 12
// included, which runs no dependency's install script unless the person allows it. On Node 20
// it crashes the process, so Node 20 (and 21) load better-sqlite3 12, which `npm install`
// compiles from source. On Node 22+ a built 12 is the fallback when 13 is missing (optional
// dependencies omitted, a platform without a prebuilt binary). Both compile SQLite with the
// same options (their deps/defines.gypi are identical: FTS5 and the rest) and open.ts sets the
// pragmas, so a database behaves the same under either.
// A binding that cannot load is a NativeModuleError whose message says what happened and what
// to run; the CLI prints it as it is and exits 1 (`agent doctor` reports it as its sqlite check).

import type Database from 'better-sqlite3';
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pkg from '../../package.json' with { type: 'json' };

export type SqliteConstructor = typeof Database;

export interface SqliteDriver {
  Database: SqliteConstructor;
  /** The dependency that loaded, as package.json names it. */
  package: typeof PREBUILT | typeof FROM_SOURCE;
  /** Its version (better-sqlite3's own). */
  version: string;
}

/** better-sqlite3 13 with prebuilt binaries and no install script (Node ≥ 22). */
export const PREBUILT = 'better-sqlite3-13';
/** better-sqlite3 12, compiled by its install script (Node 20; the fallback on Node ≥ 22). */
export const FROM_SOURCE = 'better-sqlite3';
/** The first Node.js major on which better-sqlite3 13 runs. */
export const PREBUILT_FROM_NODE = 22;

export const nodeMajor = (version: string = process.versions.node): number => Number(version.split('.')[0]);

/** The bindings to try, in order, on this Node.js major. */
export function driverCandidates(major: number): Array<SqliteDriver['package']> {
  return major >= PREBUILT_FROM_NODE ? [PREBUILT, FROM_SOURCE] : [FROM_SOURCE];
}

/**
 * missing: the package is not installed. no-binary: installed without a binary for this platform.
 * unbuilt: installed, its install script never built the binary. wrong-node: built for another
 * Node.js version. damaged: its binary is no loadable library for this system (cut short, corrupt,
 * or built for another one): fetching it again is the cure, never a toolchain. other: anything
 * else (the error's first line says what).
 */
export type LoadFailureKind = 'missing' | 'no-binary' | 'unbuilt' | 'wrong-node' | 'damaged' | 'other';

/** The loaders' words for a file that is no library for this system (Linux, macOS, Windows). */
const DAMAGED =
  /invalid ELF header|file too short|wrong ELF class|not a mach-o file|not valid mach-o|mach-o, but wrong architecture|not a valid Win32 application/i;

export interface LoadFailure {
  package: SqliteDriver['package'];
  kind: LoadFailureKind;
  /** The error's first line. */
  detail: string;
}

export class NativeModuleError extends Error {
  override readonly name = 'NativeModuleError';
  constructor(
    message: string,
    readonly failures: readonly LoadFailure[],
  ) {
    super(message);
  }
}

/** Sorts a load error into what the person can do about it. */
export function classifyLoadError(name: SqliteDriver['package'], e: unknown): LoadFailure {
  const message = e instanceof Error ? e.message : String(e);
  const detail = message.split('\n')[0]!.trim();
  const code = (e as { code?: unknown } | null)?.code;
  let kind: LoadFailureKind = 'other';
  if (code === 'MODULE_NOT_FOUND' && detail.startsWith(`Cannot find module '${name}'`)) kind = 'missing';
  else if (code === 'MODULE_NOT_FOUND' && /\.node'/.test(detail)) kind = 'no-binary';
  else if (detail.includes('Could not locate the bindings file')) kind = 'unbuilt';
  else if (DAMAGED.test(message)) kind = 'damaged';
  else if (message.includes('NODE_MODULE_VERSION')) {
    // "…compiled against a different Node.js version using NODE_MODULE_VERSION 115. This version of Node.js requires NODE_MODULE_VERSION 137…"
    const [built, needed] = [...message.matchAll(/NODE_MODULE_VERSION (\d+)/g)].map((m) => m[1]);
    return { package: name, kind: 'wrong-node', detail: built && needed ? `built for NODE_MODULE_VERSION ${built}, this Node.js needs ${needed}` : detail };
  }
  return { package: name, kind, detail };
}

const label = (p: SqliteDriver['package']): string => (p === PREBUILT ? 'better-sqlite3 13 (prebuilt)' : 'better-sqlite3 12 (built from source)');

function whatHappened(f: LoadFailure, platform: string): string {
  switch (f.kind) {
    case 'missing':
      return 'is not installed';
    case 'no-binary':
      return `has no binary for ${platform}`;
    case 'unbuilt':
      return 'is installed but was never built (its install script did not run)';
    case 'wrong-node':
      return `was built for another Node.js version (${f.detail})`;
    case 'damaged':
      return `has a damaged binary (${f.detail})`;
    case 'other':
      return `failed to load (${f.detail})`;
  }
}

const TOOLCHAIN = 'a C toolchain (gcc, make and python3; the Xcode command line tools on macOS; Visual Studio Build Tools on Windows)';

export interface ExplainContext {
  major: number;
  /** process.platform-process.arch */
  platform: string;
  /** The package's name on the registry. */
  name: string;
  /** Where the program's package.json is when it runs from a clone (a contributor's checkout), else undefined. */
  checkout?: string;
}

/** The one paragraph `agent` prints when no binding loads: what happened to each, and what to run. */
export function explainLoadFailure(failures: readonly LoadFailure[], ctx: ExplainContext): string {
  const what = failures.map((f) => `${label(f.package)} ${whatHappened(f, ctx.platform)}`).join('; ');
  const head = `SQLite's native module did not load on Node.js ${ctx.major} (${ctx.platform}): ${what}.`;
  if (ctx.checkout) {
    return (
      `${head} In this clone (${ctx.checkout}) run \`npm install\` again with the Node.js you start agent with` +
      (ctx.major >= PREBUILT_FROM_NODE ? '.' : ` (better-sqlite3 12 compiles from source on Node ${ctx.major}; it needs ${TOOLCHAIN}).`) +
      ' `agent doctor` checks the rest of the set-up.'
    );
  }
  // the first choice's binary is damaged: fetching (or building) it again is the cure, whatever the
  // fallback's state; no toolchain is asked for where none was needed
  if (failures.some((f) => f.kind === 'damaged' && f.package === driverCandidates(ctx.major)[0])) {
    const again =
      ctx.major >= PREBUILT_FROM_NODE
        ? `\`npm install -g ${ctx.name}\`, which fetches it again`
        : `\`npm install -g ${ctx.name} --foreground-scripts\`, which builds it again`;
    return (
      `${head} The file on disk is not a library this system can load (a cut download, a disk fault, a node_modules copied from another machine): ` +
      `reinstall with ${again}. \`agent doctor\` checks the rest of the set-up.`
    );
  }
  if (ctx.major >= PREBUILT_FROM_NODE) {
    return (
      `${head} Reinstall with \`npm install -g ${ctx.name}\`: on Node.js ${PREBUILT_FROM_NODE} and later it brings a prebuilt SQLite for Linux, macOS and Windows (x64 and arm64) ` +
      `that needs no install script. ` +
      `If that one is still missing (optional dependencies left out, or no prebuilt binary for ${ctx.platform}), let better-sqlite3 12 compile instead: install ${TOOLCHAIN} and run ` +
      `\`npm install -g ${ctx.name} --allow-scripts=better-sqlite3\` (npm 12 runs no dependency's install script unless allowed). \`agent doctor\` checks the rest of the set-up.`
    );
  }
  return (
    `${head} On Node.js ${ctx.major} better-sqlite3 is compiled from source when agent is installed, which needs ${TOOLCHAIN}: install one and run ` +
    `\`npm install -g ${ctx.name} --foreground-scripts\` again (it shows the build), or use Node.js ${PREBUILT_FROM_NODE} or later, where agent uses a prebuilt SQLite that needs no build. ` +
    '`agent doctor` checks the rest of the set-up.'
  );
}

const load = createRequire(import.meta.url);
let loaded: SqliteDriver | undefined;

/** The package.json directory of a clone this code runs from (it has src/ beside it), else undefined. */
function checkoutRoot(): string | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dirname(dir) !== dir; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return existsSync(join(dir, 'src', 'store')) ? dir : undefined;
  }
  return undefined;
}

/** The binding this process uses, loaded on the first call. Throws NativeModuleError when none loads. */
export function sqlite(): SqliteDriver {
  if (loaded) return loaded;
  const failures: LoadFailure[] = [];
  const major = nodeMajor();
  for (const name of driverCandidates(major)) {
    try {
      const Db = load(name) as SqliteConstructor;
      // the binary itself loads at the first open: here, so that a missing one is this error and not a database's
      new Db(':memory:').close();
      const { version } = load(`${name}/package.json`) as { version: string };
      loaded = { Database: Db, package: name, version };
      return loaded;
    } catch (e) {
      failures.push(classifyLoadError(name, e));
    }
  }
  const checkout = checkoutRoot();
  const message = explainLoadFailure(failures, {
    major,
    platform: `${process.platform}-${process.arch}`,
    name: pkg.name,
    ...(checkout ? { checkout } : {}),
  });
  throw new NativeModuleError(message, failures);
}

/** An error SQLite raised (better-sqlite3's SqliteError, of whichever binding loaded). */
export function isSqliteError(e: unknown): e is InstanceType<Database.SqliteError> {
  return loaded !== undefined && e instanceof loaded.Database.SqliteError;
}

export interface SqliteProbe {
  package: SqliteDriver['package'];
  version: string;
  sqliteVersion: string;
  /** An FTS5 table was created, filled and searched (with bm25 ranking, as the archive search does). */
  fts5: boolean;
  /** A database file in the probed directory switched to WAL journaling. */
  wal: boolean;
}

/**
 * What `agent doctor` reports of SQLite: the binding, SQLite's version, and whether FTS5 and WAL
 * work, tried on a throwaway database in `dir` (removed after). Throws NativeModuleError.
 */
export function probeSqlite(dir: string): SqliteProbe {
  const { Database: Db, package: name, version } = sqlite();
  const file = join(dir, `agent-doctor-${process.pid}.db`);
  const db = new Db(file);
  try {
    const sqliteVersion = String(db.prepare('SELECT sqlite_version() AS v').pluck().get());
    const wal = String(db.pragma('journal_mode = WAL', { simple: true })) === 'wal';
    let fts5 = false;
    try {
      db.exec("CREATE VIRTUAL TABLE probe USING fts5(body); INSERT INTO probe (body) VALUES ('long sessions never fall apart')");
      fts5 = db.prepare("SELECT bm25(probe) AS rank FROM probe WHERE probe MATCH 'sessions'").all().length === 1;
    } catch {
      fts5 = false;
    }
    return { package: name, version, sqliteVersion, fts5, wal };
  } finally {
    db.close();
    for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  }
}
