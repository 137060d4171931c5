import type Database from 'better-sqlite3';
import type { CompactionCommit, CompactionRecord } from '../history/compaction.js';
import { deriveHistory } from '../history/reduce.js';
import type { LogEntry, StepRecord } from '../history/records.js';
import type { Message } from '../llm/messages.js';
import { ArchiveIndexer } from './search-index.js';
import { ArchiveSearch } from './archiveSearch.js';
import { ChildSessions, parentParams } from './childSessions.js';
import { titleFrom } from './archive-text.js';
import { decodeMessage, encodeMessage, encodeMeta, messageRowOf, type MessageParams } from './codec.js';
import { InvalidInputError, StoreError, toStoreError } from './errors.js';
import { HistoryWrites } from './historyWrites.js';
import { sessionInfo } from './sessionRow.js';
import { SessionWrites } from './sessionWrites.js';
import { CapabilityTable, type StoredCapabilities } from './capabilities.js';
import { SnapshotTables, type FileSnapshot, type NewSnapshot, type RewindRecord, type SnapshotTurn } from './snapshots.js';
import { FileReadTable } from './fileReads.js';
import { SandboxViolationTable } from './sandboxViolations.js';
import { SpillTable } from './spills.js';
import { StatementCache } from './statementCache.js';
import { prepareStoreStatements, type StoreStatements } from './storeStatements.js';
import type { ArchivedItem, ArchiveHit, CompactionInEffect, LeaseHolder, LeaseOwner, LeaseResult, NewSession, RevertRequest } from './types.js';
import type { RewindInEffect, SearchOptions, SessionInfo, SessionPatch, Store, TokenCounter, TranscriptEntry, VisibleEntry, VisibleRewrite } from './types.js';

export { LOAD_VISIBLE_SQL } from './storeStatements.js';
export class SqliteStore implements Store {
  private readonly sessionWrites: SessionWrites;
  private readonly history: HistoryWrites;
  private readonly snapshots: SnapshotTables;
  readonly spilled: SpillTable;
  readonly fileReads: FileReadTable;
  readonly sandboxViolations: SandboxViolationTable;
  private readonly search: ArchiveSearch;
  private readonly index: ArchiveIndexer;
  private readonly capabilities: CapabilityTable;
  private readonly statements: StatementCache;
  private readonly stmts: StoreStatements;

  constructor(
    private readonly db: Database.Database,
    readonly file: string,
    readonly readonly: boolean,
    private readonly busyTimeoutMs: number,
  ) {
    this.sessionWrites = new SessionWrites(db);
    this.history = new HistoryWrites(db);
    this.snapshots = new SnapshotTables(db);
    const guard = { read: <T>(a: string, fn: () => T): T => this.read(a, fn), write: <T>(a: string, fn: () => T): T => this.write(a, fn) };
    this.spilled = new SpillTable(db, guard);
    this.fileReads = new FileReadTable(db, guard);
    this.sandboxViolations = new SandboxViolationTable(db, guard);
    this.search = new ArchiveSearch(db);
    this.index = new ArchiveIndexer(db);
    this.capabilities = new CapabilityTable(db);
    this.statements = new StatementCache(db);
    this.stmts = prepareStoreStatements(db);
  }

  // --- sessions -----------------------------------------------------------------------------

  createSession(s: NewSession): SessionInfo {
    return this.write('create a session', () => {
      for (const k of ['id', 'cwd', 'provider', 'model'] as const)
        if (typeof s[k] !== 'string' || s[k] === '') throw new InvalidInputError(`a session needs a non-empty ${k}`);
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
        ...parentParams(s.parent),
      });
      return sessionInfo(this.stmts.session.get(s.id)!);
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
      const { changes } = this.statements.prepared(`UPDATE sessions SET ${sets.join(', ')} WHERE id = @id`).run(params);
      if (changes === 0) throw this.noSession(id);
    });
  }

  getSession(idOrPrefix: string): SessionInfo | undefined {
    return this.read('look up a session', () => {
      if (idOrPrefix === '') return undefined;
      const exact = this.stmts.session.get(idOrPrefix);
      if (exact) return sessionInfo(exact);
      let matches = this.stmts.sessionsByPrefix.all(idOrPrefix, `${idOrPrefix}\u{10FFFF}`);
      if (matches.length === 0 && !idOrPrefix.includes('_')) matches = this.stmts.sessionsByPrefix.all(`s_${idOrPrefix}`, `s_${idOrPrefix}\u{10FFFF}`);
      if (matches.length === 0 && idOrPrefix.length >= 4) matches = this.stmts.sessionsBySuffix.all(idOrPrefix, idOrPrefix);
      if (matches.length === 0) return undefined;
      if (matches.length > 1) {
        const shown = matches
          .slice(0, 2)
          .map((m) => m.id)
          .join(', ');
        throw new StoreError(
          'not_found',
          this.file,
          `The short session id "${idOrPrefix}" is ambiguous: it matches ${shown}${matches.length > 2 ? ' and more' : ''}. Give more characters.`,
        );
      }
      return sessionInfo(matches[0]!);
    });
  }

  /** The ids that start with `prefix` (a read-only run's copies of a session: sessionLookup.ts). */
  sessionIdsStartingWith(prefix: string): string[] {
    const query = this.statements.prepared('SELECT id FROM sessions WHERE id >= @from AND id < @to');
    return this.read('list sessions by id', () => (query.all({ from: prefix, to: `${prefix}\u{10FFFF}` }) as Array<{ id: string }>).map((r) => r.id));
  }

  latestSession(cwd?: string): SessionInfo | undefined {
    return this.read('find the latest session', () => {
      const row = cwd === undefined ? this.stmts.latest.get() : this.stmts.latestIn.get(cwd);
      return row ? sessionInfo(row) : undefined;
    });
  }

  listSessions(opts: { cwd?: string; limit?: number } = {}): SessionInfo[] {
    return this.read('list sessions', () => {
      const limit = opts.limit ?? -1; // SQLite: a negative LIMIT means none
      if (opts.limit !== undefined && (!Number.isInteger(limit) || limit < 0))
        throw new InvalidInputError(`limit must be a non-negative integer, got ${opts.limit}`);
      const rows = opts.cwd === undefined ? this.stmts.list.all(limit) : this.stmts.listIn.all(opts.cwd, limit);
      return rows.map((r) => sessionInfo(r));
    });
  }

  // child sessions are rare reads and one write per child: their statements are prepared when used
  childSessions(parentId: string): SessionInfo[] {
    return this.read('list child sessions', () => new ChildSessions(this.db).childrenOf(parentId));
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
      return sessionInfo(this.stmts.session.get(to.id)!);
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

  rewriteVisible(sessionId: string, change: VisibleRewrite, tokens?: TokenCounter): StepRecord {
    return this.write('repair the visible history', () => {
      this.requireSession(sessionId);
      const { record, visible } = this.history.rewriteVisible(sessionId, change, tokens);
      this.afterHistoryChange(sessionId, change.added.length, visible, 0);
      return record;
    });
  }

  // --- messages -----------------------------------------------------------------------------

  appendMessage(sessionId: string, msg: Message, tokens: number | null): void {
    this.write('append a message', () => {
      const params = encodeMessage(msg, tokens);
      this.requireSession(sessionId);
      if (this.stmts.hasMessage.get(sessionId, msg.id)) throw new InvalidInputError(`message ${msg.id} is already stored in session ${sessionId}`);
      this.insertMessage(sessionId, params, this.stmts.nextPos.get(sessionId)!);
      this.index.appended(sessionId, msg);
      this.stmts.afterAppend.run({ id: sessionId, title: titleFrom(msg), now: Date.now(), touched: this.stmts.nextTouch.get() });
    });
  }

  setPinned(sessionId: string, messageId: string, pinned: boolean): StepRecord {
    return this.write('unpin a message', () => {
      const record = this.history.setPinned(sessionId, messageId, pinned);
      if (!record) throw new StoreError('not_found', this.file, `no visible message ${messageId} in session ${sessionId}`);
      return record;
    });
  }

  loadVisible(sessionId: string): Message[] {
    return this.loadVisibleEntries(sessionId).map((e) => e.message);
  }

  loadVisibleEntries(sessionId: string): VisibleEntry[] {
    return this.read('load the visible history', () => {
      this.requireSession(sessionId);
      return this.stmts.visible.all(sessionId).map((t) => {
        const r = messageRowOf(t);
        return { message: decodeMessage(r), tokens: r.tokens };
      });
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

  applyCompaction(sessionId: string, commit: CompactionCommit, tokens?: TokenCounter): void {
    this.write('apply a compaction', () => {
      this.requireSession(sessionId);
      const { added, visible } = this.history.applyCompaction(sessionId, commit, tokens);
      this.afterHistoryChange(sessionId, added, visible, 1);
    });
  }

  recordCompactionFailure(sessionId: string, record: CompactionRecord): void {
    this.write('record a compaction attempt', () => {
      this.requireSession(sessionId);
      this.history.recordFailure(sessionId, record);
    });
  }

  listCompactions(sessionId: string): CompactionRecord[] {
    return this.read('list compactions', () => {
      this.requireSession(sessionId);
      return this.history.listCompactions(sessionId);
    });
  }

  compactionsInEffect(sessionId: string): CompactionInEffect[] {
    return this.read('list the compactions in effect', () => {
      this.requireSession(sessionId);
      return this.history.compactionsInEffect(sessionId);
    });
  }

  previewRevert(sessionId: string, req: RevertRequest): VisibleEntry[] {
    return this.read('preview a revert', () => {
      this.requireSession(sessionId);
      return this.history.previewRevert(sessionId, req);
    });
  }

  revertCompaction(sessionId: string, req: RevertRequest): void {
    this.write('revert a compaction', () => {
      this.requireSession(sessionId);
      const visible = this.history.revert(sessionId, req);
      this.afterHistoryChange(sessionId, 0, visible, 0);
    });
  }

  loadArchivedBy(sessionId: string, recordId: string): Message[] {
    return this.read('load what a compaction archived', () => this.history.hiddenBy(sessionId, recordId));
  }

  rewindsInEffect(sessionId: string): RewindInEffect[] {
    return this.read('list the rewinds in effect', () => {
      this.requireSession(sessionId);
      return this.history.rewindsInEffect(sessionId);
    });
  }

  deriveVisibleIds(sessionId: string): string[] {
    return this.read('derive the visible history', () => {
      this.requireSession(sessionId);
      return deriveHistory(this.history.log.load(sessionId)).view;
    });
  }

  historyLog(sessionId: string): LogEntry[] {
    return this.read('read the history log', () => {
      this.requireSession(sessionId);
      return this.history.log.load(sessionId);
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
      const { hidden, visible } = this.history.rewind(sessionId, rewind);
      this.afterHistoryChange(sessionId, 0, visible, 0);
      return hidden;
    });
  }

  // --- archive ------------------------------------------------------------------------------

  searchArchive(query: string, opts: SearchOptions): ArchiveHit[] {
    return this.read('search the archive', () => this.search.search(query, opts));
  }

  likeScanArchive(query: string, opts: SearchOptions): ArchiveHit[] {
    return this.read('scan the archive', () => this.search.likeScan(query, opts));
  }

  getArchived(id: string, opts: { sessionId?: string } = {}): ArchivedItem | undefined {
    return this.read('read the archive', () => this.search.get(id, opts));
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  // --- internals ----------------------------------------------------------------------------
  private insertMessage(sessionId: string, p: MessageParams, pos: number | null): void {
    this.stmts.insertMessage.run({ session_id: sessionId, seq: this.stmts.nextSeq.get(sessionId), pos, ...p });
  }

  /** Counters after a record changed the history: messages it added, the visible count, compactions it applied. */
  private afterHistoryChange(sessionId: string, added: number, visible: number, compactions: number): void {
    this.stmts.afterHistoryChange.run({ id: sessionId, added, visible, compactions, now: Date.now(), touched: this.stmts.nextTouch.get() });
  }

  private requireSession(id: string): void {
    if (!this.stmts.session.get(id)) throw this.noSession(id);
  }

  /** What a provider's models endpoint said of a model, and when (store/capabilities.ts). */
  modelCapabilities = (provider: string, model: string): StoredCapabilities | undefined =>
    this.read('read model capabilities', () => this.capabilities.get(provider, model));
  saveModelCapabilities = (provider: string, model: string, body: string, at: number): void =>
    this.write('save model capabilities', () => this.capabilities.put(provider, model, body, at));

  private noSession(id: string): StoreError {
    return new StoreError('not_found', this.file, `There is no session ${id} in ${this.file}.`);
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
