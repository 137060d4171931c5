import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { LEASE_STALE_MS } from '../../src/session/lease.js';
import { readOnlyCopy, removeLeftoverCopies } from '../../src/sessionLookup.js';
import { openStore, type Store } from '../../src/store/index.js';
import { tempDir } from '../store/helpers.js';

// A read-only run's copies of a session (-p /todos of a session the TUI writes): one whose run
// was killed is removed at a later start; one still read, or just made and not yet opened, stays.
// The processes themselves: test/e2e/lease.test.ts.

let tmp: ReturnType<typeof tempDir>;
let store: Store;

beforeEach(() => {
  tmp = tempDir();
  store = openStore(join(tmp.dir, 'agent.db'));
  store.createSession({ id: 's_original', cwd: '/repo', provider: 'anthropic', model: 'claude-test' });
});
afterEach(() => {
  store.close();
  tmp.cleanup();
});

describe('removeLeftoverCopies', () => {
  it('removes a copy without a lease once it is older than a stale lease, keeps a younger one and every other session', () => {
    const original = store.getSession('s_original')!;
    const copy = readOnlyCopy(store, original, '/repo');
    expect(copy.id.startsWith('sview_')).toBe(true);
    // just made, not yet opened by its run: mutation: removing every lease-less copy at once
    removeLeftoverCopies(store, copy.createdAt + 1_000);
    expect(store.getSession(copy.id)).toBeDefined();
    removeLeftoverCopies(store, copy.createdAt + LEASE_STALE_MS + 1);
    expect(store.getSession(copy.id)).toBeUndefined();
    expect(store.getSession('s_original')).toBeDefined();
  });

  it('keeps a copy whose reader lives and removes one whose reader is gone', () => {
    const original = store.getSession('s_original')!;
    const read = readOnlyCopy(store, original, '/repo');
    const killed = readOnlyCopy(store, original, '/repo');
    // pid 1 lives in every container; a pid above the kernel's maximum never did
    store.acquireLease(read.id, { token: 'a', pid: 1, host: hostname() }, () => false);
    store.acquireLease(killed.id, { token: 'b', pid: 2 ** 22 + 1, host: hostname() }, () => false);
    removeLeftoverCopies(store, Date.now());
    expect(store.getSession(read.id)).toBeDefined();
    expect(store.getSession(killed.id)).toBeUndefined();
  });
});
