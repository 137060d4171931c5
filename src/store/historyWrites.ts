// Everything that changes a session's visible history other than appending a message:
// compactions, rewinds, repairs, pin changes and reverts. Each appends a record to the log
// (historyLog.ts) and brings the cached view to what the reducer (history/reduce.ts) gives; no
// message row's content is rewritten. SqliteStore runs each inside its IMMEDIATE write transaction.
import type Database from 'better-sqlite3';
import type { ClearedOutput, CompactionCommit, CompactionRecord } from '../history/compaction.js';
import { deriveHistory, LogError, type HistoryState } from '../history/reduce.js';
import type { LogEntry, RevertBody, Revision, StepRecord } from '../history/records.js';
import { shownMessage } from '../history/view.js';
import { isToolResultMessage, newId, type Block, type Message } from '../llm/messages.js';
import { collectToolCalls } from '../llm/messageText.js';
import { cleanBlocks, decodeCompaction, decodeMessage, encodeCompaction, encodeMessage, MESSAGE_COLS, type CompactionRow, type MessageRow } from './codec.js';
import { InvalidInputError } from './errors.js';
import { HistoryLog, MARKER_TRIGGERS } from './historyLog.js';
import type { RewindRecord } from './snapshots.js';
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
      visibleMessages: db.prepare<[string], MessageRow>(`SELECT ${MESSAGE_COLS} FROM messages WHERE session_id = ? AND archived_by IS NULL ORDER BY pos, rid`),
      cacheOf: db.prepare<[string, string], { pos: number | null; archived_by: string | null }>(
        'SELECT pos, archived_by FROM messages WHERE session_id = ? AND id = ?',
      ),
      hasMessage: db.prepare<[string, string], number>('SELECT 1 FROM messages WHERE session_id = ? AND id = ?').pluck(),
      message: db.prepare<[string, string], MessageRow>(`SELECT ${MESSAGE_COLS} FROM messages WHERE session_id = ? AND id = ?`),
      archivedBy: db.prepare<[string, string], MessageRow>(`SELECT ${MESSAGE_COLS} FROM messages WHERE session_id = ? AND archived_by = ? ORDER BY seq`),
      stored: db.prepare<[string, string], MessageRow>(
        'SELECT id, role, kind, pinned, blocks, tokens, usage, model, interrupted, created_at, prefix_hash, origin FROM messages WHERE session_id = ? AND id = ?',
      ),
      // a message a record adds is out of view until the record shows it (its marker or receipt row is written first)
      insertMessage: db.prepare(
        `INSERT INTO messages (session_id, id, seq, pos, archived_by, role, kind, pinned, blocks, tokens, usage, model, interrupted, created_at, added_by, prefix_hash, origin)
         VALUES (@session_id, @id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = @session_id), NULL, @added_by,
                 @role, @kind, @pinned, @blocks, @tokens, @usage, @model, @interrupted, @created_at, @added_by, @prefix_hash, @origin)`,
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
      hasArchivedOutput: db.prepare<[string, string], number>('SELECT 1 FROM tool_output_archive WHERE session_id = ? AND id = ?').pluck(),
      insertOutput: db.prepare(
        `INSERT INTO tool_output_archive (session_id, id, message_id, tool_use_id, tool_name, summary, content, is_error, tokens, compaction_id, created_at)
         VALUES (@session_id, @id, @message_id, @tool_use_id, @tool_name, @summary, @content, @is_error, @tokens, @compaction_id, @created_at)`,
      ),
    };
  }

  // --- compactions --------------------------------------------------------------------------

  /** Stores the receipt, the messages it adds and the outputs it clears; appends its record and applies it to the cache. */
  applyCompaction(sessionId: string, c: CompactionCommit, tokens: TokenCounter | undefined): { added: number; visible: number } {
    const record = encodeCompaction(c.record);
    if (record.status !== 'applied') throw new InvalidInputError(`compaction ${record.id} has status ${record.status}; record it with recordCompactionFailure`);
    this.checkCommit(sessionId, c, new Set(this.stmts.visibleIds.all(sessionId)));
    const revisions = c.body.revisions ? cleanRevisions(c.body.revisions) : undefined;
    this.stmts.insertCompaction.run({ session_id: sessionId, ...record });
    const { state } = this.commit(sessionId, { kind: 'compaction', id: record.id, body: { ...c.body, ...(revisions ? { revisions } : {}) } }, c.added, {
      createdAt: record.created_at,
      tokens,
    });
    for (const o of c.cleared) this.archiveOutput(sessionId, o, record.id, record.created_at);
    return { added: c.added.length, visible: state.view.length };
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
  private inEffect(sessionId: string): { log: LogEntry[]; derived: HistoryState; hidden: (recordId: string) => number } {
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
    this.log.append(sessionId, { id: req.id, kind: 'revert', body: revertBody(req) }, req.createdAt);
    const baselines = new Set(log.flatMap((e) => (e.type === 'record' && e.kind === 'baseline' ? [e.id] : [])));
    const archived = this.log.refresh(sessionId, d, baselines);
    const messages = archived.map((id) => decodeMessage(this.stmts.message.get(sessionId, id)!));
    const calls = collectToolCalls(messages);
    for (const m of messages) this.indexer.message(sessionId, m, calls);
    return d.view.length;
  }

  /** The log with the revert appended, and what it derives. */
  private deriveWith(sessionId: string, req: RevertRequest): { log: LogEntry[]; derived: HistoryState } {
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
  private shownEntry(sessionId: string, id: string, d: HistoryState): VisibleEntry {
    const row = this.stmts.stored.get(sessionId, id)!;
    return { message: shownMessage(decodeMessage(row), d), tokens: d.revised.has(id) ? null : row.tokens };
  }

  // --- rewinds, repairs and pins -----------------------------------------------------------

  /** A conversation rewind: the turn's message and everything visible after it leave the view (searchable, like compacted messages). */
  rewind(sessionId: string, r: RewindRecord): { hidden: string[]; visible: number } {
    const at = this.stmts.cacheOf.get(sessionId, r.turnId);
    if (!at) throw new InvalidInputError(`message ${r.turnId} is not in session ${sessionId}`);
    if (at.archived_by !== null || at.pos === null) throw new InvalidInputError(`message ${r.turnId} is no longer in the visible history`);
    this.log.marker(sessionId, { id: r.id, trigger: 'rewind', reason: `rewound to ${r.turnId}`, archived: 0, createdAt: r.createdAt });
    const { state, hidden } = this.commit(sessionId, { kind: 'rewind', id: r.id, body: { cut: r.turnId } }, [], { createdAt: r.createdAt });
    this.log.counted(sessionId, r.id, hidden.length);
    return { hidden, visible: state.view.length };
  }

  /**
   * A repair: every visible message stays, in its order (some shown with new blocks,
   * `replaced`); new ones (`added`) are inserted where they belong. Nothing is lost. Returns
   * the record appended.
   */
  rewriteVisible(sessionId: string, change: VisibleRewrite, tokens: TokenCounter | undefined): { record: StepRecord; visible: number } {
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
    this.log.marker(sessionId, { id, trigger: 'repair', reason: 'repaired on load', archived: 0, createdAt: now });
    const inserts = change.messages.flatMap((m, i) => (added.has(m.id) ? [{ id: m.id, after: i === 0 ? null : change.messages[i - 1]!.id }] : []));
    const revisions = cleanRevisions(change.replaced);
    const record: StepRecord = { kind: 'repair', id, body: { inserts, ...(revisions.length > 0 ? { revisions } : {}) } };
    const { state } = this.commit(sessionId, record, change.added, { createdAt: now, tokens });
    return { record, visible: state.view.length };
  }

  /** A pin change of a visible message; the record appended, or undefined when the message is not visible. */
  setPinned(sessionId: string, messageId: string, pinned: boolean): StepRecord | undefined {
    const at = this.stmts.cacheOf.get(sessionId, messageId);
    if (!at || at.archived_by !== null) return undefined;
    const record: StepRecord = { kind: 'pin', id: newId('pn'), body: { pins: [{ id: messageId, pinned }] } };
    this.commit(sessionId, record, [], { createdAt: Date.now() });
    return record;
  }

  // --- internals ----------------------------------------------------------------------------

  /**
   * Every record but a revert: the messages it adds are inserted, the record is appended and
   * applied to the cache (HistoryLog.step), and what it added and took out of view is indexed.
   */
  private commit(
    sessionId: string,
    record: StepRecord,
    added: readonly Message[],
    o: { createdAt: number; tokens?: TokenCounter | undefined },
  ): { state: HistoryState; hidden: string[] } {
    const { tokens } = o;
    for (const m of added) this.stmts.insertMessage.run({ session_id: sessionId, ...encodeMessage(m, tokens ? tokens(m) : null), added_by: record.id });
    const count = tokens ? (id: string, blocks: Block[]) => tokens({ ...decodeMessage(this.stmts.message.get(sessionId, id)!), blocks }) : undefined;
    const step = this.log.step(
      sessionId,
      record,
      added.map((m) => m.id),
      o.createdAt,
      count,
    );
    this.index(sessionId, step.hidden, added);
    return step;
  }

  /** Indexes what a record added and took out of view (a message already indexed keeps its entry). */
  private index(sessionId: string, hidden: readonly string[], added: readonly Message[]): void {
    if (hidden.length === 0 && added.length === 0) return;
    const archived = hidden.map((id) => decodeMessage(this.stmts.message.get(sessionId, id)!));
    // a tool result a repair adds is labelled by the call it answers, which is in view
    const around = added.some(isToolResultMessage) ? this.stmts.visibleMessages.all(sessionId).map(decodeMessage) : [];
    const calls = collectToolCalls([...archived, ...around, ...added]);
    for (const m of [...archived, ...added]) this.indexer.message(sessionId, m, calls);
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
   * Refuses a compaction the log could not take: an added message already stored or left out
   * of the view it gives, a view of messages neither visible nor added, a revision of a message
   * out of view, a cleared mark without its original. (What leaves the view is hidden by the
   * record, whatever it is: nothing can be lost.)
   */
  private checkCommit(sessionId: string, c: CompactionCommit, visible: ReadonlySet<string>): void {
    const added = uniqueIds(
      c.added.map((m) => m.id),
      'added',
    );
    for (const id of added) if (this.stmts.hasMessage.get(sessionId, id)) throw new InvalidInputError(`added message ${id} is already stored`);
    const next = c.body.view ? uniqueIds(c.body.view, 'view') : visible;
    for (const id of added) if (!next.has(id)) throw new InvalidInputError(`added message ${id} is not in the new visible history`);
    for (const id of next) {
      if (!visible.has(id) && !added.has(id)) throw new InvalidInputError(`message ${id} of the new visible history is neither visible now nor added`);
    }
    const revised = c.body.revisions ?? [];
    uniqueIds(
      revised.map((r) => r.id),
      'revisions',
    );
    for (const r of revised) if (!visible.has(r.id)) throw new InvalidInputError(`revised message ${r.id} is not in the visible history`);
    const clearedIds = uniqueIds(
      c.cleared.map((o) => o.archiveId),
      'cleared',
    );
    for (const o of c.cleared) {
      if (!visible.has(o.messageId))
        throw new InvalidInputError(`cleared output ${o.archiveId} belongs to message ${o.messageId}, which is not in the visible history`);
      if (this.stmts.hasArchivedOutput.get(sessionId, o.archiveId)) throw new InvalidInputError(`tool output ${o.archiveId} is already archived`);
    }
    for (const m of [...revised, ...c.added]) {
      for (const b of m.blocks) {
        if (b.type !== 'tool_result' || !b.cleared) continue;
        const id = b.cleared.archiveId;
        if (!clearedIds.has(id) && !this.stmts.hasArchivedOutput.get(sessionId, id)) {
          throw new InvalidInputError(
            `message ${m.id} marks a tool result cleared as ${id}, but that original is not in the archive nor in the cleared outputs`,
          );
        }
      }
    }
  }
}

/** Revised blocks as they are stored (only the fields their types declare). */
const cleanRevisions = (revisions: readonly Revision[]): Revision[] => revisions.map((r) => ({ id: r.id, blocks: cleanBlocks(r.blocks, r.id) }));

const revertBody = (req: RevertRequest): RevertBody => ({ target: req.target, ...(req.restore ? { restore: [...req.restore] } : {}) });

function uniqueIds(ids: readonly string[], what: string): Set<string> {
  const set = new Set(ids);
  if (set.size !== ids.length) throw new InvalidInputError(`the compaction's ${what} lists an id twice`);
  return set;
}
