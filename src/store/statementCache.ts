import type Database from 'better-sqlite3';

/** Statements whose SQL depends on the call (search shapes, update patches), prepared once each. */
export class StatementCache {
  private readonly byText = new Map<string, Database.Statement<[Record<string, unknown>], unknown>>();

  constructor(private readonly db: Database.Database) {}

  prepared(sql: string): Database.Statement<[Record<string, unknown>], unknown> {
    let stmt = this.byText.get(sql);
    if (!stmt) {
      stmt = this.db.prepare<[Record<string, unknown>], unknown>(sql);
      this.byText.set(sql, stmt);
    }
    return stmt;
  }
}

/** Named parameters minus the undefined ones (better-sqlite3 refuses undefined values). */
export function bindDefined(params: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
}
