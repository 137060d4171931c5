import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { assistant, autoChange, tempDir, user } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
let store: Store;
beforeEach(() => {
  tmp = tempDir();
  store = openStore(join(tmp.dir, 'agent.db'));
  store.createSession({ id: 's', cwd: '/repo', provider: 'anthropic', model: 'm' });
});
afterEach(() => {
  store.close();
  tmp.cleanup();
});

describe('file snapshots', () => {
  it('keeps the first snapshot of a file per turn, and restores the earliest at or after a turn', () => {
    const [u1, a1, u2, a2, u3] = [user('one'), assistant('ok'), user('two'), assistant('ok'), user('three')];
    for (const m of [u1, a1, u2, a2, u3]) store.appendMessage('s', m!, 1);
    expect(store.saveSnapshot('s', { turnId: u1!.id, path: '/repo/a', content: Buffer.from('a0'), mode: 0o644 })).toBe(true);
    expect(store.saveSnapshot('s', { turnId: u1!.id, path: '/repo/a', content: Buffer.from('a0.5'), mode: 0o644 })).toBe(false);
    store.saveSnapshot('s', { turnId: u2!.id, path: '/repo/a', content: Buffer.from('a1'), mode: 0o644 });
    store.saveSnapshot('s', { turnId: u2!.id, path: '/repo/new', content: null, mode: null });
    store.saveSnapshot('s', { turnId: u3!.id, path: '/repo/b', content: Buffer.from('b2'), mode: 0o755 });
    const fromTwo = store.snapshotsSince('s', u2!.id);
    expect(fromTwo.map((s) => [s.path, s.content?.toString() ?? null, s.mode])).toEqual([
      ['/repo/a', 'a1', 0o644],
      ['/repo/new', null, null],
      ['/repo/b', 'b2', 0o755],
    ]);
    expect(store.snapshotsSince('s', u1!.id)[0]!.content!.toString()).toBe('a0');
    expect(store.snapshotTurns('s')).toEqual([
      { turnId: u1!.id, paths: ['/repo/a'] },
      { turnId: u2!.id, paths: ['/repo/a', '/repo/new'] },
      { turnId: u3!.id, paths: ['/repo/b'] },
    ]);
  });

  it('a rewind archives the turn and what follows (searchable, not a compaction), and the session can still be deleted', () => {
    const msgs = [user('keep this'), assistant('fine'), user('rewind the zebra request'), assistant('zebra done')];
    for (const m of msgs) store.appendMessage('s', m, 1);
    store.saveSnapshot('s', { turnId: msgs[2]!.id, path: '/repo/z', content: Buffer.from('z'), mode: 0o600 });
    const ids = store.rewindConversation('s', { id: 'rw_1', turnId: msgs[2]!.id, createdAt: Date.now() });
    expect(ids).toEqual([msgs[2]!.id, msgs[3]!.id]);
    expect(store.loadVisible('s').map((m) => m.id)).toEqual([msgs[0]!.id, msgs[1]!.id]);
    expect(store.getSession('s')).toMatchObject({ visibleCount: 2, messageCount: 4, compactionCount: 0 });
    expect(store.listCompactions('s')).toEqual([]);
    expect(store.searchArchive('zebra', { sessionId: 's', limit: 5, offset: 0 }).map((h) => h.id)).toContain(msgs[2]!.id);
    expect(() => store.rewindConversation('s', { id: 'rw_2', turnId: msgs[2]!.id, createdAt: Date.now() })).toThrow(/no longer in the visible history/);
    // appending after a rewind continues the visible order
    const next = user('after');
    store.appendMessage('s', next, 1);
    expect(store.loadVisible('s').map((m) => m.id)).toEqual([msgs[0]!.id, msgs[1]!.id, next.id]);
    store.deleteSession('s');
    expect(store.getSession('s')).toBeUndefined();
  });

  it('a rewind after a compaction keeps the checkpoint and archives only from the turn on', () => {
    const msgs = [user('old one'), assistant('a'), user('old two'), assistant('b'), user('recent'), assistant('c')];
    for (const m of msgs) store.appendMessage('s', m, 1);
    store.applyCompaction('s', autoChange(store.loadVisible('s'), 1)!);
    const visible = store.loadVisible('s');
    const recent = visible.find((m) => m.id === msgs[4]!.id)!;
    store.rewindConversation('s', { id: 'rw_1', turnId: recent.id, createdAt: Date.now() });
    expect(store.loadVisible('s').map((m) => m.kind)).toEqual(['checkpoint']);
    expect(store.listCompactions('s')).toHaveLength(1);
  });
});
