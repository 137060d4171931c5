import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { assistant, tempDir, toolPair, user } from './helpers.js';

// Child sessions (sub-agents) are session rows linked to their parent (migration 6): listed
// under their parent, never among the sessions, deleted with it, and found by search once
// their transcript is indexed.

let cleanup: () => void = () => {};
afterEach(() => cleanup());

function fresh(): Store {
  const t = tempDir();
  cleanup = t.cleanup;
  return openStore(join(t.dir, 'agent.db'));
}

const base = { cwd: '/w', provider: 'anthropic', model: 'claude-sonnet-4-5' };

describe('child sessions', () => {
  it('link to parent, turn and call; are left out of lists and --continue; are listed under the parent; go with it', () => {
    const store = fresh();
    store.createSession({ id: 's_parent', ...base });
    store.appendMessage('s_parent', user('explore', { id: 'm_turn' }), null);
    const child = store.createSession({
      id: 's_child',
      ...base,
      title: 'explore: look',
      parent: { id: 's_parent', turn: 'm_turn', toolUseId: 'toolu_1', agent: 'explore' },
    });
    store.appendMessage('s_child', user('look around'), null);
    expect(child.parent).toEqual({ id: 's_parent', turn: 'm_turn', toolUseId: 'toolu_1', agent: 'explore' });
    expect(store.getSession('s_child')?.parent?.agent).toBe('explore');
    expect(store.getSession('s_parent')?.parent).toBeUndefined();
    expect(store.listSessions().map((s) => s.id)).toEqual(['s_parent']);
    expect(store.listSessions({ cwd: '/w' }).map((s) => s.id)).toEqual(['s_parent']);
    expect(store.latestSession()?.id).toBe('s_parent');
    expect(store.latestSession('/w')?.id).toBe('s_parent');
    expect(store.childSessions('s_parent').map((s) => s.id)).toEqual(['s_child']);
    store.deleteSession('s_parent');
    expect(store.getSession('s_child')).toBeUndefined();
    store.close();
  });

  it("are found by search as their messages are written: across sessions, and within the parent's scope only with its children", () => {
    const store = fresh();
    store.createSession({ id: 's_p', ...base });
    store.createSession({ id: 's_c', ...base, parent: { id: 's_p', turn: 'm', toolUseId: 't', agent: 'explore' } });
    const [call, result] = toolPair('Grep', { pattern: 'x' }, 'the needle is PLATYPUS-12');
    for (const m of [user('find it'), call, result, assistant('Found PLATYPUS-12.')]) store.appendMessage('s_c', m, null);
    const all = store.searchArchive('PLATYPUS', { limit: 10, offset: 0 });
    expect(all.length).toBe(2);
    expect(new Set(all.map((h) => h.sessionId))).toEqual(new Set(['s_c']));
    expect(store.searchArchive('PLATYPUS', { sessionId: 's_p', limit: 10, offset: 0 })).toEqual([]);
    expect(store.searchArchive('PLATYPUS', { sessionId: 's_p', withChildren: true, limit: 10, offset: 0 }).length).toBe(2);
    store.close();
  });

  it('reach an old database by migration: its sessions stay top-level', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const file = join(t.dir, 'old.db');
    copyFileSync(join(import.meta.dirname, 'fixtures', 'v4-history.db'), file);
    const store = openStore(file);
    const sessions = store.listSessions();
    expect(sessions.length).toBeGreaterThan(0);
    for (const s of sessions) {
      expect(s.parent).toBeUndefined();
      expect(store.childSessions(s.id)).toEqual([]);
    }
    store.close();
  });

  it("number spilled outputs across the family, so a child's handle never names a parent's output", () => {
    const store = fresh();
    const spill = (id: string, text: string): string =>
      store.spilled.save(id, {
        toolUseId: `t_${text}`,
        toolName: 'Bash',
        summary: text,
        content: text,
        isError: false,
        totalChars: 4,
        totalLines: 1,
        totalBytes: 4,
      });
    store.createSession({ id: 's_p', ...base });
    store.createSession({ id: 's_c1', ...base, parent: { id: 's_p', turn: 'm', toolUseId: 't1', agent: 'explore' } });
    store.createSession({ id: 's_c2', ...base, parent: { id: 's_p', turn: 'm', toolUseId: 't2', agent: 'explore' } });
    store.createSession({ id: 's_g', ...base, parent: { id: 's_c1', turn: 'm', toolUseId: 't3', agent: 'explore' } });
    store.createSession({ id: 's_other', ...base });
    expect([spill('s_p', 'P1'), spill('s_c1', 'C1'), spill('s_c2', 'C2'), spill('s_g', 'G1'), spill('s_p', 'P2')]).toEqual(['o1', 'o2', 'o3', 'o4', 'o5']);
    // another session's numbering is its own
    expect(spill('s_other', 'X1')).toBe('o1');
    expect(store.spilled.get('s_c2', 'o3')?.content).toBe('C2');
    expect(store.spilled.get('s_p', 'o2')).toBeUndefined();
    store.close();
  });
});
