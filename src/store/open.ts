// Opening a database file safely: private permissions, no write of any kind before the file
// is known to be an SQLite database of a schema this build understands.
import type Database from 'better-sqlite3';
import { accessSync, chmodSync, closeSync, constants, existsSync, fstatSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InvalidInputError, StoreError, toStoreError } from './errors.js';
import { migrate, NewerSchemaError, readVersion, refuseForeignDatabase, SCHEMA_VERSION } from './migrations.js';
import { sqlite } from './sqlite.js';
import { SqliteStore } from './store.js';
import type { OpenStoreOptions, Store } from './types.js';

const DEFAULT_BUSY_TIMEOUT_MS = 5_000;
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Opens (creating if needed) the database at `path`; ':memory:' gives a private in-memory store.
 * Throws StoreError, or NativeModuleError (sqlite.ts) when no SQLite binding loads here.
 */
export function openStore(path: string, opts: OpenStoreOptions = {}): Store {
  // before anything touches the file: without a binding there is nothing to say about the database
  const { Database: Sqlite } = sqlite();
  const busyTimeoutMs = opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const readonly = opts.readonly ?? false;
  const memory = path === ':memory:';
  const file = memory ? path : resolve(path);
  const ctx = { file, action: 'open the database', busyTimeoutMs };
  try {
    if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0)
      throw new InvalidInputError(`busyTimeoutMs must be a non-negative integer, got ${busyTimeoutMs}`);
    if (memory && readonly) throw new InvalidInputError('an in-memory store cannot be opened read-only');
    if (!memory) prepareFile(file, readonly);
    const db = new Sqlite(file, { readonly, fileMustExist: !memory, timeout: busyTimeoutMs });
    try {
      configure(db, file, readonly, busyTimeoutMs, opts.maxSizeBytes);
    } catch (e) {
      db.close();
      throw e;
    }
    return new SqliteStore(db, file, readonly, busyTimeoutMs);
  } catch (e) {
    if (e instanceof NewerSchemaError) throw newerSchema(file, e.found, e.known);
    if (e instanceof InvalidInputError) throw new StoreError('invalid', file, `Cannot use ${file}: ${e.message}.`, e);
    throw toStoreError(e, ctx);
  }
}

function newerSchema(file: string, found: number, known: number): StoreError {
  return new StoreError(
    'newer_schema',
    file,
    `${file} was written by a newer version of agent (schema version ${found}; this build knows up to version ${known}). ` +
      'Upgrade agent to open it; the file was not changed.',
  );
}

function prepareFile(file: string, readonly: boolean): void {
  if (!existsSync(file)) {
    if (readonly) throw new StoreError('not_found', file, `There is no database at ${file} to open read-only.`);
    ensurePrivateDir(file, dirname(file));
    createPrivateFile(file);
    return;
  }
  if (!statSync(file).isFile()) throw new StoreError('io', file, `${file} is not a regular file.`);
  checkHeader(file);
  if (readonly) return;
  if (!canWrite(file)) {
    throw new StoreError('readonly', file, `The database ${file} is read-only (no write permission); fix its permissions, or open it read-only to look at it.`);
  }
  if (!canWrite(dirname(file))) {
    throw new StoreError(
      'readonly',
      file,
      `The directory ${dirname(file)} is not writable, and SQLite needs to create ${file}-wal and ${file}-shm next to the database; fix its permissions, or open it read-only.`,
    );
  }
}

const canWrite = (p: string): boolean => {
  try {
    accessSync(p, constants.W_OK);
    return true;
  } catch {
    return false;
  }
};

/** Creates the missing directories of `dir`, each private to the user (0700 whatever the umask). */
function ensurePrivateDir(file: string, dir: string): void {
  const missing: string[] = [];
  for (let d = dir; !existsSync(d); d = dirname(d)) {
    missing.unshift(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing) {
    try {
      mkdirSync(d, { mode: 0o700 });
      chmodSync(d, 0o700);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw toStoreError(e, { file, action: `create the directory ${d}`, busyTimeoutMs: 0 });
    }
  }
}

/** Creates the empty database file 0600 before SQLite opens it (SQLite gives -wal/-shm the same mode). */
function createPrivateFile(file: string): void {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return checkHeader(file); // another process won the race
    throw toStoreError(e, { file, action: 'create the database file', busyTimeoutMs: 0 });
  }
  try {
    chmodSync(file, 0o600);
  } finally {
    closeSync(fd);
  }
}

/** Refuses anything that is not an SQLite file (an empty file is a new database) without writing to it. */
function checkHeader(file: string): void {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return;
    const head = Buffer.alloc(SQLITE_HEADER.length);
    const n = readSync(fd, head, 0, head.length, 0);
    if (n < head.length || !head.equals(SQLITE_HEADER)) {
      throw new StoreError(
        'corrupt',
        file,
        `${file} is not an SQLite database (it may be damaged or be another kind of file). It was left untouched; move it away or point --db elsewhere.`,
      );
    }
  } finally {
    closeSync(fd);
  }
}

function configure(db: Database.Database, file: string, readonly: boolean, busyTimeoutMs: number, maxSizeBytes: number | undefined): void {
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  // Reads only, before anything could write: a damaged file or a newer schema is refused untouched.
  const version = readVersion(db);
  if (version > SCHEMA_VERSION) throw new NewerSchemaError(version, SCHEMA_VERSION);
  db.prepare('SELECT count(*) FROM sqlite_master').get();
  if (version === 0) refuseForeignDatabase(db);
  if (readonly) {
    if (version < SCHEMA_VERSION) {
      throw new StoreError(
        'readonly',
        file,
        `${file} has schema version ${version} and needs upgrading to version ${SCHEMA_VERSION}, which a read-only open cannot do; open it once read-write.`,
      );
    }
    return;
  }
  if (String(db.pragma('journal_mode', { simple: true })) !== 'wal' && !db.memory) db.pragma('journal_mode = WAL');
  // FULL: a committed message survives a power cut or an OS crash too, not only a killed process
  // (NORMAL in WAL mode may lose the last commits then). One fsync per message costs ~0.2 ms here,
  // nothing beside a model's reply.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  if (maxSizeBytes !== undefined) {
    if (!Number.isInteger(maxSizeBytes) || maxSizeBytes <= 0) throw new InvalidInputError(`maxSizeBytes must be a positive integer, got ${maxSizeBytes}`);
    const pageSize = Number(db.pragma('page_size', { simple: true }));
    db.pragma(`max_page_count = ${Math.max(1, Math.floor(maxSizeBytes / pageSize))}`);
  }
  // Only an outdated database needs the write lock; a current one opens beside a busy writer.
  if (version < SCHEMA_VERSION) migrate(db);
}
