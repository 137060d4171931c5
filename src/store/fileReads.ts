// What each tool call saw of a file (path, size, mtime, content hash when it had it), so a
// resumed or forked session can rebuild its edit tracker from the reads its visible history
// still shows: the first Edit after --continue of an unchanged file needs no second read.
import type Database from 'better-sqlite3';
import type { Migration } from './migration.js';

export const v10FileReads: Migration = {
  version: 10,
  description: 'file states seen by tool calls (the edit tracker after a resume)',
  up(db) {
    db.exec(`
      CREATE TABLE file_reads (
        rid INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        tool_use_id TEXT NOT NULL,
        path TEXT NOT NULL,
        mtime_ms REAL NOT NULL,
        size INTEGER NOT NULL,
        hash TEXT
      );
      CREATE INDEX file_reads_by_call ON file_reads (session_id, tool_use_id);
    `);
  },
};

export const FILE_READ_COLS = 'tool_use_id, path, mtime_ms, size, hash';

export interface StoredRead {
  toolUseId: string;
  path: string;
  mtimeMs: number;
  size: number;
  hash?: string;
}

/** The store's face for file reads. */
export interface FileReadLog {
  save(sessionId: string, r: StoredRead): void;
  /** The states recorded under the ids `wanted` accepts (tool calls, prompts' @files, code rewinds' marks), in the order they were recorded. */
  byCalls(sessionId: string, wanted: (toolUseId: string) => boolean): StoredRead[];
}

interface Guard {
  read<T>(action: string, fn: () => T): T;
  write<T>(action: string, fn: () => T): T;
}

interface Row {
  tool_use_id: string;
  path: string;
  mtime_ms: number;
  size: number;
  hash: string | null;
}

export class FileReadTable implements FileReadLog {
  private readonly insert: Database.Statement<[string, string, string, number, number, string | null]>;
  private readonly all: Database.Statement<[string], Row>;

  constructor(
    db: Database.Database,
    private readonly guard: Guard,
  ) {
    this.insert = db.prepare(`INSERT INTO file_reads (session_id, ${FILE_READ_COLS}) VALUES (?, ?, ?, ?, ?, ?)`);
    this.all = db.prepare<[string], Row>(`SELECT ${FILE_READ_COLS} FROM file_reads WHERE session_id = ? ORDER BY rid`);
  }

  save(sessionId: string, r: StoredRead): void {
    this.guard.write('record a file read', () => this.insert.run(sessionId, r.toolUseId, r.path, r.mtimeMs, r.size, r.hash ?? null));
  }

  byCalls(sessionId: string, wanted: (toolUseId: string) => boolean): StoredRead[] {
    return this.guard.read('read file reads', () =>
      this.all
        .all(sessionId)
        .filter((r) => wanted(r.tool_use_id))
        .map((r) => ({ toolUseId: r.tool_use_id, path: r.path, mtimeMs: r.mtime_ms, size: r.size, ...(r.hash !== null ? { hash: r.hash } : {}) })),
    );
  }
}
