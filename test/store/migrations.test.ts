import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore, SCHEMA_VERSION, StoreError } from '../../src/store/index.js';
import { migrate, MIGRATIONS, type Migration } from '../../src/store/migrations.js';
import { tempDir } from './helpers.js';
import { sqlite } from '../../src/store/sqlite.js';

// the binding the store loads on this Node.js (12 built from source, or 13 prebuilt on Node ≥ 22)
const Database = sqlite().Database;

let tmp: ReturnType<typeof tempDir>;
let file: string;

beforeEach(() => {
  tmp = tempDir();
  file = join(tmp.dir, 'agent.db');
});
afterEach(() => tmp.cleanup());

const version = (path: string): number => {
  const db = new Database(path, { readonly: true });
  const v = db.pragma('user_version', { simple: true }) as number;
  db.close();
  return v;
};

function openError(path: string, opts = {}): StoreError {
  try {
    openStore(path, opts).close();
  } catch (e) {
    expect(e).toBeInstanceOf(StoreError);
    return e as StoreError;
  }
  throw new Error('openStore did not fail');
}

/** A version 1 database written by hand: v1 tables, rows inserted with plain SQL. */
function writeVersion1Database(path: string): void {
  const db = new Database(path);
  MIGRATIONS[0]!.up(db);
  db.pragma('user_version = 1');
  const usage = JSON.stringify({ inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 });
  db.exec(`
    INSERT INTO sessions (id, cwd, title, provider, model, created_at, updated_at, touched, meta, message_count, visible_count, compaction_count)
      VALUES ('old', '/repo', 'an old session', 'anthropic', 'claude-test', 10, 20, 1, '{"compaction":{"failures":0}}', 6, 3, 2);
    INSERT INTO compactions (session_id, id, trigger, status, tokens_before, tokens_after, archived_count, preserved_count, summary_tokens, summary, method, duration_ms, model, usage, created_at)
      VALUES ('old', 'c1', 'auto', 'applied', 900, 100, 3, 1, 50, 'the summary', 'single', 40, 'claude-test', '${usage}', 15),
             ('old', 'c2', 'micro', 'applied', 300, 200, 1, 0, 0, NULL, NULL, 2, 'claude-test', '${usage}', 16);
  `);
  const insert = db.prepare(
    'INSERT INTO messages (session_id, id, seq, pos, role, kind, blocks, tokens, created_at, archived_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const text = (t: string) => JSON.stringify([{ type: 'text', text: t }]);
  insert.run('old', 'm1', 1, null, 'user', 'normal', text('migrate the flamingo module'), 5, 1, 'c1');
  insert.run(
    'old',
    'm2',
    2,
    null,
    'assistant',
    'normal',
    JSON.stringify([{ type: 'tool_use', id: 'tu1', name: 'Bash', input: { command: 'make flamingo' } }]),
    5,
    2,
    'c1',
  );
  insert.run(
    'old',
    'm3',
    3,
    null,
    'user',
    'normal',
    JSON.stringify([{ type: 'tool_result', toolUseId: 'tu1', content: 'flamingo built', isError: false }]),
    5,
    3,
    'c1',
  );
  insert.run('old', 'cp', 4, 0, 'user', 'checkpoint', text('the summary'), 5, 4, null);
  insert.run(
    'old',
    'm5',
    5,
    1,
    'assistant',
    'normal',
    JSON.stringify([{ type: 'tool_use', id: 'tu2', name: 'FileRead', input: { path: 'src/flamingo.ts' } }]),
    5,
    5,
    null,
  );
  insert.run(
    'old',
    'm6',
    6,
    2,
    'user',
    'normal',
    JSON.stringify([{ type: 'tool_result', toolUseId: 'tu2', content: '[cleared]', isError: false, cleared: { archiveId: 'tx1', originalTokens: 9 } }]),
    5,
    6,
    null,
  );
  db.prepare(
    `INSERT INTO tool_output_archive (session_id, id, message_id, tool_use_id, tool_name, summary, content, is_error, tokens, compaction_id, created_at)
     VALUES ('old', 'tx1', 'm6', 'tu2', 'FileRead', 'src/flamingo.ts', 'export const flamingo = pinkBird();', 0, 9, 'c2', 16)`,
  ).run();
  db.close();
}

describe('schema migrations', () => {
  it('creates the current schema in a new or empty file', () => {
    writeFileSync(file, '', { mode: 0o600 });
    const store = openStore(file);
    expect(store.listSessions()).toEqual([]);
    store.close();
    expect(version(file)).toBe(SCHEMA_VERSION);
  });

  it('upgrades a version 1 database made by hand, keeping its data and indexing what it had archived', () => {
    writeVersion1Database(file);
    const store = openStore(file);
    expect(version(file)).toBe(SCHEMA_VERSION);
    expect(store.getSession('old')).toMatchObject({
      title: 'an old session',
      messageCount: 6,
      visibleCount: 3,
      compactionCount: 2,
      meta: { compaction: { failures: 0 } },
    });
    expect(store.loadVisible('old').map((m) => m.id)).toEqual(['cp', 'm5', 'm6']);
    expect(store.listCompactions('old').map((c) => c.id)).toEqual(['c1', 'c2']);

    const hits = store.searchArchive('flamingo', { sessionId: 'old', limit: 10, offset: 0, archivedOnly: true });
    expect(new Set(hits.map((h) => h.id))).toEqual(new Set(['m1', 'm2', 'm3', 'tx1']));
    // the visible messages are indexed too (schema 7), marked as not archived
    const all = store.searchArchive('flamingo', { sessionId: 'old', limit: 10, offset: 0 });
    expect(all.filter((h) => !h.archived).map((h) => h.id)).toEqual(
      expect.arrayContaining(all.filter((h) => !['m1', 'm2', 'm3', 'tx1'].includes(h.id)).map((h) => h.id)),
    );
    expect(hits.find((h) => h.id === 'm3')!.label).toBe('tool result of Bash `make flamingo`');
    expect(hits.find((h) => h.id === 'tx1')).toMatchObject({ kind: 'tool_output', label: 'FileRead output `src/flamingo.ts` (cleared)', createdAt: 6 });
    expect(store.getArchived('tx1')!.text).toBe('export const flamingo = pinkBird();');
    // visible messages are not archived: an archive search leaves them out, a plain one marks them
    expect(store.searchArchive('summary', { sessionId: 'old', limit: 10, offset: 0, archivedOnly: true })).toEqual([]);
    expect(store.searchArchive('summary', { sessionId: 'old', limit: 10, offset: 0 }).every((h) => !h.archived)).toBe(true);

    // and it keeps working as a current database
    store.appendMessage('old', { id: 'm7', role: 'assistant', kind: 'normal', createdAt: 7, blocks: [{ type: 'text', text: 'ok' }] }, 1);
    expect(store.loadVisible('old').map((m) => m.id)).toEqual(['cp', 'm5', 'm6', 'm7']);
    store.close();
  });

  it('runs every pending step in one transaction: a failing step leaves the database at its old version', () => {
    writeVersion1Database(file);
    const db = new Database(file);
    const next = MIGRATIONS.length + 1;
    const v3: Migration = {
      version: next,
      description: 'a step that fails half-way',
      up(d) {
        d.exec('ALTER TABLE sessions ADD COLUMN pinned_note TEXT');
        throw new Error('boom');
      },
    };
    expect(() => migrate(db, [...MIGRATIONS, v3])).toThrow('boom');
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
    expect(tables).not.toContain('archive_index'); // step 2 rolled back with step 3
    const cols = (db.prepare('PRAGMA table_info(sessions)').all() as Array<{ name: string }>).map((c) => c.name);
    expect(cols).not.toContain('pinned_note');

    const v3ok: Migration = { version: next, description: 'adds a column', up: (d) => d.exec('ALTER TABLE sessions ADD COLUMN pinned_note TEXT') };
    expect(migrate(db, [...MIGRATIONS, v3ok])).toEqual({ from: 1, to: next });
    expect(db.pragma('user_version', { simple: true })).toBe(next);
    expect(migrate(db, [...MIGRATIONS, v3ok])).toEqual({ from: next, to: next });
    db.close();
  });

  it('refuses a database from a newer build, naming the file and both versions, and never alters it', () => {
    const store = openStore(file);
    store.createSession({ id: 's', cwd: '/', provider: 'p', model: 'm' });
    store.close();
    const db = new Database(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    db.pragma('journal_mode = DELETE'); // a plain file, so any later write would show in its bytes
    db.close();
    const before = readFileSync(file);
    const err = openError(file);
    expect(err.kind).toBe('newer_schema');
    expect(err.file).toBe(file);
    expect(err.message).toContain(file);
    expect(err.message).toContain(`version ${SCHEMA_VERSION + 5}`);
    expect(err.message).toContain(`version ${SCHEMA_VERSION}`);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(openError(file, { readonly: true }).kind).toBe('newer_schema');
  });

  it("refuses to add its tables to another program's SQLite database", () => {
    const db = new Database(file);
    db.exec('CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)');
    db.close();
    const before = readFileSync(file);
    const err = openError(file);
    expect(err.kind).toBe('invalid');
    expect(err.message).toContain(file);
    expect(err.message).toMatch(/another program.*customers/);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('a read-only open of an outdated database asks for one read-write open', () => {
    writeVersion1Database(file);
    const err = openError(file, { readonly: true });
    expect(err.kind).toBe('readonly');
    expect(err.message).toMatch(/schema version 1 and needs upgrading/);
    expect(version(file)).toBe(1);
  });
});
