// Forward-only schema migrations. The schema version lives in PRAGMA user_version; migration
// N takes a version N−1 database to version N. To change the schema, append an entry.
import type Database from 'better-sqlite3';
import type { ClearedOutput } from '../history/compaction.js';
import { collectToolCalls } from '../llm/messageText.js';
import { decodeMessage, type MessageRow } from './codec.js';
import { InvalidInputError } from './errors.js';
import type { Migration } from './migration.js';
import { ArchiveIndexer, v7MessageIndex } from './search-index.js';
import { v5History } from './historyLog.js';
import { v9Spills } from './spills.js';
import { v10FileReads } from './fileReads.js';
import { v11CompactionReport } from './compactionReport.js';
import { v12SandboxViolations } from './sandboxViolations.js';
import { v13MessageOrigins } from './origins.js';
import { v4Snapshots } from './snapshots.js';
import { v6ChildSessions } from './childSessions.js';

export type { Migration } from './migration.js';

const v1Core: Migration = {
  version: 1,
  description: 'sessions, messages, compactions, tool output archive',
  up(db) {
    db.exec(`
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY NOT NULL,
        cwd TEXT NOT NULL,
        title TEXT,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        -- database-wide activity counter: orders sessions by last write even within one millisecond
        touched INTEGER NOT NULL,
        meta TEXT NOT NULL DEFAULT '{}',
        message_count INTEGER NOT NULL DEFAULT 0,
        visible_count INTEGER NOT NULL DEFAULT 0,
        compaction_count INTEGER NOT NULL DEFAULT 0,
        context_tokens INTEGER
      );
      CREATE INDEX sessions_by_touch ON sessions (touched);
      CREATE INDEX sessions_by_cwd_touch ON sessions (cwd, touched);

      CREATE TABLE compactions (
        seq INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        trigger TEXT NOT NULL,
        focus TEXT,
        status TEXT NOT NULL CHECK (status IN ('applied', 'failed', 'ineffective')),
        reason TEXT,
        tokens_before INTEGER NOT NULL,
        tokens_after INTEGER NOT NULL,
        archived_count INTEGER NOT NULL,
        preserved_count INTEGER NOT NULL,
        summary_tokens INTEGER NOT NULL,
        summary TEXT,
        method TEXT,
        duration_ms INTEGER NOT NULL,
        model TEXT NOT NULL,
        usage TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (session_id, id)
      );

      -- seq: insertion order, append-only. pos: order in the visible history (NULL once archived).
      CREATE TABLE messages (
        rid INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        pos INTEGER,
        role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
        kind TEXT NOT NULL CHECK (kind IN ('normal', 'checkpoint', 'meta')),
        pinned INTEGER,
        blocks TEXT NOT NULL,
        tokens INTEGER,
        usage TEXT,
        model TEXT,
        interrupted INTEGER,
        created_at INTEGER NOT NULL,
        archived_by TEXT,
        UNIQUE (session_id, id),
        UNIQUE (session_id, seq),
        FOREIGN KEY (session_id, archived_by) REFERENCES compactions (session_id, id)
      );
      -- resume reads only this index's rows: its cost follows the visible history
      CREATE INDEX messages_visible ON messages (session_id, pos) WHERE archived_by IS NULL;
      CREATE INDEX messages_archived ON messages (session_id, archived_by);

      CREATE TABLE tool_output_archive (
        rid INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        message_id TEXT NOT NULL,
        tool_use_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        summary TEXT NOT NULL,
        content TEXT NOT NULL,
        is_error INTEGER NOT NULL,
        tokens INTEGER NOT NULL,
        compaction_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (session_id, id),
        FOREIGN KEY (session_id, message_id) REFERENCES messages (session_id, id),
        FOREIGN KEY (session_id, compaction_id) REFERENCES compactions (session_id, id)
      );
      CREATE INDEX tool_output_by_message ON tool_output_archive (session_id, message_id);
      CREATE INDEX tool_output_by_compaction ON tool_output_archive (session_id, compaction_id);
    `);
  },
};

const v2Search: Migration = {
  version: 2,
  description: 'full-text search over archived messages and cleared tool outputs',
  up(db) {
    db.exec(`
      -- archive_index.rid = archive_fts.rowid
      CREATE TABLE archive_index (
        rid INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('message', 'tool_output')),
        ref_id TEXT NOT NULL,
        label TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (session_id, kind, ref_id)
      );
      CREATE INDEX archive_index_by_ref ON archive_index (ref_id);
      CREATE VIRTUAL TABLE archive_fts USING fts5 (body, tokenize = 'porter unicode61 remove_diacritics 2');
      CREATE TRIGGER archive_index_delete AFTER DELETE ON archive_index BEGIN
        DELETE FROM archive_fts WHERE rowid = old.rid;
      END;
    `);
    backfillSearchIndex(db);
  },
};

/** Indexes what a version 1 database already archived. */
function backfillSearchIndex(db: Database.Database): void {
  const indexer = new ArchiveIndexer(db);
  const sessions = db.prepare<[], { id: string }>('SELECT id FROM sessions').all();
  const messagesOf = db.prepare<[string], MessageRow & { archived_by: string | null }>(
    'SELECT id, role, kind, pinned, blocks, tokens, usage, model, interrupted, created_at, archived_by FROM messages WHERE session_id = ? ORDER BY seq',
  );
  const outputsOf = db.prepare<
    [string],
    {
      id: string;
      message_id: string;
      tool_use_id: string;
      tool_name: string;
      summary: string;
      content: string;
      is_error: number;
      tokens: number;
      msg_created_at: number;
    }
  >(
    `SELECT t.id, t.message_id, t.tool_use_id, t.tool_name, t.summary, t.content, t.is_error, t.tokens, m.created_at AS msg_created_at
     FROM tool_output_archive t JOIN messages m ON m.session_id = t.session_id AND m.id = t.message_id
     WHERE t.session_id = ? ORDER BY t.rid`,
  );
  for (const { id: sessionId } of sessions) {
    const rows = messagesOf.all(sessionId);
    const messages = rows.map(decodeMessage);
    const calls = collectToolCalls(messages);
    rows.forEach((row, i) => {
      if (row.archived_by !== null) indexer.message(sessionId, messages[i]!, calls);
    });
    for (const t of outputsOf.all(sessionId)) {
      const cleared: ClearedOutput = {
        archiveId: t.id,
        messageId: t.message_id,
        toolUseId: t.tool_use_id,
        toolName: t.tool_name,
        summary: t.summary,
        content: t.content,
        isError: t.is_error === 1,
        tokens: t.tokens,
      };
      indexer.clearedOutput(sessionId, cleared, t.msg_created_at);
    }
  }
}

const v3Leases: Migration = {
  version: 3,
  description: 'session leases: which process writes a session',
  up(db) {
    db.exec(`
      -- one row per session being written: the writer's random token, pid and host, and a
      -- heartbeat it renews; a row whose process is gone (or whose heartbeat expired) is stale
      CREATE TABLE session_leases (
        session_id TEXT PRIMARY KEY NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        token TEXT NOT NULL,
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        acquired_at INTEGER NOT NULL,
        heartbeat_at INTEGER NOT NULL
      );
    `);
  },
};

const v8Thinking: Migration = {
  version: 8,
  description: "thinking: the prefix a reply was produced after; the providers' model capabilities",
  up(db) {
    db.exec(`
      -- the hash of what a reply that thinks was produced after (llm/thinkingReplay.ts)
      ALTER TABLE messages ADD COLUMN prefix_hash TEXT;
      -- what a provider's models endpoint said of a model, and when (config/capabilities.ts)
      CREATE TABLE model_capabilities (
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        body TEXT NOT NULL,
        fetched_at INTEGER NOT NULL,
        PRIMARY KEY (provider, model)
      );
    `);
  },
};

export const MIGRATIONS: readonly Migration[] = [
  v1Core,
  v2Search,
  v3Leases,
  v4Snapshots,
  v5History,
  v6ChildSessions,
  v7MessageIndex,
  v8Thinking,
  v9Spills,
  v10FileReads,
  v11CompactionReport,
  v12SandboxViolations,
  v13MessageOrigins,
];
export const SCHEMA_VERSION = MIGRATIONS.length;

export class NewerSchemaError extends Error {
  override readonly name = 'NewerSchemaError';
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(`schema version ${found} is newer than this build knows (${known})`);
  }
}

export const readVersion = (db: Database.Database): number => Number(db.pragma('user_version', { simple: true }));

/**
 * Brings the database to the last version of `migrations`, all steps in one IMMEDIATE
 * transaction (a failing step leaves the database as it was). The version is re-read inside
 * the transaction, so two processes opening an old database at once migrate it once.
 */
export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): { from: number; to: number } {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration list is out of order: entry ${i} has version ${m.version}`);
  });
  const target = migrations.length;
  const run = db.transaction(() => {
    const from = readVersion(db);
    if (from > target) throw new NewerSchemaError(from, target);
    if (from === 0) refuseForeignDatabase(db);
    for (const m of migrations.slice(from)) m.up(db);
    if (from !== target) db.pragma(`user_version = ${target}`);
    return { from, to: target };
  });
  return run.immediate();
}

/** A version 0 file that already has tables is someone else's database: leave it alone. */
export function refuseForeignDatabase(db: Database.Database): void {
  const names = db
    .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
    .pluck()
    .all();
  if (names.length > 0) {
    throw new InvalidInputError(
      `it is an SQLite database of another program (tables: ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}); refusing to modify it`,
    );
  }
}
