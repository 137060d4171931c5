// Full-text search over the archive (FTS5, bm25) and the LIKE scan kept for comparison.
import type Database from 'better-sqlite3';
import { InvalidInputError } from './errors.js';
import { toFtsQuery } from './fts-query.js';
import { bindDefined, StatementCache } from './statementCache.js';
import type { Block, ImageBlock } from '../llm/messages.js';
import type { ArchivedItem, ArchiveHit, ArchiveKind, SearchOptions } from './types.js';

interface HitRow {
  id: string;
  kind: ArchiveKind;
  label: string;
  session_id: string;
  created_at: number;
  snippet: string;
  rank: number;
  archived: number;
}

/** Whether an index row is out of the visible history: a cleared output always, a message once a compaction or rewind archived it. */
const ARCHIVED =
  "(i.kind = 'tool_output' OR EXISTS (SELECT 1 FROM messages m WHERE m.session_id = i.session_id AND m.id = i.ref_id AND m.archived_by IS NOT NULL))";

/**
 * What `archivedOnly` keeps: archived content; and, searching a session with its children, every
 * message of a child too (a sub-agent's context never entered the parent's view).
 */
const outOfView = (opts: SearchOptions): string => (opts.sessionId !== undefined && opts.withChildren ? `(i.session_id <> @session OR ${ARCHIVED})` : ARCHIVED);

interface RefRow {
  rid: number;
  kind: ArchiveKind;
  session_id: string;
  label: string;
  created_at: number;
}

const SNIPPET = "snippet(archive_fts, 0, '«', '»', '…', 24)";
const MAX_PAGE = 1_000;

export class ArchiveSearch {
  private readonly statements: StatementCache;
  private readonly archivedRef: Database.Statement<[string], RefRow>;
  private readonly archivedRefIn: Database.Statement<[string, string], RefRow>;
  private readonly ftsBody: Database.Statement<[number], string>;
  private readonly outputContent: Database.Statement<[string, string], string>;
  private readonly spilledContent: Database.Statement<[string, string], string>;
  private readonly outputOwner: Database.Statement<[string, string], { tool_use_id: string; blocks: string }>;
  private readonly messageBlocks: Database.Statement<[string, string], string>;

  constructor(db: Database.Database) {
    this.statements = new StatementCache(db);
    // every message is indexed; only what is out of the visible history is "archived"
    this.archivedRef = db.prepare(
      `SELECT rid, kind, session_id, label, created_at FROM archive_index i WHERE ref_id = ? AND ${ARCHIVED} ORDER BY rid DESC LIMIT 1`,
    );
    this.archivedRefIn = db.prepare(
      `SELECT rid, kind, session_id, label, created_at FROM archive_index i WHERE ref_id = ? AND session_id = ? AND ${ARCHIVED} ORDER BY rid DESC LIMIT 1`,
    );
    this.ftsBody = db.prepare<[number], string>('SELECT body FROM archive_fts WHERE rowid = ?').pluck();
    this.outputContent = db.prepare<[string, string], string>('SELECT content FROM tool_output_archive WHERE session_id = ? AND id = ?').pluck();
    this.spilledContent = db.prepare<[string, string], string>('SELECT content FROM spilled_outputs WHERE session_id = ? AND id = ?').pluck();
    // a cleared output's images are read from its message as stored (the row keeps the blocks as they were sent)
    this.outputOwner = db.prepare(
      'SELECT o.tool_use_id, m.blocks FROM tool_output_archive o JOIN messages m ON m.session_id = o.session_id AND m.id = o.message_id WHERE o.session_id = ? AND o.id = ?',
    );
    this.messageBlocks = db.prepare<[string, string], string>('SELECT blocks FROM messages WHERE session_id = ? AND id = ?').pluck();
  }

  search(query: string, opts: SearchOptions): ArchiveHit[] {
    const q = this.parseQuery(query, opts);
    const scope =
      opts.sessionId === undefined
        ? ''
        : opts.withChildren
          ? 'AND i.session_id IN (SELECT @session UNION ALL SELECT id FROM sessions WHERE parent_id = @session)'
          : 'AND i.session_id = @session';
    const where = `${scope} ${opts.archivedOnly ? `AND ${outOfView(opts)}` : ''}`;
    const from = `FROM archive_fts JOIN archive_index i ON i.rid = archive_fts.rowid WHERE archive_fts MATCH @match ${where}`;
    const params = { session: opts.sessionId, limit: opts.limit, offset: opts.offset };
    // All terms when some row has them all; otherwise any term, ranked by bm25.
    let match = q.all;
    if (q.all !== q.any && this.statements.prepared(`SELECT 1 ${from} LIMIT 1`).get(bindDefined({ ...params, match })) === undefined) match = q.any;
    const rows = this.statements
      .prepared(
        `SELECT i.ref_id AS id, i.kind, i.label, i.session_id, i.created_at, ${SNIPPET} AS snippet, bm25(archive_fts) AS rank, ${ARCHIVED} AS archived
       ${from} ORDER BY rank, i.rid LIMIT @limit OFFSET @offset`,
      )
      .all(bindDefined({ ...params, match })) as HitRow[];
    return rows.map(toHit);
  }

  likeScan(query: string, opts: SearchOptions): ArchiveHit[] {
    const q = this.parseQuery(query, opts);
    const likes = q.terms.map((_, i) => `f.body LIKE @t${i} ESCAPE '\\'`);
    if (opts.sessionId !== undefined) likes.push('i.session_id = @session');
    if (opts.archivedOnly) likes.push(outOfView(opts));
    const params: Record<string, unknown> = { session: opts.sessionId, limit: opts.limit, offset: opts.offset };
    q.terms.forEach((t, i) => (params[`t${i}`] = `%${t.replace(/[\\%_]/g, (c) => `\\${c}`)}%`));
    const rows = this.statements
      .prepared(
        `SELECT i.ref_id AS id, i.kind, i.label, i.session_id, i.created_at, f.body, ${ARCHIVED} AS archived
       FROM archive_index i JOIN archive_fts f ON f.rowid = i.rid
       WHERE ${likes.join(' AND ')} ORDER BY i.created_at DESC, i.rid DESC LIMIT @limit OFFSET @offset`,
      )
      .all(bindDefined(params)) as Array<Omit<HitRow, 'snippet' | 'rank'> & { body: string }>;
    return rows.map((r) => toHit({ ...r, snippet: likeSnippet(r.body, q.terms), rank: 0 }));
  }

  get(id: string, opts: { sessionId?: string } = {}): ArchivedItem | undefined {
    const ref = opts.sessionId === undefined ? this.archivedRef.get(id) : this.archivedRefIn.get(id, opts.sessionId);
    if (!ref) return undefined;
    const text =
      ref.kind === 'tool_output' ? (this.outputContent.get(ref.session_id, id) ?? this.spilledContent.get(ref.session_id, id)) : this.ftsBody.get(ref.rid);
    if (text === undefined) return undefined;
    const owner = ref.kind === 'tool_output' ? this.outputOwner.get(ref.session_id, id) : undefined;
    const blocks = ref.kind === 'message' ? this.messageBlocks.get(ref.session_id, id) : undefined;
    const images = owner ? archivedImages(owner.blocks, owner.tool_use_id) : blocks ? messageImages(blocks) : [];
    return { id, kind: ref.kind, label: ref.label, text, sessionId: ref.session_id, createdAt: ref.created_at, ...(images.length > 0 ? { images } : {}) };
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
}

/** The images of a cleared output in its message's stored blocks: a tool result's (by its call id), or one image block (`image:<index>`). */
function archivedImages(blocksJson: string, toolUseId: string): ImageBlock[] {
  const blocks = JSON.parse(blocksJson) as Block[];
  const at = /^image:(\d+)$/.exec(toolUseId);
  if (at) {
    const b = blocks[Number(at[1])];
    return b?.type === 'image' ? [b] : [];
  }
  const result = blocks.find((b) => b.type === 'tool_result' && b.toolUseId === toolUseId);
  return result?.type === 'tool_result' ? (result.images ?? []) : [];
}

/** Every image of an archived message (its image blocks and its tool results'). */
const messageImages = (blocksJson: string): ImageBlock[] =>
  (JSON.parse(blocksJson) as Block[]).flatMap((b) => (b.type === 'image' ? [b] : b.type === 'tool_result' ? (b.images ?? []) : []));

const toHit = (r: HitRow): ArchiveHit => ({
  id: r.id,
  kind: r.kind,
  label: r.label,
  snippet: r.snippet,
  sessionId: r.session_id,
  createdAt: r.created_at,
  rank: r.rank,
  archived: r.archived === 1,
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
