// The session's log of history records (schema v5) and the cache of what it derives. A
// message row is written once; compactions, rewinds, repairs, pins and reverts are appended
// here, ordered among the messages by `after_seq`. What the reducer (history/reduce.ts) gives is
// cached in the message rows' pos, archived_by and shown_* columns: step() applies one new record
// to the cache, refresh() rewrites the cache from a replay of the whole log (a revert), and a
// database from before v5 gets a baseline record holding its visible order.
import type Database from 'better-sqlite3';

import type { Block } from '../llm/messages.js';
import { stepFrom, type HistoryState } from '../history/reduce.js';
import { RECORD_KINDS, type HistoryRecord, type LogEntry, type RecordKind, type StepRecord } from '../history/records.js';
import { DecodeError } from './errors.js';
import type { Migration } from './migration.js';

export const v5History: Migration = {
  version: 5,
  description: 'append-only history: records of compactions, rewinds, repairs, pins and reverts',
  up(db) {
    db.exec(`
      -- after_seq: the record comes after the session's message of that seq (and after earlier records)
      CREATE TABLE history_records (
        rid INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('compaction', 'rewind', 'repair', 'pin', 'revert', 'baseline')),
        after_seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (session_id, id)
      );
      CREATE INDEX history_records_by_session ON history_records (session_id, rid);
      -- added_by: the record that added the message (checkpoint, bridge, repair); it is shown only through that record
      ALTER TABLE messages ADD COLUMN added_by TEXT;
      -- the cache of the derived history besides pos and archived_by: NULL = as stored
      ALTER TABLE messages ADD COLUMN shown_blocks TEXT;
      ALTER TABLE messages ADD COLUMN shown_pinned INTEGER;
      ALTER TABLE messages ADD COLUMN shown_tokens INTEGER;
    `);
    // what an older version left is the starting point: its visible order, as a baseline
    // (blocks it rewrote in place stay as they are; its compactions cannot be reverted)
    const sessions = db.prepare<[], { id: string; last: number | null; created_at: number }>(
      'SELECT s.id, (SELECT MAX(seq) FROM messages m WHERE m.session_id = s.id) AS last, s.updated_at AS created_at FROM sessions s',
    );
    const visible = db.prepare<[string], string>('SELECT id FROM messages WHERE session_id = ? AND archived_by IS NULL ORDER BY pos, rid').pluck();
    const insert = db.prepare("INSERT INTO history_records (session_id, id, kind, after_seq, body, created_at) VALUES (?, ?, 'baseline', ?, ?, ?)");
    for (const s of sessions.all()) {
      if (s.last === null) continue;
      insert.run(s.id, `b_${s.id}`, s.last, JSON.stringify({ view: visible.all(s.id) }), s.created_at);
    }
  },
};

/**
 * Records that hide messages but are not compactions get a marker row in `compactions` of their
 * own trigger (messages.archived_by references that table); lists of compactions leave them out.
 */
export type MarkerTrigger = 'rewind' | 'revert' | 'repair';
export const MARKER_TRIGGERS: readonly MarkerTrigger[] = ['rewind', 'revert', 'repair'];

interface CacheRow {
  id: string;
  pos: number | null;
  archived_by: string | null;
  shown_blocks: string | null;
  shown_pinned: number | null;
}

export class HistoryLog {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO history_records (session_id, id, kind, after_seq, body, created_at)
         VALUES (@session_id, @id, @kind, (SELECT COALESCE(MAX(seq), 0) FROM messages WHERE session_id = @session_id), @body, @created_at)`,
      ),
      messages: db.prepare<[string], { id: string; seq: number; added_by: string | null }>(
        'SELECT id, seq, added_by FROM messages WHERE session_id = ? ORDER BY seq',
      ),
      records: db.prepare<[string], { id: string; kind: RecordKind; after_seq: number; body: string }>(
        'SELECT id, kind, after_seq, body FROM history_records WHERE session_id = ? ORDER BY rid',
      ),
      marker: db.prepare(
        `INSERT INTO compactions (session_id, id, trigger, status, reason, tokens_before, tokens_after, archived_count, preserved_count,
           summary_tokens, method, duration_ms, model, usage, created_at)
         VALUES (@session_id, @id, @trigger, 'applied', @reason, 0, 0, @archived, 0, 0, @trigger, 0, '', '{}', @created_at)`,
      ),
      counted: db.prepare<[number, string, string]>('UPDATE compactions SET archived_count = ? WHERE session_id = ? AND id = ?'),
      kindOf: db.prepare<[string, string], RecordKind>('SELECT kind FROM history_records WHERE session_id = ? AND id = ?').pluck(),
      cache: db.prepare<[string], CacheRow>('SELECT id, pos, archived_by, shown_blocks, shown_pinned FROM messages WHERE session_id = ?'),
      visible: db.prepare<[string], { id: string; pos: number | null }>(
        'SELECT id, pos FROM messages WHERE session_id = ? AND archived_by IS NULL ORDER BY pos, rid',
      ),
      show: db.prepare<[number, string, string]>('UPDATE messages SET pos = ?, archived_by = NULL WHERE session_id = ? AND id = ?'),
      hide: db.prepare<[string, string, string]>('UPDATE messages SET archived_by = ?, pos = NULL WHERE session_id = ? AND id = ?'),
      revise: db.prepare<[string, number | null, string, string]>('UPDATE messages SET shown_blocks = ?, shown_tokens = ? WHERE session_id = ? AND id = ?'),
      pin: db.prepare<[number, string, string]>('UPDATE messages SET shown_pinned = ? WHERE session_id = ? AND id = ?'),
      setCache: db.prepare(
        `UPDATE messages SET pos = @pos, archived_by = @archived_by, shown_blocks = @shown_blocks, shown_pinned = @shown_pinned,
           shown_tokens = CASE WHEN @shown_blocks IS NULL THEN NULL WHEN @shown_blocks IS shown_blocks THEN shown_tokens ELSE NULL END
         WHERE session_id = @session_id AND id = @id`,
      ),
    };
  }

  append(sessionId: string, r: HistoryRecord, createdAt: number): void {
    this.stmts.insert.run({ session_id: sessionId, id: r.id, kind: r.kind, body: JSON.stringify(r.body), created_at: createdAt });
  }

  /**
   * Appends a record that follows from the visible history alone (every kind but a revert),
   * after the messages it adds were inserted: the reducer applies it to the cached view
   * (stepFrom) and what that step changed is written to the cache. `tokens` counts a message
   * shown with revised blocks. Returns the step, and the ids it took out of view in view order.
   */
  step(
    sessionId: string,
    record: StepRecord,
    added: readonly string[],
    createdAt: number,
    tokens?: (id: string, blocks: Block[]) => number | null,
  ): { state: HistoryState; hidden: string[] } {
    const rows = this.stmts.visible.all(sessionId);
    const st = stepFrom(
      rows.map((r) => r.id),
      record,
      added,
    );
    const pos = new Map(rows.map((r) => [r.id, r.pos]));
    st.view.forEach((id, i) => {
      if (pos.get(id) !== i) this.stmts.show.run(i, sessionId, id);
    });
    for (const [id, by] of st.hiddenBy) this.stmts.hide.run(by, sessionId, id);
    for (const [id, r] of st.revised) this.stmts.revise.run(JSON.stringify(r.blocks), tokens ? tokens(id, r.blocks) : null, sessionId, id);
    for (const [id, pinned] of st.pinned) this.stmts.pin.run(pinned ? 1 : 0, sessionId, id);
    this.append(sessionId, record, createdAt);
    return { state: st, hidden: rows.filter((r) => st.hiddenBy.has(r.id)).map((r) => r.id) };
  }

  /** The marker row of a rewind, revert or repair record (see MarkerTrigger). */
  marker(sessionId: string, m: { id: string; trigger: MarkerTrigger; reason: string; archived: number; createdAt: number }): void {
    this.stmts.marker.run({ session_id: sessionId, id: m.id, trigger: m.trigger, reason: m.reason, archived: m.archived, created_at: m.createdAt });
  }

  /** How many messages a marked record took out of view, once it is known. */
  counted(sessionId: string, id: string, archived: number): void {
    this.stmts.counted.run(archived, sessionId, id);
  }

  kindOf(sessionId: string, id: string): RecordKind | undefined {
    return this.stmts.kindOf.get(sessionId, id);
  }

  /** The session's messages and records in log order. */
  load(sessionId: string): LogEntry[] {
    const messages = this.stmts.messages.all(sessionId);
    const records = this.stmts.records.all(sessionId);
    const log: LogEntry[] = [];
    let r = 0;
    for (const m of messages) {
      while (r < records.length && records[r]!.after_seq < m.seq) log.push(recordEntry(records[r++]!, sessionId));
      log.push({ type: 'message', id: m.id, addedBy: m.added_by });
    }
    while (r < records.length) log.push(recordEntry(records[r++]!, sessionId));
    return log;
  }

  /**
   * Rewrites the cached view of the session from a replay of its whole log; returns the ids
   * whose archive state changed to archived (for the search index). Messages a baseline hid
   * keep the compaction that archived them before v5.
   */
  refresh(sessionId: string, d: HistoryState, baselines: ReadonlySet<string>): string[] {
    const pos = new Map(d.view.map((id, i) => [id, i]));
    const newlyArchived: string[] = [];
    for (const row of this.stmts.cache.all(sessionId)) {
      const p = pos.get(row.id) ?? null;
      const hider = d.hiddenBy.get(row.id);
      const archivedBy = p !== null ? null : hider === undefined || baselines.has(hider) ? (row.archived_by ?? hider ?? null) : hider;
      const revised = d.revised.get(row.id);
      const shownBlocks = revised ? JSON.stringify(revised.blocks) : null;
      const pinned = d.pinned.get(row.id);
      const shownPinned = pinned === undefined ? null : pinned ? 1 : 0;
      if (p === row.pos && archivedBy === row.archived_by && shownBlocks === row.shown_blocks && shownPinned === row.shown_pinned) continue;
      if (archivedBy !== null && row.archived_by === null) newlyArchived.push(row.id);
      this.stmts.setCache.run({ session_id: sessionId, id: row.id, pos: p, archived_by: archivedBy, shown_blocks: shownBlocks, shown_pinned: shownPinned });
    }
    return newlyArchived;
  }
}

function recordEntry(r: { id: string; kind: RecordKind; body: string }, sessionId: string): LogEntry {
  let body: unknown;
  try {
    body = JSON.parse(r.body);
  } catch {
    throw new DecodeError(`history record ${r.id} of session ${sessionId} holds malformed JSON`);
  }
  const missing = body !== null && typeof body === 'object' ? missingField(r.kind, body as Record<string, unknown>) : 'body';
  if (missing !== undefined) throw new DecodeError(`history record ${r.id} (${r.kind}) of session ${sessionId} has no valid ${missing}`);
  return { type: 'record', id: r.id, kind: r.kind, body } as LogEntry;
}

const isIds = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isList = (v: unknown): boolean =>
  Array.isArray(v) && v.every((x) => x !== null && typeof x === 'object' && typeof (x as { id?: unknown }).id === 'string');

/** The field a record's body lacks or holds in the wrong shape (its kind's required and optional fields). */
function missingField(kind: RecordKind, b: Record<string, unknown>): string | undefined {
  const fields: Record<RecordKind, Array<[string, (v: unknown) => boolean, boolean]>> = {
    compaction: [
      ['view', isIds, false],
      ['revisions', isList, false],
    ],
    rewind: [['cut', (v) => typeof v === 'string', true]],
    repair: [
      ['inserts', isList, true],
      ['revisions', isList, false],
    ],
    pin: [['pins', isList, true]],
    revert: [
      ['target', (v) => typeof v === 'string', true],
      ['restore', isIds, false],
    ],
    baseline: [['view', isIds, true]],
  };
  if (!RECORD_KINDS.includes(kind)) return 'kind';
  return fields[kind].find(([name, ok, required]) => (b[name] === undefined ? required : !ok(b[name])))?.[0];
}
