import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { isStaleLease, SessionInUseError, SessionLease } from '../../src/session/lease.js';
import { openStore, SCHEMA_VERSION, type Store } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
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
  store.createSession({ id: 's', cwd: '/repo', provider: 'anthropic', model: 'm' });
});
afterEach(() => {
  store.close();
  tmp.cleanup();
});

/** A pid that no longer exists: a child that has already exited. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '0']).pid!;

describe('session leases', () => {
  it('refuses a second live writer and names its pid; the holder may take it again', () => {
    const live = { token: 'other', pid: process.ppid, host: hostname() };
    expect(store.acquireLease('s', live, (h) => isStaleLease(h)).acquired).toBe(true);
    const err = (() => {
      try {
        SessionLease.acquire(store, 's');
      } catch (e) {
        return e as SessionInUseError;
      }
      throw new Error('acquired a lease held by a live process');
    })();
    expect(err).toBeInstanceOf(SessionInUseError);
    expect(err.message).toContain(`session s is in use by pid ${process.ppid}`);
    expect(err.message).toContain('--fork');
    expect(store.acquireLease('s', live, (h) => isStaleLease(h)).acquired).toBe(true);
  });

  it('takes over the lease of a dead process on this host, and of a silent one elsewhere', () => {
    store.acquireLease('s', { token: 'dead', pid: deadPid(), host: hostname() }, () => false);
    const lease = SessionLease.acquire(store, 's');
    expect(store.getLease('s')?.pid).toBe(process.pid);
    lease.release();
    expect(store.getLease('s')).toBeUndefined();

    store.acquireLease('s', { token: 'far', pid: 1, host: 'another-host' }, () => false);
    expect(() => SessionLease.acquire(store, 's')).toThrow(/in use by pid 1 on another-host/);
    const db = new Database(file);
    db.prepare('UPDATE session_leases SET heartbeat_at = ?').run(Date.now() - 10 * 60_000);
    db.close();
    SessionLease.acquire(store, 's').release();
  });

  it('releases only its own lease, and a renewal tells when the lease was taken over', () => {
    const first = SessionLease.acquire(store, 's');
    const second = SessionLease.acquire(store, 's'); // the same process reopening its session
    first.release();
    expect(store.getLease('s')?.pid).toBe(process.pid);
    store.acquireLease('s', { token: 'thief', pid: 1, host: 'elsewhere' }, () => true);
    expect(store.renewLease('s', 'thief')).toBe(true);
    expect(store.renewLease('s', 'not-mine')).toBe(false);
    second.release();
    expect(store.getLease('s')?.token).toBe('thief');
  });

  it('deleting a session deletes its lease', () => {
    SessionLease.acquire(store, 's');
    store.deleteSession('s');
    expect(store.getLease('s')).toBeUndefined();
  });
});

describe('fork and repair writes', () => {
  it('forks a session with its archive, compactions and search index', () => {
    const msgs = [
      user('migrate the flamingo module'),
      ...toolPair('Bash', { command: 'make flamingo' }, 'flamingo built'),
      assistant('done'),
      user('next'),
      assistant('ok'),
    ];
    for (const m of msgs) store.appendMessage('s', m, 3);
    store.applyCompaction('s', autoChange(msgs, 1)!);
    store.forkSession('s', { id: 'f', cwd: '/elsewhere', provider: 'anthropic', model: 'm', title: 'copy' });
    const fork = store.getSession('f')!;
    const orig = store.getSession('s')!;
    expect(fork).toMatchObject({ cwd: '/elsewhere', title: 'copy', messageCount: orig.messageCount, visibleCount: orig.visibleCount, compactionCount: 1 });
    expect(store.loadVisible('f')).toEqual(store.loadVisible('s'));
    expect(store.loadTranscript('f', { includeArchived: true })).toEqual(store.loadTranscript('s', { includeArchived: true }));
    expect(store.searchArchive('flamingo', { sessionId: 'f', limit: 5, offset: 0 }).length).toBeGreaterThan(0);
    // the copy is independent
    store.deleteSession('s');
    expect(store.loadVisible('f').length).toBe(fork.visibleCount);
  });

  it('rewrites the visible history for a repair without dropping a stored message', () => {
    const a = user('a');
    const b = user('b');
    store.appendMessage('s', a, 1);
    store.appendMessage('s', b, 1);
    const marker = assistant('[No reply]');
    store.rewriteVisible('s', { messages: [a, marker, b], added: [marker], replaced: [] });
    expect(store.loadVisible('s').map((m) => m.id)).toEqual([a.id, marker.id, b.id]);
    expect(store.getSession('s')).toMatchObject({ messageCount: 3, visibleCount: 3 });
    expect(() => store.rewriteVisible('s', { messages: [a, b], added: [], replaced: [] })).toThrow(/would leave the visible history/);
  });
});

describe('migration to the lease schema', () => {
  it('upgrades a database built by the previous schema, keeping its sessions, and leases work on it', () => {
    const old = join(tmp.dir, 'v2.db');
    const db = new Database(old);
    for (const m of MIGRATIONS.slice(0, 2)) m.up(db);
    db.pragma('user_version = 2');
    db.prepare("INSERT INTO sessions (id, cwd, provider, model, created_at, updated_at, touched) VALUES ('old', '/r', 'anthropic', 'm', 1, 1, 1)").run();
    db.close();
    const upgraded = openStore(old);
    try {
      expect(upgraded.getSession('old')?.cwd).toBe('/r');
      const lease = SessionLease.acquire(upgraded, 'old');
      expect(upgraded.getLease('old')?.pid).toBe(process.pid);
      lease.release();
    } finally {
      upgraded.close();
    }
    const check = new Database(old, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    check.close();
  });
});
