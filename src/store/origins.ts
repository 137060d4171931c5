// Where a message came from (llm/messages.ts, MessageOrigin and TextOrigin), as stored: the
// message's in its own column (schema v13), a text block's inside the block's JSON. Only the
// fields the types declare are written. A row stored before v13 holds NULL there and gets its
// origins derived when loaded (history/legacyOrigins.ts); a newer row holds '' for none.
import { withLegacyOrigins } from '../history/legacyOrigins.js';
import type { Message, MessageOrigin, TextOrigin } from '../llm/messages.js';
import { DecodeError, InvalidInputError } from './errors.js';
import type { Migration } from './migration.js';

export const v13MessageOrigins: Migration = {
  version: 13,
  description: "messages' origins (shell note, date note, unanswered prompt), so the views read no text",
  up(db) {
    // NULL: stored before this column, the origin is derived when the row is loaded
    db.exec('ALTER TABLE messages ADD COLUMN origin TEXT');
  },
};

const SHELL_STATUSES: readonly string[] = ['done', 'error', 'interrupted'];

/** The column's value for a message: its origin's declared fields as JSON, '' for none. */
export function encodeOrigin(m: Message): string {
  const o = m.origin;
  if (o === undefined) return '';
  switch (o.kind) {
    case 'shell':
      if (typeof o.command !== 'string' || typeof o.output !== 'string' || !SHELL_STATUSES.includes(o.status))
        throw new InvalidInputError(`message ${m.id} has a shell origin without its command, output or status`);
      return JSON.stringify({ kind: 'shell', command: o.command, output: o.output, status: o.status });
    case 'date_note':
    case 'unanswered':
      return JSON.stringify({ kind: o.kind });
    default:
      throw new InvalidInputError(`message ${m.id} has an origin of unknown kind ${JSON.stringify((o as { kind?: unknown }).kind)}`);
  }
}

/** A text block's origin with only its declared fields. */
export function cleanTextOrigin(o: TextOrigin, msgId: string): TextOrigin {
  switch (o.kind) {
    case 'attachment':
      if (typeof o.label !== 'string') throw new InvalidInputError(`message ${msgId} holds an attachment block without its label`);
      return typeof o.archived === 'string' ? { kind: 'attachment', label: o.label, archived: o.archived } : { kind: 'attachment', label: o.label };
    case 'typed_command':
      if (typeof o.typed !== 'string') throw new InvalidInputError(`message ${msgId} holds a custom command's prompt without what was typed`);
      return { kind: 'typed_command', typed: o.typed };
    case 'plan_note':
    case 'hook_context':
      return { kind: o.kind };
    default:
      throw new InvalidInputError(`message ${msgId} holds a text block of unknown origin ${JSON.stringify((o as { kind?: unknown }).kind)}`);
  }
}

/** A decoded message with its origin: the stored one, or (a row from before v13) the one derived from its text. */
export function withStoredOrigin(msg: Message, column: string | null | undefined): Message {
  if (column === null || column === undefined) return withLegacyOrigins(msg);
  if (column === '') return msg;
  let origin: unknown;
  try {
    origin = JSON.parse(column);
  } catch {
    throw new DecodeError(`the origin of message ${msg.id} holds unreadable JSON`);
  }
  if (typeof origin !== 'object' || origin === null || typeof (origin as { kind?: unknown }).kind !== 'string')
    throw new DecodeError(`the origin of message ${msg.id} has no kind`);
  return { ...msg, origin: origin as MessageOrigin };
}
