// File snapshots for /rewind. Before a tool first changes a file in a turn, the file's bytes (or
// its absence) are stored with the turn; a rewind restores the earliest snapshot of each file
// taken at or after the chosen turn. (The conversation's rewind is a history record: historyWrites.ts.)
import type Database from 'better-sqlite3';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Migration } from './migration.js';

export const v4Snapshots: Migration = {
  version: 4,
  description: 'file snapshots for /rewind',
  up(db) {
    db.exec(`
      -- turn_id: the user message that started the turn. content: raw-deflated bytes, NULL when the file did not exist.
      CREATE TABLE file_snapshots (
        rid INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        turn_id TEXT NOT NULL,
        path TEXT NOT NULL,
        existed INTEGER NOT NULL,
        content BLOB,
        size INTEGER,
        mode INTEGER,
        created_at INTEGER NOT NULL,
        UNIQUE (session_id, turn_id, path),
        FOREIGN KEY (session_id, turn_id) REFERENCES messages (session_id, id)
      );
    `);
  },
};

export interface NewSnapshot {
  turnId: string;
  /** Absolute path. */
  path: string;
  /** The bytes before the change; null when the file did not exist. */
  content: Uint8Array | null;
  mode: number | null;
}

export interface FileSnapshot {
  turnId: string;
  path: string;
  content: Buffer | null;
  mode: number | null;
  createdAt: number;
}

export interface SnapshotTurn {
  turnId: string;
  paths: string[];
}

export interface RewindRecord {
  id: string;
  /** The user message the conversation goes back to (it and what follows are archived). */
  turnId: string;
  createdAt: number;
}

interface SnapshotRow {
  turn_id: string;
  path: string;
  existed: number;
  content: Buffer | null;
  mode: number | null;
  created_at: number;
}

export class SnapshotTables {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = {
      insert: db.prepare(
        `INSERT OR IGNORE INTO file_snapshots (session_id, turn_id, path, existed, content, size, mode, created_at)
         VALUES (@session_id, @turn_id, @path, @existed, @content, @size, @mode, @created_at)`,
      ),
      since: db.prepare<[string, string, string], SnapshotRow>(
        `SELECT s.turn_id, s.path, s.existed, s.content, s.mode, s.created_at FROM file_snapshots s
         JOIN messages m ON m.session_id = s.session_id AND m.id = s.turn_id
         WHERE s.session_id = ? AND m.seq >= (SELECT seq FROM messages WHERE session_id = ? AND id = ?)
         ORDER BY m.seq, s.rid`,
      ),
      turns: db.prepare<[string], { turn_id: string; path: string }>(
        `SELECT s.turn_id, s.path FROM file_snapshots s JOIN messages m ON m.session_id = s.session_id AND m.id = s.turn_id
         WHERE s.session_id = ? ORDER BY m.seq, s.rid`,
      ),
    };
  }

  /** Stores a snapshot unless the turn already has one of the path; true when stored. */
  save(sessionId: string, s: NewSnapshot): boolean {
    const { changes } = this.stmts.insert.run({
      session_id: sessionId,
      turn_id: s.turnId,
      path: s.path,
      existed: s.content === null ? 0 : 1,
      content: s.content === null ? null : deflateRawSync(s.content),
      size: s.content === null ? null : s.content.length,
      mode: s.mode,
      created_at: Date.now(),
    });
    return changes > 0;
  }

  /** For each file changed at or after the turn, its state before the first of those changes. */
  since(sessionId: string, turnId: string): FileSnapshot[] {
    const seen = new Set<string>();
    const out: FileSnapshot[] = [];
    for (const r of this.stmts.since.all(sessionId, sessionId, turnId)) {
      if (seen.has(r.path)) continue;
      seen.add(r.path);
      out.push({
        turnId: r.turn_id,
        path: r.path,
        content: r.existed ? inflateRawSync(r.content ?? Buffer.alloc(0)) : null,
        mode: r.mode,
        createdAt: r.created_at,
      });
    }
    return out;
  }

  turns(sessionId: string): SnapshotTurn[] {
    const byTurn = new Map<string, string[]>();
    for (const r of this.stmts.turns.all(sessionId)) {
      const list = byTurn.get(r.turn_id) ?? [];
      list.push(r.path);
      byTurn.set(r.turn_id, list);
    }
    return [...byTurn].map(([turnId, paths]) => ({ turnId, paths }));
  }
}
