import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Message } from '../../src/llm/messages.js';
import { openStore, StoreError, type Store } from '../../src/store/index.js';
import { LOAD_VISIBLE_SQL } from '../../src/store/store.js';
import { assistant, autoChange, tempDir, toolPair, user } from './helpers.js';
import { sqlite } from '../../src/store/sqlite.js';

// the binding the store loads on this Node.js (12 built from source, or 13 prebuilt on Node ≥ 22)
const Database = sqlite().Database;

let tmp: ReturnType<typeof tempDir>;
let file: string;
let store: Store;

beforeEach(() => {
  tmp = tempDir();
  file = join(tmp.dir, 'agent.db');
  store = openStore(file);
});
afterEach(() => {
  store.close();
  tmp.cleanup();
});

const newSession = (id: string, cwd = '/repo') => store.createSession({ id, cwd, provider: 'anthropic', model: 'claude-test' });

function expectStoreError(fn: () => unknown, kind: StoreError['kind'], message?: RegExp): StoreError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StoreError);
    const err = e as StoreError;
    expect(err.kind).toBe(kind);
    if (message) expect(err.message).toMatch(message);
    return err;
  }
  throw new Error(`expected a StoreError of kind ${kind}, nothing was thrown`);
}

describe('messages round trip', () => {
  it('keeps every block kind and every message field, across a reopen', () => {
    newSession('s1');
    const messages: Message[] = [
      { id: 'm1', role: 'user', kind: 'normal', createdAt: 1, blocks: [{ type: 'text', text: 'héllo ✓ "quoted" \n\t line' }], pinned: true },
      {
        id: 'm2',
        role: 'user',
        kind: 'normal',
        createdAt: 2,
        blocks: [
          { type: 'text', text: 'look at this' },
          { type: 'image', mediaType: 'image/png', data: Buffer.from([0, 1, 2, 255]).toString('base64') },
        ],
        pinned: false,
      },
      {
        id: 'm3',
        role: 'assistant',
        kind: 'normal',
        createdAt: 3,
        blocks: [
          { type: 'text', text: 'running two tools' },
          { type: 'tool_use', id: 'tu1', name: 'Bash', input: { command: 'npm test', timeout: 5, nested: { a: [1, null, 'x'] } } },
          { type: 'tool_use', id: 'tu2', name: 'FileRead', input: {} },
        ],
        usage: { inputTokens: 1234, outputTokens: 56, cacheReadTokens: 7, cacheWriteTokens: 8 },
        model: 'claude-sonnet-test',
        interrupted: false,
      },
      {
        id: 'm4',
        role: 'user',
        kind: 'normal',
        createdAt: 4,
        blocks: [
          {
            type: 'tool_result',
            toolUseId: 'tu1',
            content: '[Bash output cleared — Recall id tx_1]',
            isError: false,
            cleared: { archiveId: 'tx_1', originalTokens: 999 },
          },
          { type: 'tool_result', toolUseId: 'tu2', content: 'ENOENT', isError: true },
        ],
      },
      { id: 'm5', role: 'assistant', kind: 'normal', createdAt: 5, blocks: [{ type: 'text', text: 'partial' }], interrupted: true, model: 'gpt-test' },
      { id: 'm6', role: 'user', kind: 'meta', createdAt: 6, blocks: [{ type: 'text', text: 'continue' }] },
      { id: 'm7', role: 'user', kind: 'checkpoint', createdAt: 7, blocks: [{ type: 'text', text: '# Checkpoint' }] },
    ];
    messages.forEach((m, i) => store.appendMessage('s1', m, i === 0 ? null : 10 * i));
    store.close();
    store = openStore(file);
    expect(store.loadVisible('s1')).toStrictEqual(messages);
    expect(store.loadVisibleEntries('s1').map((e) => e.tokens)).toEqual([null, 10, 20, 30, 40, 50, 60]);
    expect(store.loadTranscript('s1', { includeArchived: true })).toStrictEqual(messages.map((message) => ({ message, archivedBy: null })));
  });

  it('refuses a duplicate message id, an unknown session and an unknown block type, writing nothing', () => {
    newSession('s1');
    const m = user('first');
    store.appendMessage('s1', m, 1);
    expectStoreError(() => store.appendMessage('s1', m, 1), 'invalid', /already stored/);
    expectStoreError(() => store.appendMessage('nope', user('x'), 1), 'not_found', /no session nope/);
    const bad = { ...user('x'), blocks: [{ type: 'musing', text: 'hm' }] } as unknown as Message;
    expectStoreError(() => store.appendMessage('s1', bad, 1), 'invalid', /unknown type "musing"/);
    const unsigned = { ...user('x'), role: 'assistant', blocks: [{ type: 'thinking', thinking: 'hm' }] } as unknown as Message;
    expectStoreError(() => store.appendMessage('s1', unsigned, 1), 'invalid', /signature is not a string/);
    expectStoreError(() => store.appendMessage('s1', user('x'), -3), 'invalid', /non-negative integer/);
    expect(store.loadVisible('s1').map((x) => x.id)).toEqual([m.id]);
    expect(store.getSession('s1')!.messageCount).toBe(1);
  });

  it('keeps thinking, redacted thinking and reasoning blocks verbatim', () => {
    newSession('s1');
    const m: Message = {
      ...assistant('answer'),
      blocks: [
        { type: 'thinking', thinking: 'let me see\n', signature: 'sig+/=' },
        { type: 'redacted_thinking', data: 'Enc0ded' },
        { type: 'reasoning', id: 'rs_1', summary: ['one', 'two'], encryptedContent: 'gAAA' },
        { type: 'text', text: 'answer' },
      ],
    };
    store.appendMessage('s1', m, 5);
    expect(store.loadVisible('s1')[0]!.blocks).toEqual(m.blocks);
  });

  it('orders appended messages after the compacted history (pos), while seq stays append-only', () => {
    newSession('s1');
    const msgs = [user('one'), assistant('two'), user('three'), assistant('four'), user('five'), assistant('six')];
    for (const m of msgs) store.appendMessage('s1', m, 1);
    const change = autoChange(store.loadVisible('s1'), 1)!;
    store.applyCompaction('s1', change);
    const late = user('seven');
    store.appendMessage('s1', late, 1);
    const visible = store.loadVisible('s1');
    expect(visible.map((m) => m.id)).toEqual([change.added[0]!.id, msgs[4]!.id, msgs[5]!.id, late.id]);
    // transcript: insertion order, the checkpoint after the messages it replaced
    const transcript = store.loadTranscript('s1', { includeArchived: true });
    expect(transcript.map((t) => t.message.id)).toEqual([...msgs.map((m) => m.id), change.added[0]!.id, late.id]);
    expect(transcript.filter((t) => t.archivedBy === change.record.id).map((t) => t.message.id)).toEqual(msgs.slice(0, 4).map((m) => m.id));
    expect(store.loadTranscript('s1', { includeArchived: false }).map((t) => t.message.id)).toEqual([msgs[4]!.id, msgs[5]!.id, change.added[0]!.id, late.id]);
  });

  it('resumes through the partial index of visible rows (the plan never scans archived rows)', () => {
    store.close();
    const db = new Database(file, { readonly: true });
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${LOAD_VISIBLE_SQL}`).all('s1') as Array<{ detail: string }>;
    db.close();
    store = openStore(file);
    expect(plan.map((p) => p.detail).join('\n')).toMatch(/SEARCH messages USING INDEX messages_visible \(session_id=\?\)/);
    expect(plan.map((p) => p.detail).join('\n')).not.toMatch(/TEMP B-TREE/);
  });
});

describe('sessions', () => {
  it('creates, reads back and updates a session; the title comes from the first normal prompt', () => {
    const created = store.createSession({ id: 'sess-1', cwd: '/repo', provider: 'openai', model: 'gpt-test', meta: { cadence: { turns: 2 } } });
    expect(created).toMatchObject({ id: 'sess-1', cwd: '/repo', title: null, provider: 'openai', model: 'gpt-test', meta: { cadence: { turns: 2 } } });
    expect(created).toMatchObject({ messageCount: 0, visibleCount: 0, compactionCount: 0, contextTokens: null });
    const [call, result] = toolPair('Bash', { command: 'ls' }, 'a b c');
    store.appendMessage('sess-1', user('continue', { kind: 'meta' }), 1);
    store.appendMessage('sess-1', { ...result, blocks: [{ type: 'tool_result', toolUseId: 'x', content: 'out', isError: false }] }, 1);
    expect(store.getSession('sess-1')!.title).toBeNull();
    store.appendMessage('sess-1', user('\n\n  Fix the   flaky test in src/foo.ts\nand then run it'), 3);
    store.appendMessage('sess-1', user('a later prompt'), 3);
    store.appendMessage('sess-1', call, 1);
    const info = store.getSession('sess-1')!;
    expect(info.title).toBe('Fix the flaky test in src/foo.ts');
    expect(info.messageCount).toBe(5);
    expect(info.visibleCount).toBe(5);

    store.updateSession('sess-1', { title: 'Renamed', model: 'gpt-other', meta: { breaker: 1 }, contextTokens: 4321 });
    expect(store.getSession('sess-1')).toMatchObject({ title: 'Renamed', model: 'gpt-other', provider: 'openai', meta: { breaker: 1 }, contextTokens: 4321 });
    store.updateSession('sess-1', { contextTokens: null });
    expect(store.getSession('sess-1')!.contextTokens).toBeNull();
    expectStoreError(() => store.updateSession('missing', { title: 'x' }), 'not_found');
    expectStoreError(() => store.updateSession('sess-1', { meta: [] as unknown as Record<string, unknown> }), 'invalid', /plain object/);
    expectStoreError(() => store.createSession({ id: 'sess-1', cwd: '/', provider: 'p', model: 'm' }), 'invalid', /already exists/);
  });

  it('shortens a long first prompt at a word boundary', () => {
    newSession('s');
    store.appendMessage('s', user(`${'word '.repeat(40)}end`), 1);
    const title = store.getSession('s')!.title!;
    expect(title.length).toBeLessThanOrEqual(80);
    expect(title).toMatch(/^word( word)*…$/);
  });

  it('finds a session by a unique id prefix and refuses an ambiguous one', () => {
    newSession('7f3a9c01');
    newSession('7f3b0000');
    newSession('abc');
    newSession('abcd');
    expect(store.getSession('7f3a')!.id).toBe('7f3a9c01');
    expect(store.getSession('abc')!.id).toBe('abc'); // an exact id wins over longer ids it prefixes
    expect(store.getSession('zz')).toBeUndefined();
    expect(store.getSession('')).toBeUndefined();
    const err = expectStoreError(() => store.getSession('7f3'), 'not_found', /ambiguous/);
    expect(err.message).toContain('7f3a9c01');
    expect(err.message).toContain('7f3b0000');
  });

  it('finds a session by the short id the footer shows (its last characters), and without the s_ prefix', () => {
    newSession('s_mi0abc12xk4q9z7w');
    newSession('s_mi0abd99pp3v2a1b');
    expect(store.getSession('xk4q9z7w')!.id).toBe('s_mi0abc12xk4q9z7w');
    expect(store.getSession('mi0abd')!.id).toBe('s_mi0abd99pp3v2a1b');
    expect(store.getSession('9z7')).toBeUndefined(); // too short to be a suffix
    newSession('s_mi0abe00zz4q9z7w');
    expectStoreError(() => store.getSession('4q9z7w'), 'not_found', /ambiguous/);
  });

  it('lists sessions most recently touched first, by directory, and finds the latest', () => {
    newSession('a', '/one');
    newSession('b', '/two');
    newSession('c', '/one');
    expect(store.latestSession()!.id).toBe('c');
    store.appendMessage('a', user('hi'), 1); // within the same millisecond, still the latest
    expect(store.latestSession()!.id).toBe('a');
    expect(store.latestSession('/two')!.id).toBe('b');
    expect(store.latestSession('/nowhere')).toBeUndefined();
    expect(store.listSessions().map((s) => s.id)).toEqual(['a', 'c', 'b']);
    expect(store.listSessions({ cwd: '/one' }).map((s) => s.id)).toEqual(['a', 'c']);
    expect(store.listSessions({ limit: 2 }).map((s) => s.id)).toEqual(['a', 'c']);
    expect(store.listSessions({ limit: 0 })).toEqual([]);
  });

  it('deletes a session with everything of it, and nothing of other sessions', () => {
    for (const id of ['gone', 'kept']) {
      newSession(id);
      const [c1, r1] = toolPair('Bash', { command: 'make' }, `build output of ${id} zebra`);
      for (const m of [user(`first ${id}`), c1, r1, assistant('done'), user('next'), assistant('ok'), user('last')]) store.appendMessage(id, m, 2);
      const auto = autoChange(store.loadVisible(id), 1)!;
      store.applyCompaction(id, auto);
      store.recordCompactionFailure(id, { ...auto.record, id: `${auto.record.id}-f`, status: 'failed', reason: 'timeout' });
    }
    expect(
      store
        .searchArchive('zebra', { limit: 10, offset: 0 })
        .map((h) => h.sessionId)
        .sort(),
    ).toEqual(['gone', 'kept']);
    store.deleteSession('gone');
    expectStoreError(() => store.deleteSession('gone'), 'not_found');
    expect(store.getSession('gone')).toBeUndefined();
    expect(store.searchArchive('zebra', { limit: 10, offset: 0 }).map((h) => h.sessionId)).toEqual(['kept']);
    store.close();

    const db = new Database(file, { readonly: true });
    for (const table of ['messages', 'compactions', 'tool_output_archive', 'archive_index']) {
      const rows = db.prepare(`SELECT session_id, count(*) AS n FROM ${table} GROUP BY session_id`).all();
      expect(
        rows.every((r) => (r as { session_id: string }).session_id === 'kept'),
        table,
      ).toBe(true);
    }
    const ftsRows = db.prepare('SELECT count(*) FROM archive_fts').pluck().get();
    const indexRows = db.prepare('SELECT count(*) FROM archive_index').pluck().get();
    expect(ftsRows).toBe(indexRows);
    expect(db.prepare("SELECT count(*) FROM messages WHERE session_id = 'kept'").pluck().get()).toBe(8);
    db.close();
    store = openStore(file);
  });

  it('refuses calls on a closed store with a clear error', () => {
    store.close();
    expectStoreError(() => store.listSessions(), 'io', /closed/);
    store.close(); // idempotent
    store = openStore(file);
  });
});
