import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openStore, type Store } from '../../src/store/index.js';
import { v7MessageIndex } from '../../src/store/search-index.js';
import { assistant, autoChange, tempDir, toolPair, user } from './helpers.js';
import { sqlite } from '../../src/store/sqlite.js';

// the binding the store loads on this Node.js (12 built from source, or 13 prebuilt on Node ≥ 22)
const Database = sqlite().Database;

// `agent sessions search` found only what compaction had archived. Every message is indexed as
// it is written (an older database is indexed by a migration); hits say whether they are archived.

let tmp: ReturnType<typeof tempDir>;
let file: string;
let store: Store;
const page = { limit: 20, offset: 0 };

beforeEach(() => {
  tmp = tempDir();
  file = join(tmp.dir, 'agent.db');
  store = openStore(file);
  store.createSession({ id: 's', cwd: '/repo', provider: 'p', model: 'm' });
});
afterEach(() => {
  store.close();
  tmp.cleanup();
});

function talk(): void {
  const [call, result] = toolPair('Bash', { command: 'make pelican' }, 'built the pelican target');
  for (const m of [
    user('we talked about the albatross plan'),
    assistant('the albatross plan is fine'),
    user('and the pelican build?'),
    call,
    result,
    assistant('done'),
  ])
    store.appendMessage('s', m, 3);
}

describe('the message index', () => {
  it('finds a message as soon as it is written, marked as not archived; archived once a compaction hides it', () => {
    talk();
    const before = store.searchArchive('albatross', { sessionId: 's', ...page });
    expect(before.map((h) => [h.label, h.archived])).toEqual(
      expect.arrayContaining([
        ['user message', false],
        ['assistant message', false],
      ]),
    );
    expect(before).toHaveLength(2);
    expect(store.searchArchive('albatross', { sessionId: 's', ...page, archivedOnly: true })).toEqual([]);
    // a tool result is labelled by its call
    expect(store.searchArchive('pelican target', { sessionId: 's', ...page })[0]).toMatchObject({
      label: 'tool result of Bash `make pelican`',
      archived: false,
    });

    store.applyCompaction('s', autoChange(store.loadVisible('s'), 1)!);
    const after = store.searchArchive('albatross', { sessionId: 's', ...page });
    expect(after.map((h) => h.archived)).toEqual([true, true]);
    expect(store.searchArchive('albatross', { sessionId: 's', ...page, archivedOnly: true })).toHaveLength(2);
  });

  it('a migration (7) indexes the messages of a database written before it', () => {
    talk();
    store.close();
    // what an older build left: only archived content indexed; then the migration's step runs on it
    const db = new Database(file);
    db.prepare("DELETE FROM archive_index WHERE kind = 'message'").run();
    expect(db.prepare("SELECT COUNT(*) FROM archive_index WHERE kind = 'message'").pluck().get()).toBe(0);
    v7MessageIndex.up(db);
    db.close();
    store = openStore(file);
    const hits = store.searchArchive('albatross', { sessionId: 's', ...page });
    expect(hits.map((h) => h.label).sort()).toEqual(['assistant message', 'user message']);
    expect(store.searchArchive('pelican target', { sessionId: 's', ...page })[0]?.label).toBe('tool result of Bash `make pelican`');
  });
});
