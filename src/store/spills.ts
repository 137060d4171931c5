// Spilled tool outputs: a result over the spill threshold is archived whole at once (up to the
// cap), under a per-session handle `o<n>`, and indexed for search like a cleared output. The
// model keeps a preview that names the handle; Recall reads the rest from here. A fork copies
// the rows with their handles, so a preview in the copied history still resolves.
import type Database from 'better-sqlite3';
import type { Migration } from './migration.js';

export const v9Spills: Migration = {
  version: 9,
  description: 'spilled tool outputs (archived whole at once, read by Recall)',
  up(db) {
    db.exec(`
      -- id: the handle the preview names (o1, o2, ...), unique within the session.
      CREATE TABLE spilled_outputs (
        rid INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        n INTEGER NOT NULL,
        tool_use_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        summary TEXT NOT NULL,
        content TEXT NOT NULL,
        is_error INTEGER NOT NULL,
        total_chars INTEGER NOT NULL,
        total_lines INTEGER NOT NULL,
        total_bytes INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (session_id, id)
      );
    `);
  },
};

export interface NewSpill {
  toolUseId: string;
  toolName: string;
  summary: string;
  /** The archived text (already capped and redacted by the caller). */
  content: string;
  isError: boolean;
  totalChars: number;
  totalLines: number;
  totalBytes: number;
}

export interface SpilledOutput extends NewSpill {
  id: string;
  createdAt: number;
}

interface SpillRow {
  id: string;
  tool_use_id: string;
  tool_name: string;
  summary: string;
  content: string;
  is_error: number;
  total_chars: number;
  total_lines: number;
  total_bytes: number;
  created_at: number;
}

export const SPILL_COLS = 'id, n, tool_use_id, tool_name, summary, content, is_error, total_chars, total_lines, total_bytes, created_at';

export const spillLabel = (toolName: string, summary: string): string => {
  const arg = summary.replace(/\s+/g, ' ').trim();
  const short = arg.length > 60 ? `${arg.slice(0, 59)}…` : arg;
  return short ? `${toolName} output \`${short}\` (spilled)` : `${toolName} output (spilled)`;
};

/** The store's face for spilled outputs. */
export interface SpillArchive {
  /** Archives a spilled tool output whole and indexes it for search; returns its handle (o1, o2, ...). */
  save(sessionId: string, spill: NewSpill): string;
  /** One spilled output of the session by handle. */
  get(sessionId: string, id: string): SpilledOutput | undefined;
  /** Every spilled output of the session, by handle (sessions show, the Markdown export). */
  all(sessionId: string): SpilledOutput[];
}

/** The store's transaction and error wrapping (SqliteStore's read and write). */
interface Guard {
  read<T>(action: string, fn: () => T): T;
  write<T>(action: string, fn: () => T): T;
}

export class SpillTable implements SpillArchive {
  private readonly nextN: Database.Statement<[string, string], number>;
  private readonly insert: Database.Statement<Record<string, unknown>>;
  private readonly one: Database.Statement<[string, string], SpillRow>;
  private readonly allRows: Database.Statement<[string], SpillRow>;
  private readonly insertIndex: Database.Statement<[string, string, string, number]>;
  private readonly insertText: Database.Statement<[number | bigint, string]>;

  constructor(
    db: Database.Database,
    private readonly guard: Guard,
  ) {
    // handles are numbered across a session and its sub-agents (the family under its root), so a
    // child's o2 is never a parent's o2: the parent's Recall falls back to its children's archives
    this.nextN = db
      .prepare<[string, string], number>(
        `WITH RECURSIVE up(id, parent_id) AS (
           SELECT id, parent_id FROM sessions WHERE id = ?
           UNION ALL SELECT s.id, s.parent_id FROM sessions s JOIN up ON s.id = up.parent_id),
         family(id) AS (
           SELECT id FROM up WHERE parent_id IS NULL
           UNION ALL SELECT s.id FROM sessions s JOIN family f ON s.parent_id = f.id)
         SELECT COALESCE(MAX(n), 0) + 1 FROM spilled_outputs WHERE session_id IN (SELECT id FROM family) OR session_id = ?`,
      )
      .pluck();
    this.insert = db.prepare(
      `INSERT INTO spilled_outputs (session_id, ${SPILL_COLS})
       VALUES (@session_id, @id, @n, @tool_use_id, @tool_name, @summary, @content, @is_error, @total_chars, @total_lines, @total_bytes, @created_at)`,
    );
    this.one = db.prepare<[string, string], SpillRow>(`SELECT ${SPILL_COLS} FROM spilled_outputs WHERE session_id = ? AND id = ?`);
    this.allRows = db.prepare<[string], SpillRow>(`SELECT ${SPILL_COLS} FROM spilled_outputs WHERE session_id = ? ORDER BY n`);
    this.insertIndex = db.prepare(
      "INSERT INTO archive_index (session_id, kind, ref_id, label, created_at) VALUES (?, 'tool_output', ?, ?, ?) ON CONFLICT DO NOTHING",
    );
    this.insertText = db.prepare('INSERT INTO archive_fts (rowid, body) VALUES (?, ?)');
  }

  save(sessionId: string, s: NewSpill): string {
    return this.guard.write('archive a spilled output', () => this.insertOne(sessionId, s, Date.now()));
  }

  private insertOne(sessionId: string, s: NewSpill, now: number): string {
    const n = this.nextN.get(sessionId, sessionId) ?? 1;
    const id = `o${n}`;
    this.insert.run({
      session_id: sessionId,
      id,
      n,
      tool_use_id: s.toolUseId,
      tool_name: s.toolName,
      summary: s.summary,
      content: s.content,
      is_error: s.isError ? 1 : 0,
      total_chars: s.totalChars,
      total_lines: s.totalLines,
      total_bytes: s.totalBytes,
      created_at: now,
    });
    const { lastInsertRowid, changes } = this.insertIndex.run(sessionId, id, spillLabel(s.toolName, s.summary), now);
    if (changes > 0) this.insertText.run(lastInsertRowid, `[${s.toolName} ${s.summary}]\n${s.content}`);
    return id;
  }

  get(sessionId: string, id: string): SpilledOutput | undefined {
    return this.guard.read('read a spilled output', () => {
      const r = this.one.get(sessionId, id);
      return r ? toSpill(r) : undefined;
    });
  }

  all(sessionId: string): SpilledOutput[] {
    return this.guard.read('list spilled outputs', () => this.allRows.all(sessionId).map(toSpill));
  }
}

const toSpill = (r: SpillRow): SpilledOutput => ({
  id: r.id,
  toolUseId: r.tool_use_id,
  toolName: r.tool_name,
  summary: r.summary,
  content: r.content,
  isError: r.is_error === 1,
  totalChars: r.total_chars,
  totalLines: r.total_lines,
  totalBytes: r.total_bytes,
  createdAt: r.created_at,
});
