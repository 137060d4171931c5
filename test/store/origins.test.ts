import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Message } from '../../src/llm/messages.js';
import { openStore, SCHEMA_VERSION, type Store } from '../../src/store/index.js';
import { sqlite } from '../../src/store/sqlite.js';
import { dateNoteFor } from '../../src/session/dateNote.js';
import { unansweredReply } from '../../src/session/repair.js';
import { shellNote } from '../../src/session/shellNote.js';
import { messagesToItems } from '../../src/ui/transcript.js';
import { asStoredBefore, tempDir } from './helpers.js';

// Messages carry their origin (schema v13): stored with them, copied with a fork, and derived
// when a row stored before v13 is loaded, so the views read it and never the text.

const Database = sqlite().Database;

let tmp: ReturnType<typeof tempDir>;
let file: string;
beforeEach(() => {
  tmp = tempDir();
  file = join(tmp.dir, 'agent.db');
});
afterEach(() => tmp.cleanup());

/** A session as the producers make it today: a date note, a prompt with an attachment, a `!command`, an unanswered prompt, an interrupted call. */
function session(): Message[] {
  const at = (m: Message, createdAt: number): Message => ({ ...m, id: `m${createdAt}`, createdAt });
  return [
    at(dateNoteFor([], new Date('2026-11-26T10:00:00Z'))!, 1),
    {
      id: 'u1',
      role: 'user',
      kind: 'normal',
      createdAt: 2,
      blocks: [
        { type: 'text', text: 'explain @a.ts' },
        {
          type: 'text',
          text: '[Attached by the user with @a.ts: read with FileRead]\n     1\tx',
          origin: { kind: 'attachment', label: 'a.ts: read with FileRead' },
        },
      ],
    },
    at(unansweredReply(), 3),
    at(shellNote({ command: 'git status', output: 'On branch main', isError: false }, 'done'), 4),
    { id: 'u2', role: 'user', kind: 'normal', createdAt: 5, blocks: [{ type: 'text', text: 'run the tests' }] },
    { id: 'a2', role: 'assistant', kind: 'normal', createdAt: 6, blocks: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test' } }] },
    {
      id: 'r2',
      role: 'user',
      kind: 'normal',
      createdAt: 7,
      blocks: [
        {
          type: 'tool_result',
          toolUseId: 't1',
          content: 'The user interrupted this tool call before it finished; it did not complete.',
          isError: true,
          outcome: 'interrupted',
        },
      ],
    },
  ];
}

function write(store: Store, messages: readonly Message[]): void {
  store.createSession({ id: 's', cwd: '/repo', provider: 'anthropic', model: 'claude-test' });
  for (const m of messages) store.appendMessage('s', m, null);
}

describe('the origin of a message in the store', () => {
  it('is stored with it and copied with a fork; a message without one stores none', () => {
    const store = openStore(file);
    const messages = session();
    write(store, messages);
    expect(store.loadVisible('s')).toEqual(messages);
    store.forkSession('s', { id: 'f', cwd: '/repo', provider: 'anthropic', model: 'claude-test' });
    expect(store.loadVisible('f')).toEqual(messages);
    store.close();
    const db = new Database(file, { readonly: true });
    const column = db.prepare<[], { id: string; origin: string | null }>("SELECT id, origin FROM messages WHERE session_id = 's' ORDER BY seq").all();
    db.close();
    expect(column.find((r) => r.id === 'u2')?.origin).toBe('');
    expect(JSON.parse(column.find((r) => r.id === messages[3]!.id)!.origin!)).toEqual(messages[3]!.origin);
  });

  it('is derived when a session written before v13 is loaded: the old database opens, and the transcript reads it as it was live', () => {
    // the rows as a build before v13 wrote them: no origin anywhere, and the schema of v12
    const store = openStore(file);
    write(store, session().map(asStoredBefore));
    store.close();
    const db = new Database(file);
    db.exec('ALTER TABLE messages DROP COLUMN origin');
    db.pragma('user_version = 12');
    db.close();

    const reopened = openStore(file);
    const loaded = reopened.loadVisible('s');
    const transcript = reopened.loadTranscript('s', { includeArchived: true }).map((e) => e.message);
    reopened.close();
    expect(loaded).toEqual(session());
    expect(transcript).toEqual(session());
    const db2 = new Database(file, { readonly: true });
    expect(db2.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db2.prepare<[], number>('SELECT COUNT(*) FROM messages WHERE origin IS NULL').pluck().get()).toBe(7);
    db2.close();
    // the date note hidden, the attachment a line of its own, the `!command` its row, the unanswered prompt a notice, the call interrupted
    const items = messagesToItems(loaded);
    expect(items.map((i) => i.kind)).toEqual(['user', 'notice', 'tool', 'user', 'tool']);
    expect(items[0]).toMatchObject({ text: 'explain @a.ts', attachments: ['a.ts: read with FileRead'] });
    expect(items[2]).toMatchObject({ name: 'Shell', summary: 'git status', status: 'done', output: 'On branch main' });
    expect(items[4]).toMatchObject({ summary: 'npm test', status: 'interrupted' });
  });

  it('is refused, naming the message, when its kind is unknown', () => {
    const store = openStore(file);
    store.createSession({ id: 's', cwd: '/repo', provider: 'anthropic', model: 'claude-test' });
    const bad = { ...session()[4]!, origin: { kind: 'telepathy' } } as unknown as Message;
    expect(() => store.appendMessage('s', bad, null)).toThrow(/message u2 has an origin of unknown kind "telepathy"/);
    store.close();
  });
});

// Mutations checked: the origin left out of the INSERT (storeStatements.ts) fails the first test;
// left out of the fork's copied columns (sessionWrites.ts) fails it too; decodeMessage not deriving
// a NULL column's origins (origins.ts, withStoredOrigin) fails the second.
