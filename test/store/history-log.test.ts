import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '../../src/llm/messages.js';
import { historyProblems } from '../../src/llm/validate.js';
import { openStore, type Store } from '../../src/store/index.js';
import { assistant, autoChange, tempDir, uid, user } from './helpers.js';
import { sqlite } from '../../src/store/sqlite.js';

// the binding the store loads on this Node.js (12 built from source, or 13 prebuilt on Node ≥ 22)
const Database = sqlite().Database;

// The store's side of the history log: what a record on disk must hold, and a database from
// before the log. What the log derives is test/history/; that the cache follows it over random
// sequences is test/history/properties.test.ts.

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

const ids = (ms: readonly Message[]): string[] => ms.map((m) => m.id);

describe('records as stored', () => {
  it('a record whose body lacks what its kind needs is refused by name, not replayed as if it did nothing', () => {
    store.createSession({ id: 's', cwd: '/', provider: 'p', model: 'm' });
    for (const m of [user('one'), assistant('a'), user('two'), assistant('b')]) store.appendMessage('s', m, 3);
    const db = new Database(file);
    db.prepare(
      "INSERT INTO history_records (session_id, id, kind, after_seq, body, created_at) VALUES ('s', 'rw_bad', 'rewind', 4, '{\"at\":\"u1\"}', 1)",
    ).run();
    db.close();
    // without the check the rewind would cut at `undefined`, which is nowhere: nothing would change and nothing would say why
    expect(() => store.deriveVisibleIds('s')).toThrow(/history record rw_bad \(rewind\) of session s has no valid cut/);
  });
});

describe('migration from schema v4', () => {
  it("the helpers' ids never take the shape of the fixture's, so no order of files makes them collide", () => {
    // The fixture was written by these helpers when their ids were a bare counter (`cp00021`). Test files
    // share the helpers' module in a worker, so the counter stands wherever earlier files left it: the case
    // below once failed with `added message cp00021 is already stored` after other files had run first.
    const text = readFileSync(new URL('./fixtures/v4-history.expected.json', import.meta.url), 'utf8');
    const fixtureIds = new Set([...text.matchAll(/"(?:id|toolUseId)": "([^"]+)"/g)].map((m) => m[1]!));
    const counterShaped = /^(u|a|r|toolu_|cmp_|cp|tx_)\d{5}$/;
    expect([...fixtureIds].filter((id) => counterShaped.test(id)).length).toBeGreaterThan(20);
    for (const prefix of ['u', 'a', 'r', 'toolu_', 'cmp_', 'cp', 'tx_']) {
      const made = uid(prefix);
      expect(made).not.toMatch(counterShaped);
      expect(fixtureIds.has(made)).toBe(false);
    }
  });

  it('reads a database written by the v4 store exactly as that store did, and can go on from it', () => {
    const copy = join(tmp.dir, 'v4.db');
    copyFileSync(new URL('./fixtures/v4-history.db', import.meta.url), copy);
    const expected = JSON.parse(readFileSync(new URL('./fixtures/v4-history.expected.json', import.meta.url), 'utf8')) as Record<
      string,
      { visible: unknown; transcript: unknown; compactions: unknown; info: Record<string, unknown> }
    >;
    const v4 = openStore(copy);
    try {
      for (const [id, want] of Object.entries(expected)) {
        expect(JSON.parse(JSON.stringify(v4.loadVisibleEntries(id)))).toEqual(want.visible);
        expect(JSON.parse(JSON.stringify(v4.loadTranscript(id, { includeArchived: true })))).toEqual(want.transcript);
        expect(JSON.parse(JSON.stringify(v4.listCompactions(id)))).toEqual(want.compactions);
        const info = v4.getSession(id)!;
        expect({ messageCount: info.messageCount, visibleCount: info.visibleCount, compactionCount: info.compactionCount, title: info.title }).toEqual(
          want.info,
        );
        expect(v4.deriveVisibleIds(id)).toEqual(ids(v4.loadVisible(id)));
      }
      // compactions of the old format cannot be reverted (their views were not recorded); new ones can
      expect(v4.compactionsInEffect('s_v4_full')).toEqual([]);
      const before = v4.loadVisible('s_v4_full');
      v4.appendMessage('s_v4_full', user('after the upgrade'), 4);
      v4.appendMessage('s_v4_full', assistant('fine'), 2);
      v4.appendMessage('s_v4_full', user('and again'), 4);
      v4.appendMessage('s_v4_full', assistant('still fine'), 2);
      const change = autoChange(v4.loadVisible('s_v4_full'), 1)!;
      v4.applyCompaction('s_v4_full', change);
      const [c] = v4.compactionsInEffect('s_v4_full');
      expect(c?.record.id).toBe(change.record.id);
      v4.revertCompaction('s_v4_full', { id: 'rv_after_upgrade', target: change.record.id, createdAt: 1 });
      expect(ids(v4.loadVisible('s_v4_full')).slice(0, before.length)).toEqual(ids(before));
      expect(historyProblems(v4.loadVisible('s_v4_full'))).toEqual([]);
    } finally {
      v4.close();
    }
  });
});

// Mutation checked: uid back to `${prefix}${counter padded to 5}` (no per-load tag) fails the
// "never take the shape of the fixture's" case whatever order the files run in.
