// What the model has seen of each file in this session, for the edit tools' "read it first"
// and "changed since you read it" checks. One tracker per session (the session hands it to
// the tools through ToolSession). It lives in memory; each record made by a tool call is also
// handed to `persist` with the call's id, so a resumed session rebuilds it from the reads its
// visible history still shows (restore), and a read compacted away needs a fresh read.
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';

interface Seen {
  mtimeMs: number;
  size: number;
  /** Hash of the content when the tool had all of it (a write, an edit): a touch without a change is not staleness. */
  hash?: string;
  /** A code /rewind restored the file to how it was before this turn (1-based) since the model saw it. */
  restoredBefore?: number;
}

/** `restoredBefore`: stale because a code /rewind put the file back as it was before that turn. */
export type Freshness = { kind: 'fresh' } | { kind: 'unread' } | { kind: 'stale'; restoredBefore?: number };

/** The id a code /rewind's mark is stored under (as a call's read is under the call's id): `rewind:<turn>:<unique>`. */
export const restoreMarkId = (turn: number, unique: string): string => `rewind:${turn}:${unique}`;
const RESTORE_MARK = /^rewind:(\d+):/;
export const isRestoreMark = (id: string): boolean => RESTORE_MARK.test(id);

export const contentHash = (buf: Uint8Array): string => createHash('sha1').update(buf).digest('hex');

/** One file's state as a tool call saw it, as stored for a resume. */
export interface ReadState {
  path: string;
  mtimeMs: number;
  size: number;
  hash?: string;
}

/** Stores one record; `flush` stores what had to wait (a session without its row yet). */
export type PersistRead = ((toolUseId: string, r: ReadState) => void) & { flush?: () => void };

export class FileTracker {
  private readonly seen: Map<string, Seen>;

  constructor(
    private readonly persist?: PersistRead,
    private readonly callId?: string,
    shared?: Map<string, Seen>,
  ) {
    this.seen = shared ?? new Map();
  }

  /** The same tracker, whose records are persisted under one tool call's id. */
  forCall(toolUseId: string): FileTracker {
    return new FileTracker(this.persist, toolUseId, this.seen);
  }

  /** The model read the file (FileRead) or wrote it (Edit, Write): `st` is its state as the model knows it. */
  record(abs: string, st: Pick<Stats, 'mtimeMs' | 'size'>, content?: Uint8Array): void {
    const seen: Seen = { mtimeMs: st.mtimeMs, size: st.size, ...(content ? { hash: contentHash(content) } : {}) };
    this.seen.set(abs, seen);
    if (this.persist && this.callId !== undefined) this.persist(this.callId, { path: abs, ...seen });
  }

  /**
   * A code /rewind put the file back as it was before `turn`: what the model saw of it is no longer
   * what is on disk, and it reads it again before changing it (stored, so a resume knows it too).
   */
  restored(abs: string, st: Pick<Stats, 'mtimeMs' | 'size'>, turn: number, unique: string): void {
    this.seen.set(abs, { mtimeMs: st.mtimeMs, size: st.size, restoredBefore: turn });
    this.persist?.(restoreMarkId(turn, unique), { path: abs, mtimeMs: st.mtimeMs, size: st.size });
  }

  /** A state a stored tool call recorded, or a code /rewind's mark (a resume rebuilding what the visible history shows). */
  restore(r: ReadState & { toolUseId?: string }): void {
    const mark = r.toolUseId !== undefined ? RESTORE_MARK.exec(r.toolUseId) : null;
    this.seen.set(r.path, {
      mtimeMs: r.mtimeMs,
      size: r.size,
      ...(r.hash !== undefined ? { hash: r.hash } : {}),
      ...(mark ? { restoredBefore: Number(mark[1]) } : {}),
    });
  }

  /** Whether the model has seen this version of the file. */
  check(abs: string, st: Pick<Stats, 'mtimeMs' | 'size'>, content?: Uint8Array): Freshness {
    const s = this.seen.get(abs);
    if (!s) return { kind: 'unread' };
    if (s.restoredBefore !== undefined) return { kind: 'stale', restoredBefore: s.restoredBefore };
    if (s.mtimeMs === st.mtimeMs && s.size === st.size) return { kind: 'fresh' };
    if (s.hash !== undefined && content !== undefined && s.size === content.length && s.hash === contentHash(content)) return { kind: 'fresh' };
    return { kind: 'stale' };
  }

  has(abs: string): boolean {
    return this.seen.has(abs);
  }

  /** Stores the records that waited for the session's row (see PersistRead). */
  flushPending(): void {
    this.persist?.flush?.();
  }

  forget(abs: string): void {
    this.seen.delete(abs);
  }

  /** Forgets every file (the conversation that saw them was rewound). */
  clear(): void {
    this.seen.clear();
  }
}
