// What the OS sandbox denied a command (a write to a path, a connection to a domain), one row per
// denial, under the session and the tool call: its own record in the archive, so that
// `agent sessions show` lists a session's violations whatever became of the tool results that
// told the model (compacted, cleared, rewound). The lines are the sandbox's (src/sandbox/denials.ts).
import type Database from 'better-sqlite3';
import type { Migration } from './migration.js';

export const v12SandboxViolations: Migration = {
  version: 12,
  description: 'what the sandbox denied commands (paths, domains)',
  up(db) {
    db.exec(`
      -- command: the command denied (as the model wrote it); line: what was denied and why
      CREATE TABLE sandbox_violations (
        rid INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        tool_use_id TEXT NOT NULL,
        command TEXT NOT NULL,
        line TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX sandbox_violations_by_session ON sandbox_violations (session_id, rid);
    `);
  },
};

export interface SandboxViolation {
  toolUseId: string;
  command: string;
  line: string;
  createdAt: number;
}

/** The store's face for sandbox violations. */
export interface SandboxViolationLog {
  /** One row per denied line of a command. */
  save(sessionId: string, v: { toolUseId: string; command: string; lines: readonly string[] }): void;
  /** A session's violations, oldest first. */
  list(sessionId: string): SandboxViolation[];
}

interface Guard {
  read<T>(action: string, fn: () => T): T;
  write<T>(action: string, fn: () => T): T;
}

export class SandboxViolationTable implements SandboxViolationLog {
  private readonly insert: Database.Statement<[string, string, string, string, number]>;
  private readonly all: Database.Statement<[string], { tool_use_id: string; command: string; line: string; created_at: number }>;

  constructor(
    db: Database.Database,
    private readonly guard: Guard,
  ) {
    this.insert = db.prepare('INSERT INTO sandbox_violations (session_id, tool_use_id, command, line, created_at) VALUES (?, ?, ?, ?, ?)');
    this.all = db.prepare('SELECT tool_use_id, command, line, created_at FROM sandbox_violations WHERE session_id = ? ORDER BY rid');
  }

  save(sessionId: string, v: { toolUseId: string; command: string; lines: readonly string[] }): void {
    const at = Date.now();
    this.guard.write('record a sandbox violation', () => {
      for (const line of v.lines) this.insert.run(sessionId, v.toolUseId, v.command, line, at);
    });
  }

  list(sessionId: string): SandboxViolation[] {
    return this.guard.read('read sandbox violations', () =>
      this.all.all(sessionId).map((r) => ({ toolUseId: r.tool_use_id, command: r.command, line: r.line, createdAt: r.created_at })),
    );
  }
}
