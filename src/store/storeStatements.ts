import type Database from 'better-sqlite3';
import { MESSAGE_COLS, type MessageRow, type MessageTuple } from './codec.js';
import { SESSION_COLS, type SessionRow } from './sessionRow.js';

/** SQL of the resume query, exported so a test can check its plan uses the partial index. */
export const LOAD_VISIBLE_SQL = `SELECT ${MESSAGE_COLS} FROM messages WHERE session_id = ? AND archived_by IS NULL ORDER BY pos, rid`;

/** The statements SqliteStore runs itself (sessions and messages), prepared once per database. */
export function prepareStoreStatements(db: Database.Database) {
  return {
    session: db.prepare<[string], SessionRow>(`SELECT ${SESSION_COLS} FROM sessions WHERE id = ?`),
    sessionsByPrefix: db.prepare<[string, string], SessionRow>(`SELECT ${SESSION_COLS} FROM sessions WHERE id >= ? AND id < ? ORDER BY id LIMIT 3`),
    // the footer shows an id's last characters (the random part): they name a session too
    sessionsBySuffix: db.prepare<[string, string], SessionRow>(`SELECT ${SESSION_COLS} FROM sessions WHERE substr(id, -length(?)) = ? ORDER BY id LIMIT 3`),
    latest: db.prepare<[], SessionRow>(`SELECT ${SESSION_COLS} FROM sessions WHERE parent_id IS NULL ORDER BY touched DESC LIMIT 1`),
    latestIn: db.prepare<[string], SessionRow>(`SELECT ${SESSION_COLS} FROM sessions WHERE cwd = ? AND parent_id IS NULL ORDER BY touched DESC LIMIT 1`),
    list: db.prepare<[number], SessionRow>(`SELECT ${SESSION_COLS} FROM sessions WHERE parent_id IS NULL ORDER BY touched DESC LIMIT ?`),
    listIn: db.prepare<[string, number], SessionRow>(`SELECT ${SESSION_COLS} FROM sessions WHERE cwd = ? AND parent_id IS NULL ORDER BY touched DESC LIMIT ?`),
    nextTouch: db.prepare<[], number>('SELECT COALESCE(MAX(touched), 0) + 1 FROM sessions').pluck(),
    insertSession: db.prepare(
      `INSERT INTO sessions (id, cwd, title, provider, model, created_at, updated_at, touched, meta, parent_id, parent_turn, parent_tool_use, agent)
     VALUES (@id, @cwd, @title, @provider, @model, @now, @now, @touched, @meta, @parent_id, @parent_turn, @parent_tool_use, @agent)`,
    ),
    deleteSession: db.prepare<[string]>('DELETE FROM sessions WHERE id = ?'),
    hasMessage: db.prepare<[string, string], number>('SELECT 1 FROM messages WHERE session_id = ? AND id = ?').pluck(),
    nextSeq: db.prepare<[string], number>('SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = ?').pluck(),
    nextPos: db.prepare<[string], number>('SELECT COALESCE(MAX(pos), -1) + 1 FROM messages WHERE session_id = ? AND archived_by IS NULL').pluck(),
    insertMessage: db.prepare(
      `INSERT INTO messages (session_id, id, seq, pos, role, kind, pinned, blocks, tokens, usage, model, interrupted, created_at, prefix_hash, origin)
     VALUES (@session_id, @id, @seq, @pos, @role, @kind, @pinned, @blocks, @tokens, @usage, @model, @interrupted, @created_at, @prefix_hash, @origin)`,
    ),
    afterAppend: db.prepare(
      `UPDATE sessions SET message_count = message_count + 1, visible_count = visible_count + 1,
       title = COALESCE(title, @title), updated_at = @now, touched = @touched WHERE id = @id`,
    ),
    afterHistoryChange: db.prepare(
      `UPDATE sessions SET message_count = message_count + @added, visible_count = @visible, compaction_count = compaction_count + @compactions,
       updated_at = @now, touched = @touched WHERE id = @id`,
    ),
    visible: db.prepare<[string], MessageTuple>(LOAD_VISIBLE_SQL).raw(true),
    transcript: db.prepare<[string], MessageRow & { archived_by: string | null }>(
      `SELECT ${MESSAGE_COLS}, archived_by FROM messages WHERE session_id = ? ORDER BY seq`,
    ),
    transcriptVisible: db.prepare<[string], MessageRow & { archived_by: string | null }>(
      `SELECT ${MESSAGE_COLS}, archived_by FROM messages WHERE session_id = ? AND archived_by IS NULL ORDER BY seq`,
    ),
  };
}

export type StoreStatements = ReturnType<typeof prepareStoreStatements>;
