import type Database from 'better-sqlite3';
import type { ClearedOutput, CompactionChange, CompactionRecord } from '../compaction/types.js';
import type { Message } from '../llm/messages.js';
import { collectToolCalls, titleFrom } from './archive-text.js';
import {
  decodeCompaction,
  decodeMessage,
  decodeMeta,
  encodeCompaction,
  encodeMessage,
  encodeMeta,
  type CompactionRow,
  type MessageParams,
  type MessageRow,
} from './codec.js';
import { InvalidInputError, StoreError, toStoreError } from './errors.js';
import { toFtsQuery } from './fts-query.js';
import { ArchiveIndexer } from './search-index.js';
import { SessionWrites } from './sessionWrites.js';
import { REWIND_TRIGGER, SnapshotTables, type FileSnapshot, type NewSnapshot, type RewindRecord, type SnapshotTurn } from './snapshots.js';
import type {
  ArchivedItem,
  ArchiveHit,
  ArchiveKind,
  LeaseHolder,
  LeaseOwner,
  LeaseResult,
  NewSession,
  SearchOptions,
  SessionInfo,
  SessionPatch,
  Store,
  TokenCounter,
  TranscriptEntry,
  VisibleEntry,
  VisibleRewrite,
} from './types.js';

interface SessionRow {
  id: string;
  cwd: string;
  title: string | null;
  provider: string;
  model: string;
  created_at: number;
  updated_at: number;
  meta: string;
  message_count: number;
  visible_count: number;
  compaction_count: number;
  context_tokens: number | null;
}

interface HitRow {
  id: string;
  kind: ArchiveKind;
  label: string;
  session_id: string;
  created_at: number;
  snippet: string;
  rank: number;
}

const SESSION_COLS = 'id, cwd, title, provider, model, created_at, updated_at, meta, message_count, visible_count, compaction_count, context_tokens';
const MESSAGE_COLS = 'id, role, kind, pinned, blocks, tokens, usage, model, interrupted, created_at';
const COMPACTION_COLS =
  'id, trigger, focus, status, reason, tokens_before, tokens_after, archived_count, preserved_count, summary_tokens, summary, method, duration_ms, model, usage, created_at';
const SNIPPET = "snippet(archive_fts, 0, '«', '»', '…', 24)";
const MAX_PAGE = 1_000;

/** SQL of the resume query, exported so a test can check its plan uses the partial index. */
export const LOAD_VISIBLE_SQL = `SELECT ${MESSAGE_COLS} FROM messages WHERE session_id = ? AND archived_by IS NULL ORDER BY pos, rid`;

export class SqliteStore implements Store {
  private readonly indexer: ArchiveIndexer;
  private readonly sessionWrites: SessionWrites;
  private readonly snapshots: SnapshotTables;
  private readonly stmts;
  /** Statements whose SQL depends on the call (search shapes, update patches), prepared once each. */
  private readonly dynamic = new Map<string, Database.Statement<[Record<string, unknown>], unknown>>();

  constructor(
    private readonly db: Database.Database,
    readonly file: string,
    readonly readonly: boolean,
    private readonly busyTimeoutMs: number,
  ) {
    this.indexer = new ArchiveIndexer(db);
    this.sessionWrites = new SessionWrites(db);
    this.snapshots = new SnapshotTables(db);
    this.stmts = {
      session: db.prepare<[string], SessionRow>(`SELECT ${SESSION_COLS} FROM sessions WHERE id = ?`),
      sessionsByPrefix: db.prepare<[string, string], SessionRow>(`SELECT ${SESSION_COLS} FROM sessions WHERE id >= ? AND id < ? ORDER BY id LIMIT 3`),
      // the footer shows an id's last characters (the random part): they name a session too
      sessionsBySuffix: db.prepare<[string, string], SessionRow>(`SELECT ${SESSION_COLS} FROM sessions WHERE substr(id, -length(?)) = ? ORDER BY id LIMIT 3`),
      latest: db.prepare<[], SessionRow>(`SELECT ${SESSION_COLS} FROM sessions ORDER BY touched DESC LIMIT 1`),
      latestIn: db.prepare<[string], SessionRow>(`SELECT ${SESSION_COLS} FROM sessions WHERE cwd = ? ORDER BY touched DESC LIMIT 1`),
      list: db.prepare<[number], SessionRow>(`SELECT ${SESSION_COLS} FROM sessions ORDER BY touched DESC LIMIT ?`),
      listIn: db.prepare<[string, number], SessionRow>(`SELECT ${SESSION_COLS} FROM sessions WHERE cwd = ? ORDER BY touched DESC LIMIT ?`),
      nextTouch: db.prepare<[], number>('SELECT COALESCE(MAX(touched), 0) + 1 FROM sessions').pluck(),
      insertSession: db.prepare(
        `INSERT INTO sessions (id, cwd, title, provider, model, created_at, updated_at, touched, meta)
         VALUES (@id, @cwd, @title, @provider, @model, @now, @now, @touched, @meta)`,
      ),
      deleteSession: db.prepare<[string]>('DELETE FROM sessions WHERE id = ?'),
      hasMessage: db.prepare<[string, string], number>('SELECT 1 FROM messages WHERE session_id = ? AND id = ?').pluck(),
      nextSeq: db.prepare<[string], number>('SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = ?').pluck(),
      nextPos: db.prepare<[string], number>('SELECT COALESCE(MAX(pos), -1) + 1 FROM messages WHERE session_id = ? AND archived_by IS NULL').pluck(),
      insertMessage: db.prepare(
        `INSERT INTO messages (session_id, id, seq, pos, role, kind, pinned, blocks, tokens, usage, model, interrupted, created_at)
         VALUES (@session_id, @id, @seq, @pos, @role, @kind, @pinned, @blocks, @tokens, @usage, @model, @interrupted, @created_at)`,
      ),
      afterAppend: db.prepare(
        `UPDATE sessions SET message_count = message_count + 1, visible_count = visible_count + 1,
           title = COALESCE(title, @title), updated_at = @now, touched = @touched WHERE id = @id`,
      ),
      visible: db.prepare<[string], MessageRow>(LOAD_VISIBLE_SQL),
      visibleIds: db.prepare<[string], string>('SELECT id FROM messages WHERE session_id = ? AND archived_by IS NULL').pluck(),
      transcript: db.prepare<[string], MessageRow & { archived_by: string | null }>(
        `SELECT ${MESSAGE_COLS}, archived_by FROM messages WHERE session_id = ? ORDER BY seq`,
      ),
      transcriptVisible: db.prepare<[string], MessageRow & { archived_by: string | null }>(
        `SELECT ${MESSAGE_COLS}, archived_by FROM messages WHERE session_id = ? AND archived_by IS NULL ORDER BY seq`,
      ),
      message: db.prepare<[string, string], MessageRow>(`SELECT ${MESSAGE_COLS} FROM messages WHERE session_id = ? AND id = ?`),
      insertCompaction: db.prepare(
        `INSERT INTO compactions (session_id, ${COMPACTION_COLS})
         VALUES (@session_id, @id, @trigger, @focus, @status, @reason, @tokens_before, @tokens_after, @archived_count, @preserved_count,
                 @summary_tokens, @summary, @method, @duration_ms, @model, @usage, @created_at)`,
      ),
      compactions: db.prepare<[string], CompactionRow>(
        `SELECT ${COMPACTION_COLS} FROM compactions WHERE session_id = ? AND trigger <> '${REWIND_TRIGGER}' ORDER BY seq`,
      ),
      replaceMessage: db.prepare(
        `UPDATE messages SET role = @role, kind = @kind, pinned = @pinned, blocks = @blocks, tokens = @tokens, usage = @usage,
           model = @model, interrupted = @interrupted WHERE session_id = @session_id AND id = @id AND archived_by IS NULL`,
      ),
      setPinned: db.prepare<[number | null, string, string]>('UPDATE messages SET pinned = ? WHERE session_id = ? AND id = ? AND archived_by IS NULL'),
      archiveMessage: db.prepare<[string, string, string]>('UPDATE messages SET archived_by = ?, pos = NULL WHERE session_id = ? AND id = ?'),
      setPos: db.prepare<[number, string, string]>('UPDATE messages SET pos = ? WHERE session_id = ? AND id = ?'),
      hasArchivedOutput: db.prepare<[string, string], number>('SELECT 1 FROM tool_output_archive WHERE session_id = ? AND id = ?').pluck(),
      insertOutput: db.prepare(
        `INSERT INTO tool_output_archive (session_id, id, message_id, tool_use_id, tool_name, summary, content, is_error, tokens, compaction_id, created_at)
         VALUES (@session_id, @id, @message_id, @tool_use_id, @tool_name, @summary, @content, @is_error, @tokens, @compaction_id, @created_at)`,
      ),
      afterCompaction: db.prepare(
        `UPDATE sessions SET message_count = message_count + @added, visible_count = @visible, compaction_count = compaction_count + 1,
           updated_at = @now, touched = @touched WHERE id = @id`,
      ),
      archivedRef: db.prepare<[string], { rid: number; kind: ArchiveKind; session_id: string; label: string; created_at: number }>(
        'SELECT rid, kind, session_id, label, created_at FROM archive_index WHERE ref_id = ? ORDER BY rid DESC LIMIT 1',
      ),
      archivedRefIn: db.prepare<[string, string], { rid: number; kind: ArchiveKind; session_id: string; label: string; created_at: number }>(
        'SELECT rid, kind, session_id, label, created_at FROM archive_index WHERE ref_id = ? AND session_id = ? ORDER BY rid DESC LIMIT 1',
      ),
      ftsBody: db.prepare<[number], string>('SELECT body FROM archive_fts WHERE rowid = ?').pluck(),
      outputContent: db.prepare<[string, string], string>('SELECT content FROM tool_output_archive WHERE session_id = ? AND id = ?').pluck(),
    };
  }

  // --- sessions -----------------------------------------------------------------------------

  createSession(s: NewSession): SessionInfo {
    return this.write('create a session', () => {
      for (const k of ['id', 'cwd', 'provider', 'model'] as const) {
        if (typeof s[k] !== 'string' || s[k] === '') throw new InvalidInputError(`a session needs a non-empty ${k}`);
      }
      if (this.stmts.session.get(s.id)) throw new InvalidInputError(`session ${s.id} already exists`);
      this.stmts.insertSession.run({
        id: s.id,
        cwd: s.cwd,
        title: s.title ?? null,
        provider: s.provider,
        model: s.model,
        now: Date.now(),
        touched: this.stmts.nextTouch.get(),
        meta: encodeMeta(s.meta ?? {}, s.id),
      });
      return this.sessionInfo(this.stmts.session.get(s.id)!);
    });
  }

  updateSession(id: string, patch: SessionPatch): void {
    this.write('update a session', () => {
      const sets: string[] = [];
      const params: Record<string, unknown> = { id, now: Date.now(), touched: this.stmts.nextTouch.get() };
      const set = (column: string, value: unknown) => {
        sets.push(`${column} = @${column}`);
        params[column] = value;
      };
      if (patch.title !== undefined) set('title', patch.title);
      for (const k of ['provider', 'model'] as const) {
        const v = patch[k];
        if (v === undefined) continue;
        if (typeof v !== 'string' || v === '') throw new InvalidInputError(`${k} must be a non-empty string`);
        set(k, v);
      }
      if (patch.meta !== undefined) set('meta', encodeMeta(patch.meta, id));
      if (patch.contextTokens !== undefined) {
        const t = patch.contextTokens;
        if (t !== null && (!Number.isInteger(t) || t < 0)) throw new InvalidInputError(`contextTokens must be a non-negative integer or null, got ${t}`);
        set('context_tokens', t);
      }
      sets.push('updated_at = @now', 'touched = @touched');
      const { changes } = this.prepared(`UPDATE sessions SET ${sets.join(', ')} WHERE id = @id`).run(params);
      if (changes === 0) throw this.noSession(id);
    });
  }

  getSession(idOrPrefix: string): SessionInfo | undefined {
    return this.read('look up a session', () => {
      if (idOrPrefix === '') return undefined;
      const exact = this.stmts.session.get(idOrPrefix);
      if (exact) return this.sessionInfo(exact);
      let matches = this.stmts.sessionsByPrefix.all(idOrPrefix, `${idOrPrefix}\u{10FFFF}`);
      if (matches.length === 0 && !idOrPrefix.includes('_')) matches = this.stmts.sessionsByPrefix.all(`s_${idOrPrefix}`, `s_${idOrPrefix}\u{10FFFF}`);
      if (matches.length === 0 && idOrPrefix.length >= 4) matches = this.stmts.sessionsBySuffix.all(idOrPrefix, idOrPrefix);
      if (matches.length === 0) return undefined;
      if (matches.length > 1) {
        const shown = matches.slice(0, 2).map((m) => m.id).join(', ');
        throw new StoreError('not_found', this.file, `The short session id "${idOrPrefix}" is ambiguous: it matches ${shown}${matches.length > 2 ? ' and more' : ''}. Give more characters.`);
      }
      return this.sessionInfo(matches[0]!);
    });
  }

  latestSession(cwd?: string): SessionInfo | undefined {
    return this.read('find the latest session', () => {
      const row = cwd === undefined ? this.stmts.latest.get() : this.stmts.latestIn.get(cwd);
      return row ? this.sessionInfo(row) : undefined;
    });
  }

  listSessions(opts: { cwd?: string; limit?: number } = {}): SessionInfo[] {
    return this.read('list sessions', () => {
      const limit = opts.limit ?? -1; // SQLite: a negative LIMIT means none
      if (opts.limit !== undefined && (!Number.isInteger(limit) || limit < 0)) throw new InvalidInputError(`limit must be a non-negative integer, got ${opts.limit}`);
      const rows = opts.cwd === undefined ? this.stmts.list.all(limit) : this.stmts.listIn.all(opts.cwd, limit);
      return rows.map((r) => this.sessionInfo(r));
    });
  }

  deleteSession(id: string): void {
    this.write('delete a session', () => {
      if (this.stmts.deleteSession.run(id).changes === 0) throw this.noSession(id);
    });
  }

  forkSession(fromId: string, to: NewSession): SessionInfo {
    return this.write('fork a session', () => {
      this.requireSession(fromId);
      if (this.stmts.session.get(to.id)) throw new InvalidInputError(`session ${to.id} already exists`);
      this.sessionWrites.fork(fromId, to, this.stmts.nextTouch.get()!);
      return this.sessionInfo(this.stmts.session.get(to.id)!);
    });
  }

  acquireLease(sessionId: string, owner: LeaseOwner, stale: (holder: LeaseHolder) => boolean): LeaseResult {
    return this.write('take the session lease', () => {
      this.requireSession(sessionId);
      return this.sessionWrites.acquire(sessionId, owner, stale);
    });
  }

  renewLease(sessionId: string, token: string): boolean {
    return this.write('renew the session lease', () => this.sessionWrites.renew(sessionId, token));
  }

  releaseLease(sessionId: string, token: string): void {
    this.write('release the session lease', () => this.sessionWrites.release(sessionId, token));
  }

  getLease(sessionId: string): LeaseHolder | undefined {
    return this.read('read the session lease', () => this.sessionWrites.leaseOf(sessionId));
  }

  rewriteVisible(sessionId: string, change: VisibleRewrite, tokens?: TokenCounter): void {
    this.write('repair the visible history', () => {
      this.requireSession(sessionId);
      const { added, visible } = this.sessionWrites.rewriteVisible(sessionId, change, tokens);
      this.db
        .prepare('UPDATE sessions SET message_count = message_count + ?, visible_count = ?, updated_at = ?, touched = ? WHERE id = ?')
        .run(added, visible, Date.now(), this.stmts.nextTouch.get(), sessionId);
    });
  }

  // --- messages -----------------------------------------------------------------------------

  appendMessage(sessionId: string, msg: Message, tokens: number | null): void {
    this.write('append a message', () => {
      const params = encodeMessage(msg, tokens);
      this.requireSession(sessionId);
      if (this.stmts.hasMessage.get(sessionId, msg.id)) throw new InvalidInputError(`message ${msg.id} is already stored in session ${sessionId}`);
      this.insertMessage(sessionId, params, this.stmts.nextPos.get(sessionId)!);
      this.stmts.afterAppend.run({ id: sessionId, title: titleFrom(msg), now: Date.now(), touched: this.stmts.nextTouch.get() });
    });
  }

  setPinned(sessionId: string, messageId: string, pinned: boolean): void {
    this.write('unpin a message', () => {
      if (this.stmts.setPinned.run(pinned ? 1 : null, sessionId, messageId).changes === 0) throw new StoreError('not_found', this.file, `no visible message ${messageId} in session ${sessionId}`);
    });
  }

  loadVisible(sessionId: string): Message[] {
    return this.loadVisibleEntries(sessionId).map((e) => e.message);
  }

  loadVisibleEntries(sessionId: string): VisibleEntry[] {
    return this.read('load the visible history', () => {
      this.requireSession(sessionId);
      return this.stmts.visible.all(sessionId).map((r) => ({ message: decodeMessage(r), tokens: r.tokens }));
    });
  }

  loadTranscript(sessionId: string, opts: { includeArchived: boolean }): TranscriptEntry[] {
    return this.read('load the transcript', () => {
      this.requireSession(sessionId);
      const rows = (opts.includeArchived ? this.stmts.transcript : this.stmts.transcriptVisible).all(sessionId);
      return rows.map((r) => ({ message: decodeMessage(r), archivedBy: r.archived_by }));
    });
  }

  // --- compactions --------------------------------------------------------------------------

  applyCompaction(sessionId: string, change: CompactionChange, tokens?: TokenCounter): void {
    this.write('apply a compaction', () => {
      const record = encodeCompaction(change.record);
      if (record.status !== 'applied') throw new InvalidInputError(`compaction ${record.id} has status ${record.status}; record it with recordCompactionFailure`);
      const added = change.added.map((m) => encodeMessage(m, tokens ? tokens(m) : null));
      const replaced = change.replaced.map((m) => encodeMessage(m, tokens ? tokens(m) : null));
      this.requireSession(sessionId);
      this.checkChange(sessionId, change);

      this.stmts.insertCompaction.run({ session_id: sessionId, ...record });
      for (const p of replaced) this.stmts.replaceMessage.run({ session_id: sessionId, ...p });
      for (const p of added) this.insertMessage(sessionId, p, null);

      const archived = change.archivedIds.map((id) => decodeMessage(this.stmts.message.get(sessionId, id)!));
      const calls = collectToolCalls([...archived, ...change.messages]);
      for (const id of change.archivedIds) this.stmts.archiveMessage.run(record.id, sessionId, id);
      for (const m of archived) this.indexer.message(sessionId, m, calls);

      for (const c of change.cleared) this.archiveOutput(sessionId, c, record.id, record.created_at);

      change.messages.forEach((m, i) => this.stmts.setPos.run(i, sessionId, m.id));
      this.stmts.afterCompaction.run({
        id: sessionId,
        added: added.length,
        visible: change.messages.length,
        now: Date.now(),
        touched: this.stmts.nextTouch.get(),
      });
    });
  }

  recordCompactionFailure(sessionId: string, record: CompactionRecord): void {
    this.write('record a compaction attempt', () => {
      const row = encodeCompaction(record);
      if (row.status === 'applied') throw new InvalidInputError(`compaction ${row.id} was applied; store it with applyCompaction`);
      this.requireSession(sessionId);
      this.stmts.insertCompaction.run({ session_id: sessionId, ...row });
    });
  }

  listCompactions(sessionId: string): CompactionRecord[] {
    return this.read('list compactions', () => {
      this.requireSession(sessionId);
      return this.stmts.compactions.all(sessionId).map(decodeCompaction);
    });
  }

  // --- snapshots and rewinds ----------------------------------------------------------------

  saveSnapshot(sessionId: string, snapshot: NewSnapshot): boolean {
    return this.write('store a file snapshot', () => {
      this.requireSession(sessionId);
      return this.snapshots.save(sessionId, snapshot);
    });
  }

  snapshotsSince(sessionId: string, turnId: string): FileSnapshot[] {
    return this.read('read file snapshots', () => this.snapshots.since(sessionId, turnId));
  }

  snapshotTurns(sessionId: string): SnapshotTurn[] {
    return this.read('list file snapshots', () => this.snapshots.turns(sessionId));
  }

  rewindConversation(sessionId: string, rewind: RewindRecord): string[] {
    return this.write('rewind the conversation', () => {
      this.requireSession(sessionId);
      return this.snapshots.rewind(sessionId, rewind);
    });
  }

  // --- archive ------------------------------------------------------------------------------

  searchArchive(query: string, opts: SearchOptions): ArchiveHit[] {
    return this.read('search the archive', () => {
      const q = this.parseQuery(query, opts);
      const where = opts.sessionId === undefined ? '' : 'AND i.session_id = @session';
      const from = `FROM archive_fts JOIN archive_index i ON i.rid = archive_fts.rowid WHERE archive_fts MATCH @match ${where}`;
      const params = { session: opts.sessionId, limit: opts.limit, offset: opts.offset };
      // All terms when some row has them all; otherwise any term, ranked by bm25.
      let match = q.all;
      if (q.all !== q.any && this.prepared(`SELECT 1 ${from} LIMIT 1`).get(this.bind({ ...params, match })) === undefined) match = q.any;
      const rows = this.prepared(
        `SELECT i.ref_id AS id, i.kind, i.label, i.session_id, i.created_at, ${SNIPPET} AS snippet, bm25(archive_fts) AS rank
         ${from} ORDER BY rank, i.rid LIMIT @limit OFFSET @offset`,
      ).all(this.bind({ ...params, match })) as HitRow[];
      return rows.map(toHit);
    });
  }

  likeScanArchive(query: string, opts: SearchOptions): ArchiveHit[] {
    return this.read('scan the archive', () => {
      const q = this.parseQuery(query, opts);
      const likes = q.terms.map((_, i) => `f.body LIKE @t${i} ESCAPE '\\'`);
      if (opts.sessionId !== undefined) likes.push('i.session_id = @session');
      const params: Record<string, unknown> = { session: opts.sessionId, limit: opts.limit, offset: opts.offset };
      q.terms.forEach((t, i) => (params[`t${i}`] = `%${t.replace(/[\\%_]/g, (c) => `\\${c}`)}%`));
      const rows = this.prepared(
        `SELECT i.ref_id AS id, i.kind, i.label, i.session_id, i.created_at, f.body
         FROM archive_index i JOIN archive_fts f ON f.rowid = i.rid
         WHERE ${likes.join(' AND ')} ORDER BY i.created_at DESC, i.rid DESC LIMIT @limit OFFSET @offset`,
      ).all(this.bind(params)) as Array<Omit<HitRow, 'snippet' | 'rank'> & { body: string }>;
      return rows.map((r) => toHit({ ...r, snippet: likeSnippet(r.body, q.terms), rank: 0 }));
    });
  }

  getArchived(id: string, opts: { sessionId?: string } = {}): ArchivedItem | undefined {
    return this.read('read the archive', () => {
      const ref = opts.sessionId === undefined ? this.stmts.archivedRef.get(id) : this.stmts.archivedRefIn.get(id, opts.sessionId);
      if (!ref) return undefined;
      const text = ref.kind === 'tool_output' ? this.stmts.outputContent.get(ref.session_id, id) : this.stmts.ftsBody.get(ref.rid);
      if (text === undefined) return undefined;
      return { id, kind: ref.kind, label: ref.label, text, sessionId: ref.session_id, createdAt: ref.created_at };
    });
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  // --- internals ----------------------------------------------------------------------------

  private insertMessage(sessionId: string, p: MessageParams, pos: number | null): void {
    this.stmts.insertMessage.run({ session_id: sessionId, seq: this.stmts.nextSeq.get(sessionId), pos, ...p });
  }

  private archiveOutput(sessionId: string, c: ClearedOutput, compactionId: string, archivedAt: number): void {
    const owner = this.stmts.message.get(sessionId, c.messageId)!;
    this.stmts.insertOutput.run({
      session_id: sessionId,
      id: c.archiveId,
      message_id: c.messageId,
      tool_use_id: c.toolUseId,
      tool_name: c.toolName,
      summary: c.summary,
      content: c.content,
      is_error: c.isError ? 1 : 0,
      tokens: c.tokens,
      compaction_id: compactionId,
      created_at: archivedAt,
    });
    this.indexer.clearedOutput(sessionId, c, owner.created_at);
  }

  /**
   * Refuses a change that would lose or duplicate anything: every visible message stays visible
   * or is archived; the new visible list holds only kept or added messages, once each; every
   * cleared mark points at an archived original.
   */
  private checkChange(sessionId: string, change: CompactionChange): void {
    const visible = new Set(this.stmts.visibleIds.all(sessionId));
    const archived = uniqueIds(change.archivedIds, 'archivedIds');
    const added = uniqueIds(change.added.map((m) => m.id), 'added');
    const next = uniqueIds(change.messages.map((m) => m.id), 'messages');
    for (const id of archived) if (!visible.has(id)) throw new InvalidInputError(`archived message ${id} is not in the visible history`);
    for (const id of added) if (this.stmts.hasMessage.get(sessionId, id)) throw new InvalidInputError(`added message ${id} is already stored`);
    for (const id of added) if (!next.has(id)) throw new InvalidInputError(`added message ${id} is not in the new visible history`);
    for (const id of next) {
      if (archived.has(id)) throw new InvalidInputError(`message ${id} is both archived and kept visible`);
      if (!visible.has(id) && !added.has(id)) throw new InvalidInputError(`message ${id} of the new visible history is neither visible now nor added`);
    }
    for (const id of visible) {
      if (!next.has(id) && !archived.has(id)) throw new InvalidInputError(`message ${id} would leave the visible history without being archived`);
    }
    for (const m of change.replaced) if (!visible.has(m.id)) throw new InvalidInputError(`replaced message ${m.id} is not in the visible history`);
    const clearedIds = uniqueIds(change.cleared.map((c) => c.archiveId), 'cleared');
    for (const c of change.cleared) {
      if (!visible.has(c.messageId)) throw new InvalidInputError(`cleared output ${c.archiveId} belongs to message ${c.messageId}, which is not in the visible history`);
      if (this.stmts.hasArchivedOutput.get(sessionId, c.archiveId)) throw new InvalidInputError(`tool output ${c.archiveId} is already archived`);
    }
    for (const m of [...change.replaced, ...change.added]) {
      for (const b of m.blocks) {
        if (b.type !== 'tool_result' || !b.cleared) continue;
        const id = b.cleared.archiveId;
        if (!clearedIds.has(id) && !this.stmts.hasArchivedOutput.get(sessionId, id)) {
          throw new InvalidInputError(`message ${m.id} marks a tool result cleared as ${id}, but that original is not in the archive nor in change.cleared`);
        }
      }
    }
  }

  private parseQuery(query: string, opts: SearchOptions) {
    for (const k of ['limit', 'offset'] as const) {
      const v = opts[k];
      if (!Number.isInteger(v) || v < 0 || (k === 'limit' && (v < 1 || v > MAX_PAGE))) {
        throw new InvalidInputError(`${k} must be an integer ${k === 'limit' ? `from 1 to ${MAX_PAGE}` : '≥ 0'}, got ${v}`);
      }
    }
    const q = toFtsQuery(query);
    if (!q) throw new InvalidInputError('the search query is empty: give one or more words to look for');
    return q;
  }

  private prepared(sql: string): Database.Statement<[Record<string, unknown>], unknown> {
    let stmt = this.dynamic.get(sql);
    if (!stmt) {
      stmt = this.db.prepare<[Record<string, unknown>], unknown>(sql);
      this.dynamic.set(sql, stmt);
    }
    return stmt;
  }

  /** Named parameters minus the undefined ones (better-sqlite3 refuses undefined values). */
  private bind(params: Record<string, unknown>): Record<string, unknown> {
    return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
  }

  private requireSession(id: string): void {
    if (!this.stmts.session.get(id)) throw this.noSession(id);
  }

  private noSession(id: string): StoreError {
    return new StoreError('not_found', this.file, `There is no session ${id} in ${this.file}.`);
  }

  private sessionInfo(r: SessionRow): SessionInfo {
    return {
      id: r.id,
      cwd: r.cwd,
      title: r.title,
      provider: r.provider,
      model: r.model,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      meta: decodeMeta(r.meta, r.id),
      messageCount: r.message_count,
      visibleCount: r.visible_count,
      compactionCount: r.compaction_count,
      contextTokens: r.context_tokens,
    };
  }

  private read<T>(action: string, fn: () => T): T {
    this.ensureOpen(action);
    try {
      return fn();
    } catch (e) {
      throw toStoreError(e, { file: this.file, action, busyTimeoutMs: this.busyTimeoutMs });
    }
  }

  /** Runs fn in one IMMEDIATE transaction: committed when this returns, rolled back on any error. */
  private write<T>(action: string, fn: () => T): T {
    this.ensureOpen(action);
    if (this.readonly) throw new StoreError('readonly', this.file, `Could not ${action}: ${this.file} was opened read-only.`);
    try {
      return this.db.transaction(fn).immediate();
    } catch (e) {
      throw toStoreError(e, { file: this.file, action, busyTimeoutMs: this.busyTimeoutMs });
    }
  }

  private ensureOpen(action: string): void {
    if (!this.db.open) throw new StoreError('io', this.file, `Could not ${action}: the store for ${this.file} is closed.`);
  }
}

function uniqueIds(ids: readonly string[], what: string): Set<string> {
  const set = new Set(ids);
  if (set.size !== ids.length) throw new InvalidInputError(`change.${what} lists an id twice`);
  return set;
}

const toHit = (r: HitRow): ArchiveHit => ({
  id: r.id,
  kind: r.kind,
  label: r.label,
  snippet: r.snippet,
  sessionId: r.session_id,
  createdAt: r.created_at,
  rank: r.rank,
});

/** A window of text around the first term found, with the terms marked like FTS5 snippets. */
function likeSnippet(body: string, terms: readonly string[], radius = 80): string {
  const lower = body.toLowerCase();
  let at = -1;
  for (const t of terms) {
    const i = lower.indexOf(t.toLowerCase());
    if (i !== -1 && (at === -1 || i < at)) at = i;
  }
  const start = Math.max(0, at - radius);
  const end = Math.min(body.length, (at === -1 ? 0 : at) + radius * 2);
  let s = body.slice(start, end);
  for (const t of terms) {
    s = s.replace(new RegExp(t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), (m) => `«${m}»`);
  }
  return `${start > 0 ? '…' : ''}${s}${end < body.length ? '…' : ''}`;
}
