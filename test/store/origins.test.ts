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

  it("a text block's origin of every kind, and a result's every outcome, come back as stored, with only the fields their types declare", () => {
    const store = openStore(file);
    const text = (t: string, origin: object) => ({ type: 'text' as const, text: t, origin: { ...origin, stray: 'not declared' } as never });
    const result = (toolUseId: string, outcome: 'interrupted' | 'denied' | 'stopped') => ({
      type: 'tool_result' as const,
      toolUseId,
      content: 'no',
      isError: true,
      outcome,
    });
    const prompt: Message = {
      id: 'u9',
      role: 'user',
      kind: 'normal',
      createdAt: 9,
      blocks: [
        text('[Attached by the user with @a.ts: read with FileRead]\nx', { kind: 'attachment', label: 'a.ts: read with FileRead' }),
        text('[Attached by the user with @big.txt: archived]', { kind: 'attachment', label: 'big.txt: archived', archived: 'o7' }),
        text('/review src/a.ts', { kind: 'typed_command', typed: '/review src/a.ts' }),
        text('<system-reminder>\nPlan mode is on: …', { kind: 'plan_note' }),
        text('[Context from a UserPromptSubmit hook]\nx', { kind: 'hook_context' }),
        result('t1', 'interrupted'),
        result('t2', 'denied'),
        result('t3', 'stopped'),
        { type: 'tool_result', toolUseId: 't4', content: 'failed', isError: true },
      ],
    };
    write(store, [prompt]);
    expect(store.loadVisible('s')[0]!.blocks).toEqual([
      { type: 'text', text: '[Attached by the user with @a.ts: read with FileRead]\nx', origin: { kind: 'attachment', label: 'a.ts: read with FileRead' } },
      { type: 'text', text: '[Attached by the user with @big.txt: archived]', origin: { kind: 'attachment', label: 'big.txt: archived', archived: 'o7' } },
      { type: 'text', text: '/review src/a.ts', origin: { kind: 'typed_command', typed: '/review src/a.ts' } },
      { type: 'text', text: '<system-reminder>\nPlan mode is on: …', origin: { kind: 'plan_note' } },
      { type: 'text', text: '[Context from a UserPromptSubmit hook]\nx', origin: { kind: 'hook_context' } },
      result('t1', 'interrupted'),
      result('t2', 'denied'),
      result('t3', 'stopped'),
      { type: 'tool_result', toolUseId: 't4', content: 'failed', isError: true },
    ]);
    store.close();
  });

  it('is refused, naming the message, when a field its kind needs is missing', () => {
    const store = openStore(file);
    store.createSession({ id: 's', cwd: '/repo', provider: 'anthropic', model: 'claude-test' });
    const withBlock = (origin: object) =>
      ({ id: 'u3', role: 'user', kind: 'normal', createdAt: 1, blocks: [{ type: 'text', text: 'x', origin }] }) as unknown as Message;
    expect(() => store.appendMessage('s', withBlock({ kind: 'attachment' }), null)).toThrow(/message u3 holds an attachment block without its label/);
    expect(() => store.appendMessage('s', withBlock({ kind: 'typed_command' }), null)).toThrow(
      /message u3 holds a custom command's prompt without what was typed/,
    );
    const shell = shellNote({ command: 'ls', output: 'a', isError: false }, 'done');
    for (const broken of [{ command: undefined }, { output: 7 }, { status: 'lost' }]) {
      const m = { ...shell, id: 'u4', origin: { ...shell.origin, ...broken } } as unknown as Message;
      expect(() => store.appendMessage('s', m, null), JSON.stringify(broken)).toThrow(/message u4 has a shell origin without its command, output or status/);
    }
    expect(store.loadVisible('s')).toEqual([]);
    store.close();
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
