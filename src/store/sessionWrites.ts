// Writes that concern a whole session rather than one message: the writer's lease, a fork
// (a full copy under a new id).
// SqliteStore runs each of these inside its IMMEDIATE write transaction.
import type Database from 'better-sqlite3';
import { FILE_READ_COLS } from './fileReads.js';
import { SPILL_COLS } from './spills.js';
import type { LeaseHolder, LeaseOwner, LeaseResult, NewSession } from './types.js';

interface LeaseRow {
  token: string;
  pid: number;
  host: string;
  acquired_at: number;
  heartbeat_at: number;
}

const holderOf = (r: LeaseRow): LeaseHolder => ({ token: r.token, pid: r.pid, host: r.host, acquiredAt: r.acquired_at, heartbeatAt: r.heartbeat_at });

export class SessionWrites {
  private readonly stmts;

  constructor(private readonly db: Database.Database) {
    this.stmts = {
      lease: db.prepare<[string], LeaseRow>('SELECT token, pid, host, acquired_at, heartbeat_at FROM session_leases WHERE session_id = ?'),
      putLease: db.prepare(
        `INSERT INTO session_leases (session_id, token, pid, host, acquired_at, heartbeat_at) VALUES (@id, @token, @pid, @host, @now, @now)
         ON CONFLICT (session_id) DO UPDATE SET token = @token, pid = @pid, host = @host, acquired_at = @now, heartbeat_at = @now`,
      ),
      renew: db.prepare<[number, string, string]>('UPDATE session_leases SET heartbeat_at = ? WHERE session_id = ? AND token = ?'),
      release: db.prepare<[string, string]>('DELETE FROM session_leases WHERE session_id = ? AND token = ?'),
    };
  }

  leaseOf(sessionId: string): LeaseHolder | undefined {
    const row = this.stmts.lease.get(sessionId);
    return row ? holderOf(row) : undefined;
  }

  /** Takes the lease unless a live writer holds it; `stale` decides whether a holder is gone. */
  acquire(sessionId: string, owner: LeaseOwner, stale: (holder: LeaseHolder) => boolean): LeaseResult {
    const current = this.leaseOf(sessionId);
    if (current && current.token !== owner.token && !stale(current)) return { acquired: false, holder: current };
    this.stmts.putLease.run({ id: sessionId, token: owner.token, pid: owner.pid, host: owner.host, now: Date.now() });
    return current && current.token !== owner.token ? { acquired: true, tookOver: current } : { acquired: true };
  }

  /** False when the lease is no longer this owner's (it was taken over as stale). */
  renew(sessionId: string, token: string): boolean {
    return this.stmts.renew.run(Date.now(), sessionId, token).changes === 1;
  }

  release(sessionId: string, token: string): void {
    this.stmts.release.run(sessionId, token);
  }

  /**
   * Copies a session under a new id: messages (visible and archived, same order), compactions,
   * archived tool outputs and their search index, and the session's counters and meta.
   */
  fork(fromId: string, to: NewSession, touched: number): void {
    const now = Date.now();
    this.db
      .prepare(
        `INSERT INTO sessions (id, cwd, title, provider, model, created_at, updated_at, touched, meta, message_count, visible_count, compaction_count, context_tokens)
         SELECT @to, @cwd, @title, @provider, @model, @now, @now, @touched, meta, message_count, visible_count, compaction_count, context_tokens
         FROM sessions WHERE id = @from`,
      )
      .run({ to: to.id, cwd: to.cwd, title: to.title ?? null, provider: to.provider, model: to.model, now, touched, from: fromId });
    const copy = (table: string, cols: string): void => {
      this.db.prepare(`INSERT INTO ${table} (session_id, ${cols}) SELECT ?, ${cols} FROM ${table} WHERE session_id = ?`).run(to.id, fromId);
    };
    copy(
      'compactions',
      'id, trigger, focus, status, reason, tokens_before, tokens_after, archived_count, preserved_count, summary_tokens, summary, method, duration_ms, model, usage, created_at',
    );
    copy(
      'messages',
      'id, seq, pos, role, kind, pinned, blocks, tokens, usage, model, interrupted, created_at, archived_by, added_by, shown_blocks, shown_pinned, shown_tokens, prefix_hash, origin',
    );
    copy('history_records', 'id, kind, after_seq, body, created_at');
    copy('tool_output_archive', 'id, message_id, tool_use_id, tool_name, summary, content, is_error, tokens, compaction_id, created_at');
    copy('spilled_outputs', SPILL_COLS);
    copy('file_reads', FILE_READ_COLS);
    const index = this.db
      .prepare<[string], { kind: string; ref_id: string; label: string; created_at: number; body: string }>(
        'SELECT i.kind, i.ref_id, i.label, i.created_at, f.body FROM archive_index i JOIN archive_fts f ON f.rowid = i.rid WHERE i.session_id = ? ORDER BY i.rid',
      )
      .all(fromId);
    const insertIndex = this.db.prepare('INSERT INTO archive_index (session_id, kind, ref_id, label, created_at) VALUES (?, ?, ?, ?, ?)');
    const insertText = this.db.prepare('INSERT INTO archive_fts (rowid, body) VALUES (?, ?)');
    for (const r of index) insertText.run(insertIndex.run(to.id, r.kind, r.ref_id, r.label, r.created_at).lastInsertRowid, r.body);
  }
}
