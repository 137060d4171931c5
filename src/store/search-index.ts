// Writes archived content into the full-text index: one archive_index row (what it is, where
// it belongs) and one archive_fts row with the same rowid (the text).
import type Database from 'better-sqlite3';
import type { ClearedOutput } from '../compaction/types.js';
import type { Message } from '../llm/messages.js';
import { clearedIndexText, clearedLabel, messageLabel, messageText, type ToolCalls } from './archive-text.js';

export class ArchiveIndexer {
  private readonly insertIndex: Database.Statement<[string, string, string, string, number]>;
  private readonly insertText: Database.Statement<[number | bigint, string]>;

  constructor(db: Database.Database) {
    // a message archived again (after a revert brought it back) keeps its first index entry
    this.insertIndex = db.prepare('INSERT INTO archive_index (session_id, kind, ref_id, label, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING');
    this.insertText = db.prepare('INSERT INTO archive_fts (rowid, body) VALUES (?, ?)');
  }

  message(sessionId: string, msg: Message, calls: ToolCalls): void {
    const { lastInsertRowid, changes } = this.insertIndex.run(sessionId, 'message', msg.id, messageLabel(msg, calls), msg.createdAt);
    if (changes > 0) this.insertText.run(lastInsertRowid, messageText(msg, calls));
  }

  clearedOutput(sessionId: string, c: ClearedOutput, createdAt: number): void {
    const { lastInsertRowid } = this.insertIndex.run(sessionId, 'tool_output', c.archiveId, clearedLabel(c), createdAt);
    this.insertText.run(lastInsertRowid, clearedIndexText(c));
  }
}
