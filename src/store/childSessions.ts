// Child sessions (sub-agents): a child is an ordinary session row whose parent_id, parent_turn,
// parent_tool_use and agent say who started it, in which turn and for which Task call. Its
// messages go through the same append path as any session's; there is no side table.
// Migration 6 adds the link; ChildSessions reads it. A child's messages are indexed for search
// as they are written, like every message (migration 7).
import type Database from 'better-sqlite3';
import type { Migration } from './migration.js';
import { SESSION_COLS, sessionInfo, type SessionRow } from './sessionRow.js';
import type { ParentLink, SessionInfo } from './types.js';

export const v6ChildSessions: Migration = {
  version: 6,
  description: 'child sessions: a sub-agent session linked to its parent session, turn and Task call',
  up(db) {
    db.exec(`
      ALTER TABLE sessions ADD COLUMN parent_id TEXT REFERENCES sessions (id) ON DELETE CASCADE;
      ALTER TABLE sessions ADD COLUMN parent_turn TEXT;
      ALTER TABLE sessions ADD COLUMN parent_tool_use TEXT;
      ALTER TABLE sessions ADD COLUMN agent TEXT;
      CREATE INDEX sessions_by_parent ON sessions (parent_id, created_at);
    `);
  },
};

export class ChildSessions {
  private readonly children: Database.Statement<[string], SessionRow>;

  constructor(db: Database.Database) {
    this.children = db.prepare(`SELECT ${SESSION_COLS} FROM sessions WHERE parent_id = ? ORDER BY created_at, rowid`);
  }

  childrenOf(parentId: string): SessionInfo[] {
    return this.children.all(parentId).map(sessionInfo);
  }
}

/** The link columns of a new session row (all null for a top-level session). */
export function parentParams(p: ParentLink | undefined): Record<'parent_id' | 'parent_turn' | 'parent_tool_use' | 'agent', string | null> {
  return { parent_id: p?.id ?? null, parent_turn: p?.turn ?? null, parent_tool_use: p?.toolUseId ?? null, agent: p?.agent ?? null };
}
