// The providers' model capabilities as their models endpoints described them, with the date:
// config/thinking.ts reads them over its built-in table (and under .agentrc's).
import type Database from 'better-sqlite3';

export interface StoredCapabilities {
  /** The provider's description as JSON (llm/provider.ts ModelDescription). */
  body: string;
  /** epoch ms */
  fetchedAt: number;
}

export class CapabilityTable {
  private readonly getStmt;
  private readonly putStmt;
  constructor(db: Database.Database) {
    this.getStmt = db.prepare<[string, string], { body: string; fetched_at: number }>(
      'SELECT body, fetched_at FROM model_capabilities WHERE provider = ? AND model = ?',
    );
    this.putStmt = db.prepare(
      'INSERT INTO model_capabilities (provider, model, body, fetched_at) VALUES (@provider, @model, @body, @at) ' +
        'ON CONFLICT (provider, model) DO UPDATE SET body = excluded.body, fetched_at = excluded.fetched_at',
    );
  }

  get(provider: string, model: string): StoredCapabilities | undefined {
    const r = this.getStmt.get(provider, model);
    return r ? { body: r.body, fetchedAt: r.fetched_at } : undefined;
  }

  put(provider: string, model: string, body: string, at: number): void {
    this.putStmt.run({ provider, model, body, at });
  }
}
