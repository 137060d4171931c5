import { isSqliteError } from './sqlite.js';

/**
 * corrupt: not an SQLite database, or a damaged one (the file is left untouched).
 * locked: another process held the write lock longer than the busy timeout.
 * newer_schema: written by a newer build; refused and not altered.
 * readonly: the file, its directory or the store itself cannot be written.
 * disk_full: the disk (or the configured size cap) is full; the transaction was rolled back.
 * io: any other failure to read or write the file.
 * not_found: unknown session, missing database file, ambiguous id prefix.
 * invalid: input the store refuses (empty search query, duplicate id, inconsistent compaction, foreign database).
 */
export type StoreErrorKind = 'corrupt' | 'locked' | 'newer_schema' | 'readonly' | 'disk_full' | 'io' | 'not_found' | 'invalid';

export class StoreError extends Error {
  override readonly name = 'StoreError';
  readonly kind: StoreErrorKind;
  /** The database file the error is about. */
  readonly file: string;

  constructor(kind: StoreErrorKind, file: string, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.kind = kind;
    this.file = file;
  }
}

/** Thrown by the codecs for input the store refuses; becomes StoreError 'invalid'. */
export class InvalidInputError extends Error {
  override readonly name = 'InvalidInputError';
}

/** Thrown by the codecs for a stored row that cannot be read back; becomes StoreError 'corrupt'. */
export class DecodeError extends Error {
  override readonly name = 'DecodeError';
}

export const isStoreError = (e: unknown): e is StoreError => e instanceof StoreError;

interface Context {
  file: string;
  /** What was being done, e.g. "append a message"; goes into the message. */
  action: string;
  busyTimeoutMs: number;
}

/** Maps an SQLite or file-system error to a StoreError with a message a person can act on. */
export function toStoreError(err: unknown, ctx: Context): StoreError {
  if (err instanceof StoreError) return err;
  const { file, action } = ctx;
  if (err instanceof InvalidInputError) return new StoreError('invalid', file, `Could not ${action}: ${err.message}`, err);
  if (err instanceof DecodeError) return new StoreError('corrupt', file, `Could not ${action}: ${err.message} in ${file}.`, err);
  if (isSqliteError(err)) {
    const code = err.code;
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
      return new StoreError('locked', file, `Could not ${action}: the database ${file} is locked by another process (waited ${ctx.busyTimeoutMs} ms).`, err);
    }
    if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
      return new StoreError(
        'corrupt',
        file,
        `Could not ${action}: ${file} is not a valid database or is damaged (${err.message}). The file was left as it is.`,
        err,
      );
    }
    if (code === 'SQLITE_FULL') {
      return new StoreError(
        'disk_full',
        file,
        `Could not ${action}: the disk holding ${file} is full (or its size cap was reached); nothing was written.`,
        err,
      );
    }
    if (code === 'SQLITE_READONLY_DIRECTORY') {
      return new StoreError(
        'readonly',
        file,
        `Could not ${action}: the directory of ${file} is not writable, and SQLite needs to create ${file}-shm (and -wal) beside it; fix the directory's permissions.`,
        err,
      );
    }
    if (code.startsWith('SQLITE_READONLY')) {
      return new StoreError('readonly', file, `Could not ${action}: the database ${file} is read-only (${err.message}); nothing was written.`, err);
    }
    if (code.startsWith('SQLITE_CONSTRAINT')) {
      return new StoreError('invalid', file, `Could not ${action}: ${err.message}.`, err);
    }
    if (code.startsWith('SQLITE_CANTOPEN')) {
      return new StoreError('io', file, `Could not ${action}: cannot open ${file} (${err.message}).`, err);
    }
    return new StoreError('io', file, `Could not ${action} in ${file}: ${err.message} (${code}).`, err);
  }
  const code = errnoCode(err);
  if (code === 'EROFS') {
    return new StoreError('readonly', file, `Could not ${action}: the file system holding ${file} is read-only (EROFS); nothing was written.`, err);
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return new StoreError('readonly', file, `Could not ${action}: permission denied for ${file} (${code}).`, err);
  }
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new StoreError('disk_full', file, `Could not ${action}: no space left for ${file}.`, err);
  }
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return new StoreError('not_found', file, `Could not ${action}: ${file} does not exist (${code}).`, err);
  }
  const detail = err instanceof Error ? err.message : String(err);
  return new StoreError('io', file, `Could not ${action} (${file}): ${detail}`, err);
}

function errnoCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err) {
    const code = (err as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}
