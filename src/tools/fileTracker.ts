// What the model has seen of each file in this session, for the edit tools' "read it first"
// and "changed since you read it" checks. One tracker per session (the session hands it to
// the tools through ToolContext); it lives in memory, so a resumed session reads again.
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';

interface Seen {
  mtimeMs: number;
  size: number;
  /** Hash of the content when the tool had all of it (a write, an edit): a touch without a change is not staleness. */
  hash?: string;
}

export type Freshness = { kind: 'fresh' } | { kind: 'unread' } | { kind: 'stale' };

export const contentHash = (buf: Uint8Array): string => createHash('sha1').update(buf).digest('hex');

export class FileTracker {
  private readonly seen = new Map<string, Seen>();

  /** The model read the file (FileRead) or wrote it (Edit, Write): `st` is its state as the model knows it. */
  record(abs: string, st: Pick<Stats, 'mtimeMs' | 'size'>, content?: Uint8Array): void {
    this.seen.set(abs, { mtimeMs: st.mtimeMs, size: st.size, ...(content ? { hash: contentHash(content) } : {}) });
  }

  /** Whether the model has seen this version of the file. */
  check(abs: string, st: Pick<Stats, 'mtimeMs' | 'size'>, content?: Uint8Array): Freshness {
    const s = this.seen.get(abs);
    if (!s) return { kind: 'unread' };
    if (s.mtimeMs === st.mtimeMs && s.size === st.size) return { kind: 'fresh' };
    if (s.hash !== undefined && content !== undefined && s.size === content.length && s.hash === contentHash(content)) return { kind: 'fresh' };
    return { kind: 'stale' };
  }

  has(abs: string): boolean {
    return this.seen.has(abs);
  }

  forget(abs: string): void {
    this.seen.delete(abs);
  }

  /** Forgets every file (the conversation that saw them was rewound). */
  clear(): void {
    this.seen.clear();
  }
}
