// Everything that changes a session's visible history other than appending a message:
// compactions, repairs, pin changes and reverts. Each appends a record to the log
// (historyLog.ts) and brings the cached view up to date; no message row's content is
// rewritten. SqliteStore runs each of these inside its IMMEDIATE write transaction.
import type Database from 'better-sqlite3';
import type { ClearedOutput, CompactionChange, CompactionRecord } from '../compaction/types.js';
import { newId, type Block, type Message } from '../llm/messages.js';
import { collectToolCalls } from './archive-text.js';
import {
  decodeCompaction,
  decodeMessage,
  encodeCompaction,
  encodeMessage,
  MESSAGE_COLS,
  type CompactionRow,
  type MessageParams,
  type MessageRow,
} from './codec.js';
import { deriveHistory, LogError, type Derived, type LogEntry, type RecordBody } from './derive.js';
import { InvalidInputError } from './errors.js';
import { HistoryLog, MARKER_TRIGGERS } from './historyLog.js';
import { ArchiveIndexer } from './search-index.js';
import type { CompactionInEffect, RevertRequest, RewindInEffect, TokenCounter, VisibleEntry, VisibleRewrite } from './types.js';

const COMPACTION_COLS =
  'id, trigger, focus, status, reason, tokens_before, tokens_after, archived_count, preserved_count, summary_tokens, summary, method, duration_ms, model, usage, created_at, report';
const NOT_COMPACTIONS = `(${MARKER_TRIGGERS.map((t) => `'${t}'`).join(', ')})`;

export class HistoryWrites {
  readonly log: HistoryLog;
  private readonly indexer: ArchiveIndexer;
  private readonly stmts;

  constructor(db: Database.Database) {
    this.log = new HistoryLog(db);
    this.indexer = new ArchiveIndexer(db);
    this.stmts = {
      visibleIds: db.prepare<[string], string>('SELECT id FROM messages WHERE session_id = ? AND archived_by IS NULL ORDER BY pos, rid').pluck(),
      hasMessage: db.prepare<[string, string], number>('SELECT 1 FROM messages WHERE session_id = ? AND id = ?').pluck(),
      message: db.prepare<[string, string], MessageRow>(`SELECT ${MESSAGE_COLS} FROM messages WHERE session_id = ? AND id = ?`),
      archivedBy: db.prepare<[string, string], MessageRow>(`SELECT ${MESSAGE_COLS} FROM messages WHERE session_id = ? AND archived_by = ? ORDER BY seq`),
      stored: db.prepare<[string, string], MessageRow>(
        'SELECT id, role, kind, pinned, blocks, tokens, usage, model, interrupted, created_at, prefix_hash FROM messages WHERE session_id = ? AND id = ?',
      ),
      insertMessage: db.prepare(
        `INSERT INTO messages (session_id, id, seq, pos, role, kind, pinned, blocks, tokens, usage, model, interrupted, created_at, added_by, prefix_hash)
         VALUES (@session_id, @id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = @session_id), NULL,
                 @role, @kind, @pinned, @blocks, @tokens, @usage, @model, @interrupted, @created_at, @added_by, @prefix_hash)`,
      ),
      insertCompaction: db.prepare(
        `INSERT INTO compactions (session_id, ${COMPACTION_COLS})
         VALUES (@session_id, @id, @trigger, @focus, @status, @reason, @tokens_before, @tokens_after, @archived_count, @preserved_count,
                 @summary_tokens, @summary, @method, @duration_ms, @model, @usage, @created_at, @report)`,
      ),
      compaction: db.prepare<[string, string], CompactionRow>(`SELECT ${COMPACTION_COLS} FROM compactions WHERE session_id = ? AND id = ?`),
      compactions: db.prepare<[string], CompactionRow>(
        `SELECT ${COMPACTION_COLS} FROM compactions WHERE session_id = ? AND trigger NOT IN ${NOT_COMPACTIONS} ORDER BY seq`,
      ),
      show: db.prepare(
        'UPDATE messages SET shown_blocks = @blocks, shown_tokens = @tokens WHERE session_id = @session_id AND id = @id AND archived_by IS NULL',
      ),
      showPinned: db.prepare<[number, string, string]>('UPDATE messages SET shown_pinned = ? WHERE session_id = ? AND id = ? AND archived_by IS NULL'),
      archive: db.prepare<[string, string, string]>('UPDATE messages SET archived_by = ?, pos = NULL WHERE session_id = ? AND id = ?'),
      setPos: db.prepare<[number, string, string]>('UPDATE messages SET pos = ? WHERE session_id = ? AND id = ?'),
      hasArchivedOutput: db.prepare<[string, string], number>('SELECT 1 FROM tool_output_archive WHERE session_id = ? AND id = ?').pluck(),
      insertOutput: db.prepare(
        `INSERT INTO tool_output_archive (session_id, id, message_id, tool_use_id, tool_name, summary, content, is_error, tokens, compaction_id, created_at)
         VALUES (@session_id, @id, @message_id, @tool_use_id, @tool_name, @summary, @content, @is_error, @tokens, @compaction_id, @created_at)`,
      ),
    };
  }

  // --- compactions --------------------------------------------------------------------------

  /** Stores the record, the messages it adds and the outputs it clears; appends its view and revisions to the log. */
  applyCompaction(sessionId: string, change: CompactionChange, tokens: TokenCounter | undefined): { added: number; visible: number } {
    const record = encodeCompaction(change.record);
    if (record.status !== 'applied') throw new InvalidInputError(`compaction ${record.id} has status ${record.status}; record it with recordCompactionFailure`);
    const added = change.added.map((m) => encodeMessage(m, tokens ? tokens(m) : null));
    const replaced = change.replaced.map((m) => encodeMessage(m, tokens ? tokens(m) : null));
    const visibleNow = this.stmts.visibleIds.all(sessionId);
    this.checkChange(sessionId, change, new Set(visibleNow));

    this.stmts.insertCompaction.run({ session_id: sessionId, ...record });
    for (const p of added) this.insertAdded(sessionId, p, record.id);
    this.showRevisions(sessionId, replaced);

    const archived = change.archivedIds.map((id) => decodeMessage(this.stmts.message.get(sessionId, id)!));
    const calls = collectToolCalls([...archived, ...change.messages]);
    for (const id of change.archivedIds) this.stmts.archive.run(record.id, sessionId, id);
    for (const m of [...archived, ...change.added]) this.indexer.message(sessionId, m, calls);
    for (const c of change.cleared) this.archiveOutput(sessionId, c, record.id, record.created_at);
    change.messages.forEach((m, i) => this.stmts.setPos.run(i, sessionId, m.id));

    const view = change.messages.map((m) => m.id);
    const sameView = view.length === visibleNow.length && view.every((id, i) => id === visibleNow[i]);
    this.log.append(sessionId, {
      id: record.id,
      kind: 'compaction',
      body: { ...(sameView ? {} : { view }), ...(replaced.length > 0 ? { revisions: replaced.map(revision) } : {}) },
      createdAt: record.created_at,
    });
    return { added: added.length, visible: view.length };
  }

  recordFailure(sessionId: string, record: CompactionRecord): void {
    const row = encodeCompaction(record);
    if (row.status === 'applied') throw new InvalidInputError(`compaction ${row.id} was applied; store it with applyCompaction`);
    this.stmts.insertCompaction.run({ session_id: sessionId, ...row });
  }

  listCompactions(sessionId: string): CompactionRecord[] {
    return this.stmts.compactions.all(sessionId).map(decodeCompaction);
  }

  /** Compactions whose effect stands (a revert can undo them), oldest first, with how many messages each keeps out of view. */
  compactionsInEffect(sessionId: string): CompactionInEffect[] {
    const { derived, hidden } = this.inEffect(sessionId);
    return derived.compactions.map((id) => ({ record: decodeCompaction(this.stmts.compaction.get(sessionId, id)!), hidden: hidden(id) }));
  }

  /** Conversation rewinds whose effect stands, oldest first: the turn each cut at and how many messages it keeps out. */
  rewindsInEffect(sessionId: string): RewindInEffect[] {
    const { log, derived, hidden } = this.inEffect(sessionId);
    const cuts = new Map(log.flatMap((e) => (e.type === 'record' && e.kind === 'rewind' ? [[e.id, e.body.cut ?? ''] as const] : [])));
    return derived.rewinds.map((id) => ({ id, turnId: cuts.get(id) ?? '', hidden: hidden(id) }));
  }

  /** The messages a record keeps out of view, in the order they were appended. */
  hiddenBy(sessionId: string, recordId: string): Message[] {
    return this.stmts.archivedBy.all(sessionId, recordId).map(decodeMessage);
  }

  /** The session's log, what it derives, and how many messages each record keeps out of view. */
  private inEffect(sessionId: string): { log: LogEntry[]; derived: Derived; hidden: (recordId: string) => number } {
    const log = this.log.load(sessionId);
    const derived = deriveHistory(log);
    const counts = new Map<string, number>();
    for (const by of derived.hiddenBy.values()) counts.set(by, (counts.get(by) ?? 0) + 1);
    return { log, derived, hidden: (id) => counts.get(id) ?? 0 };
  }

  // --- reverts ------------------------------------------------------------------------------

  /** The visible history a revert would give, without storing anything. */
  previewRevert(sessionId: string, req: RevertRequest): VisibleEntry[] {
    const { derived } = this.deriveWith(sessionId, req);
    return derived.view.map((id) => this.shownEntry(sessionId, id, derived));
  }

  /** Appends a revert record and brings the cache to what it derives; returns the new visible count. */
  revert(sessionId: string, req: RevertRequest): number {
    const { log, derived: d } = this.deriveWith(sessionId, req);
    const shown = new Set(d.view);
    const undone = this.stmts.visibleIds.all(sessionId).filter((id) => !shown.has(id));
    this.log.marker(sessionId, { id: req.id, trigger: 'revert', reason: `reverted ${req.target}`, archived: undone.length, createdAt: req.createdAt });
    this.log.append(sessionId, { id: req.id, kind: 'revert', body: revertBody(req), createdAt: req.createdAt });
    const baselines = new Set(log.flatMap((e) => (e.type === 'record' && e.kind === 'baseline' ? [e.id] : [])));
    const archived = this.log.refresh(sessionId, d, baselines);
    const messages = archived.map((id) => decodeMessage(this.stmts.message.get(sessionId, id)!));
    const calls = collectToolCalls(messages);
    for (const m of messages) this.indexer.message(sessionId, m, calls);
    return d.view.length;
  }

  /** The log with the revert appended, and what it derives. */
  private deriveWith(sessionId: string, req: RevertRequest): { log: LogEntry[]; derived: Derived } {
    if (this.stmts.hasMessage.get(sessionId, req.id) || this.log.kindOf(sessionId, req.id)) throw new InvalidInputError(`record ${req.id} already exists`);
    const log: LogEntry[] = [...this.log.load(sessionId), { type: 'record', id: req.id, kind: 'revert', body: revertBody(req) }];
    try {
      return { log, derived: deriveHistory(log) };
    } catch (e) {
      if (e instanceof LogError) throw new InvalidInputError(`cannot revert ${req.target}: it is not a compaction or rewind in effect in session ${sessionId}`);
      throw e;
    }
  }

  /** A message as the derivation shows it (its revised blocks and pinned flag); a stored count only where the blocks are the stored ones. */
  private shownEntry(sessionId: string, id: string, d: Derived): VisibleEntry {
    const row = this.stmts.stored.get(sessionId, id)!;
    const m = decodeMessage(row);
    const revised = d.revised.get(id);
    const pinned = d.pinned.get(id);
    const message: Message = { ...m, ...(revised ? { blocks: revised.blocks } : {}) };
    if (pinned === true) message.pinned = true;
    if (pinned === false) delete message.pinned;
    return { message, tokens: revised ? null : row.tokens };
  }

  // --- repairs and pins ---------------------------------------------------------------------

  /**
   * A repair: every visible message stays, in its order (some shown with new blocks,
   * `replaced`); new ones (`added`) are inserted where they belong. Nothing is lost.
   */
  rewriteVisible(sessionId: string, change: VisibleRewrite, tokens: TokenCounter | undefined): { added: number; visible: number } {
    const visibleNow = this.stmts.visibleIds.all(sessionId);
    const visible = new Set(visibleNow);
    const next = new Set(change.messages.map((m) => m.id));
    if (next.size !== change.messages.length) throw new InvalidInputError('the rewritten history lists a message twice');
    for (const id of visible) if (!next.has(id)) throw new InvalidInputError(`message ${id} would leave the visible history`);
    const added = new Set(change.added.map((m) => m.id));
    for (const m of change.messages) if (!visible.has(m.id) && !added.has(m.id)) throw new InvalidInputError(`message ${m.id} is neither visible nor added`);
    for (const m of change.replaced) if (!visible.has(m.id)) throw new InvalidInputError(`replaced message ${m.id} is not in the visible history`);
    const kept = change.messages.filter((m) => visible.has(m.id)).map((m) => m.id);
    if (kept.some((id, i) => id !== visibleNow[i])) throw new InvalidInputError('a repair keeps the visible messages in their order');

    const id = newId('rp');
    const now = Date.now();
    const count = (m: Message): number | null => (tokens ? tokens(m) : null);
    this.log.marker(sessionId, { id, trigger: 'repair', reason: 'repaired on load', archived: 0, createdAt: now });
    for (const m of change.added) this.insertAdded(sessionId, encodeMessage(m, count(m)), id);
    for (const m of change.added) this.indexer.appended(sessionId, m);
    const replaced = change.replaced.map((m) => encodeMessage(m, count(m)));
    this.showRevisions(sessionId, replaced);
    const inserts = change.messages.flatMap((m, i) => (added.has(m.id) ? [{ id: m.id, after: i === 0 ? null : change.messages[i - 1]!.id }] : []));
    change.messages.forEach((m, pos) => this.stmts.setPos.run(pos, sessionId, m.id));
    this.log.append(sessionId, {
      id,
      kind: 'repair',
      body: { inserts, ...(replaced.length > 0 ? { revisions: replaced.map(revision) } : {}) },
      createdAt: now,
    });
    return { added: change.added.length, visible: change.messages.length };
  }

  setPinned(sessionId: string, messageId: string, pinned: boolean): boolean {
    if (this.stmts.showPinned.run(pinned ? 1 : 0, sessionId, messageId).changes === 0) return false;
    this.log.append(sessionId, { id: newId('pn'), kind: 'pin', body: { pins: [{ id: messageId, pinned }] }, createdAt: Date.now() });
    return true;
  }

  // --- internals ----------------------------------------------------------------------------

  private insertAdded(sessionId: string, p: MessageParams, by: string): void {
    this.stmts.insertMessage.run({ session_id: sessionId, ...p, added_by: by });
  }

  private showRevisions(sessionId: string, replaced: readonly MessageParams[]): void {
    for (const p of replaced) this.stmts.show.run({ session_id: sessionId, id: p.id, blocks: p.blocks, tokens: p.tokens });
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
   * Refuses a change that would lose or duplicate anything: every visible message stays
   * visible or is archived; the new visible list holds only kept or added messages, once each;
   * every cleared mark points at an archived original.
   */
  private checkChange(sessionId: string, change: CompactionChange, visible: ReadonlySet<string>): void {
    const archived = uniqueIds(change.archivedIds, 'archivedIds');
    const added = uniqueIds(
      change.added.map((m) => m.id),
      'added',
    );
    const next = uniqueIds(
      change.messages.map((m) => m.id),
      'messages',
    );
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
    const clearedIds = uniqueIds(
      change.cleared.map((c) => c.archiveId),
      'cleared',
    );
    for (const c of change.cleared) {
      if (!visible.has(c.messageId))
        throw new InvalidInputError(`cleared output ${c.archiveId} belongs to message ${c.messageId}, which is not in the visible history`);
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
}

const revision = (p: MessageParams): { id: string; blocks: Block[] } => ({ id: p.id, blocks: JSON.parse(p.blocks) as Block[] });

const revertBody = (req: RevertRequest): RecordBody => ({ target: req.target, ...(req.restore ? { restore: [...req.restore] } : {}) });

function uniqueIds(ids: readonly string[], what: string): Set<string> {
  const set = new Set(ids);
  if (set.size !== ids.length) throw new InvalidInputError(`change.${what} lists an id twice`);
  return set;
}
