// Writes messages and archived content into the full-text index: one archive_index row (what
// it is, where it belongs) and one archive_fts row with the same rowid (the text). Every
// message is indexed as it is written (`agent sessions search` finds a conversation by a
// phrase); whether a hit is archived is read at search time (messages.archived_by).
import type Database from 'better-sqlite3';
import type { ClearedOutput } from '../history/compaction.js';
import { isToolResultMessage, type Message } from '../llm/messages.js';
import { collectToolCalls, type ToolCalls } from '../llm/messageText.js';
import { clearedIndexText, clearedLabel, messageLabel, messageText } from './archive-text.js';
import { decodeMessage, type MessageRow } from './codec.js';
import type { Migration } from './migration.js';

export class ArchiveIndexer {
  private readonly insertIndex: Database.Statement<[string, string, string, string, number]>;
  private readonly insertText: Database.Statement<[number | bigint, string]>;

  private readonly lastAssistant: Database.Statement<[string], MessageRow>;

  constructor(db: Database.Database) {
    this.lastAssistant = db.prepare<[string], MessageRow>(
      "SELECT id, role, kind, pinned, blocks, tokens, usage, model, interrupted, created_at FROM messages WHERE session_id = ? AND role = 'assistant' ORDER BY seq DESC LIMIT 1",
    );
    // a message archived again (after a revert brought it back) keeps its first index entry
    this.insertIndex = db.prepare('INSERT INTO archive_index (session_id, kind, ref_id, label, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING');
    this.insertText = db.prepare('INSERT INTO archive_fts (rowid, body) VALUES (?, ?)');
  }

  message(sessionId: string, msg: Message, calls: ToolCalls): void {
    const { lastInsertRowid, changes } = this.insertIndex.run(sessionId, 'message', msg.id, messageLabel(msg, calls), msg.createdAt);
    if (changes > 0) this.insertText.run(lastInsertRowid, messageText(msg, calls));
  }

  /** A message just appended: tool results are labelled by the calls of the assistant message before them. */
  appended(sessionId: string, msg: Message): void {
    const prev = isToolResultMessage(msg) ? this.lastAssistant.get(sessionId) : undefined;
    this.message(sessionId, msg, collectToolCalls(prev ? [decodeMessage(prev), msg] : [msg]));
  }

  clearedOutput(sessionId: string, c: ClearedOutput, createdAt: number): void {
    const { lastInsertRowid } = this.insertIndex.run(sessionId, 'tool_output', c.archiveId, clearedLabel(c), createdAt);
    this.insertText.run(lastInsertRowid, clearedIndexText(c));
  }
}

/** Indexes every message an older database holds (before, only archived ones were): the same index, from now on filled as messages are written. */
export const v7MessageIndex: Migration = {
  version: 7,
  description: 'full-text index of every message, not only archived ones',
  up(db) {
    const indexer = new ArchiveIndexer(db);
    const sessions = db.prepare<[], string>('SELECT id FROM sessions').pluck().all();
    const messagesOf = db.prepare<[string], MessageRow>(
      'SELECT id, role, kind, pinned, blocks, tokens, usage, model, interrupted, created_at FROM messages WHERE session_id = ? ORDER BY seq',
    );
    for (const sessionId of sessions) {
      const messages = messagesOf.all(sessionId).map(decodeMessage);
      const calls = collectToolCalls(messages);
      // archived messages are indexed already: their rows stay as they are
      for (const m of messages) indexer.message(sessionId, m, calls);
    }
  },
};
