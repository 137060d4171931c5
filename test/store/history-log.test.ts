import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { isToolResultMessage, type Message } from '../../src/llm/messages.js';
import { historyProblems } from '../../src/llm/validate.js';
import { deriveHistory, LogError, type LogEntry } from '../../src/store/derive.js';
import { openStore, type Store } from '../../src/store/index.js';
import { assistant, autoChange, microChange, tempDir, toolPair, uid, user } from './helpers.js';
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

const msg = (id: string, addedBy: string | null = null): LogEntry => ({ type: 'message', id, addedBy });
const ids = (ms: readonly Message[]): string[] => ms.map((m) => m.id);

describe('deriveHistory', () => {
  it('replays appends, a compaction view, a cut, pins and repairs', () => {
    const d = deriveHistory([
      msg('u1'),
      msg('a1'),
      msg('u2'),
      msg('a2'),
      msg('cp', 'c1'),
      { type: 'record', id: 'c1', kind: 'compaction', body: { view: ['cp', 'u2', 'a2'] } },
      msg('u3'),
      { type: 'record', id: 'p1', kind: 'pin', body: { pins: [{ id: 'u3', pinned: true }] } },
      msg('a3'),
      msg('u4'),
      { type: 'record', id: 'rw', kind: 'rewind', body: { cut: 'u4' } },
      msg('x', 'rp'),
      { type: 'record', id: 'rp', kind: 'repair', body: { inserts: [{ id: 'x', after: 'u3' }] } },
    ]);
    expect(d.view).toEqual(['cp', 'u2', 'a2', 'u3', 'x', 'a3']);
    expect(Object.fromEntries(d.hiddenBy)).toEqual({ u1: 'c1', a1: 'c1', u4: 'rw' });
    expect(d.pinned.get('u3')).toBe(true);
    expect(d.compactions).toEqual(['c1']);
  });

  it('a revert undoes its compaction and every later one, and keeps what was appended, pinned, cut and repaired since', () => {
    const base: LogEntry[] = [
      msg('u1'),
      msg('a1'),
      msg('u2'),
      msg('a2'),
      msg('cp1', 'c1'),
      {
        type: 'record',
        id: 'c1',
        kind: 'compaction',
        body: { view: ['cp1', 'u2', 'a2'], revisions: [{ id: 'a2', blocks: [{ type: 'text', text: 'cleared' }] }] },
      },
      msg('u3'),
      msg('a3'),
      msg('cp2', 'c2'),
      { type: 'record', id: 'c2', kind: 'compaction', body: { view: ['cp2', 'u3', 'a3'] } },
      { type: 'record', id: 'pn', kind: 'pin', body: { pins: [{ id: 'u3', pinned: true }] } },
      msg('u4'),
      msg('a4'),
      msg('u5'),
      { type: 'record', id: 'rw', kind: 'rewind', body: { cut: 'u5' } },
    ];
    const one = deriveHistory([...base, { type: 'record', id: 'r2', kind: 'revert', body: { target: 'c2' } }]);
    expect(one.view).toEqual(['cp1', 'u2', 'a2', 'u3', 'a3', 'u4', 'a4']);
    expect(one.hiddenBy.get('cp2')).toBe('r2');
    expect(one.hiddenBy.get('u5')).toBe('rw');
    expect(one.revised.get('a2')?.by).toBe('c1');
    expect(one.compactions).toEqual(['c1']);
    const all = deriveHistory([...base, { type: 'record', id: 'r1', kind: 'revert', body: { target: 'c1' } }]);
    expect(all.view).toEqual(['u1', 'a1', 'u2', 'a2', 'u3', 'a3', 'u4', 'a4']);
    expect(all.revised.has('a2')).toBe(false);
    expect(all.pinned.get('u3')).toBe(true);
    expect(all.compactions).toEqual([]);
    expect([...all.hiddenBy.keys()].sort()).toEqual(['cp1', 'cp2', 'u5']);
    expect(() => deriveHistory([...base, { type: 'record', id: 'r9', kind: 'revert', body: { target: 'nope' } }])).toThrow(LogError);
  });

  it('a revert of a conversation rewind brings the cut turns back after what came before them, later rewinds still apply', () => {
    const base: LogEntry[] = [
      msg('u1'),
      msg('a1'),
      msg('u2'),
      msg('a2'),
      { type: 'record', id: 'rw1', kind: 'rewind', body: { cut: 'u2' } },
      msg('u3'),
      msg('a3'),
      msg('u4'),
      { type: 'record', id: 'rw2', kind: 'rewind', body: { cut: 'u4' } },
    ];
    expect(deriveHistory(base).rewinds).toEqual(['rw1', 'rw2']);
    const d = deriveHistory([...base, { type: 'record', id: 'r1', kind: 'revert', body: { target: 'rw1' } }]);
    expect(d.view).toEqual(['u1', 'a1', 'u2', 'a2', 'u3', 'a3']);
    expect(d.hiddenBy.get('u4')).toBe('rw2');
    expect(d.rewinds).toEqual(['rw2']);
    // a rewind is undone whole: no partial revert of it
    expect(() => deriveHistory([...base, { type: 'record', id: 'r2', kind: 'revert', body: { target: 'rw2', restore: ['u4'] } }])).toThrow(LogError);
  });

  it('a partial revert brings back only the listed messages the target hid, before the view', () => {
    const d = deriveHistory([
      msg('u1'),
      msg('a1'),
      msg('u2'),
      msg('a2'),
      msg('u3'),
      msg('cp', 'c1'),
      { type: 'record', id: 'c1', kind: 'compaction', body: { view: ['cp', 'u3'] } },
      { type: 'record', id: 'r1', kind: 'revert', body: { target: 'c1', restore: ['u2', 'a2', 'u3'] } },
    ]);
    expect(d.view).toEqual(['u2', 'a2', 'cp', 'u3']);
    expect(d.compactions).toEqual(['c1']);
  });
});

type Op =
  | { kind: 'turn'; tools: number; pin: boolean }
  | { kind: 'micro'; keep: number }
  | { kind: 'auto'; keep: number }
  | { kind: 'revert'; pick: number; partial: number }
  | { kind: 'rewind'; pick: number }
  | { kind: 'unrewind'; pick: number }
  | { kind: 'unpin' }
  | { kind: 'repair'; pick: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('turn' as const), tools: fc.integer({ min: 0, max: 3 }), pin: fc.boolean() }) },
  fc.record({ kind: fc.constant('micro' as const), keep: fc.integer({ min: 0, max: 3 }) }),
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('auto' as const), keep: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('revert' as const), pick: fc.nat(), partial: fc.integer({ min: 0, max: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('rewind' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('unrewind' as const), pick: fc.nat() }) },
  fc.record({ kind: fc.constant('unpin' as const) }),
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('repair' as const), pick: fc.nat() }) },
);

const isPromptLike = (m: Message): boolean => m.role === 'user' && m.kind === 'normal' && !isToolResultMessage(m);

/** The newest `n` or more messages the compaction hid, from a prompt on, when the result is valid. */
function partialRestore(hidden: readonly Message[], view: readonly Message[], n: number): string[] | undefined {
  for (let start = Math.max(0, hidden.length - n); start >= 0; start--) {
    const part = hidden.slice(start);
    if (part.length > 0 && isPromptLike(part[0]!) && historyProblems([...part, ...view]).length === 0) return ids(part);
  }
  return undefined;
}

describe('the store keeps the derived history', () => {
  it('over random appends, compactions, clears, reverts, rewinds, undone rewinds, unpins and repairs: the cache equals the log replayed, the history is valid, nothing is lost', () => {
    let run = 0;
    let unrewinds = 0;
    let repairsReverted = 0;
    fc.assert(
      fc.property(fc.array(op, { minLength: 8, maxLength: 40, size: 'max' }), (ops) => {
        const s = `prop${run++}`;
        store.createSession({ id: s, cwd: '/', provider: 'p', model: 'm' });
        const everStored = new Set<string>();
        const repaired: string[] = [];
        for (const o of ops) {
          const visible = store.loadVisible(s);
          if (o.kind === 'turn') {
            const msgs: Message[] = [user(`ask ${uid('q')}`, o.pin ? { pinned: true } : {})];
            for (let i = 0; i < o.tools; i++) msgs.push(...toolPair(i % 2 ? 'FileRead' : 'Bash', { command: `cmd ${i}` }, `result ${uid('o')}`));
            msgs.push(assistant(`answer ${uid('t')}`));
            for (const m of msgs) {
              store.appendMessage(s, m, 3);
              everStored.add(m.id);
            }
          } else if (o.kind === 'micro' || o.kind === 'auto') {
            const change = o.kind === 'micro' ? microChange(visible, o.keep) : autoChange(visible, o.keep);
            if (!change) continue;
            store.applyCompaction(s, change);
            for (const m of change.added) everStored.add(m.id);
          } else if (o.kind === 'unrewind') {
            // undo a conversation rewind: what it cut comes back unless a later rewind cut it again
            const rewinds = store.rewindsInEffect(s);
            const target = rewinds[o.pick % Math.max(1, rewinds.length)];
            if (!target) continue;
            unrewinds++;
            const cut = store.loadTranscript(s, { includeArchived: true }).filter((e) => e.archivedBy === target.id);
            store.revertCompaction(s, { id: uid('rv'), target: target.id, createdAt: 1 });
            const after = new Set(ids(store.loadVisible(s)));
            for (const m of visible) if (m.kind === 'normal') expect(after.has(m.id), `${m.id} stays visible`).toBe(true);
            for (const e of cut) expect(after.has(e.message.id) || wasCut(s, e.message.id), `${e.message.id} is back`).toBe(true);
          } else if (o.kind === 'revert') {
            const inEffect = store.compactionsInEffect(s).filter((c) => c.record.trigger !== 'micro' || o.partial === 0);
            const target = inEffect[o.pick % Math.max(1, inEffect.length)];
            if (!target) continue;
            if (repaired.length > 0) repairsReverted++;
            const before = store.loadTranscript(s, { includeArchived: true });
            const hiddenBefore = before.filter((e) => e.archivedBy === target.record.id);
            if (o.partial > 0) {
              const restore = partialRestore(
                hiddenBefore.map((e) => e.message),
                visible,
                o.partial,
              );
              if (!restore) continue;
              store.revertCompaction(s, { id: uid('rv'), target: target.record.id, restore, createdAt: 1 });
              const after = ids(store.loadVisible(s));
              expect(after).toEqual([...restore, ...ids(visible)]);
            } else {
              store.revertCompaction(s, { id: uid('rv'), target: target.record.id, createdAt: 1 });
              const after = new Set(ids(store.loadVisible(s)));
              // everything it hid is back, unless a later rewind cut it; what was visible and not a checkpoint stays
              for (const e of hiddenBefore) if (e.message.kind !== 'checkpoint') expect(after.has(e.message.id) || wasCut(s, e.message.id)).toBe(true);
              for (const m of visible) if (m.kind === 'normal') expect(after.has(m.id), `${m.id} stays visible`).toBe(true);
              // what a rewind took out stays out
              for (const e of before) if (e.archivedBy?.startsWith('rw')) expect(after.has(e.message.id), `${e.message.id} stays rewound`).toBe(false);
            }
          } else if (o.kind === 'repair') {
            // a repair inserts a note and its answer after a finished turn (not at the start), as a load repair would
            const ends = visible.flatMap((m, i) => (m.role === 'assistant' && (i === visible.length - 1 || isPromptLike(visible[i + 1]!)) ? [i] : []));
            if (ends.length === 0) continue;
            const at = ends[o.pick % ends.length]! + 1;
            const added = [user(`note ${uid('n')}`), assistant(`noted ${uid('a')}`)];
            store.rewriteVisible(s, { messages: [...visible.slice(0, at), ...added, ...visible.slice(at)], added, replaced: [] });
            for (const m of added) everStored.add(m.id);
            repaired.push(added[0]!.id);
            expect(ids(store.loadVisible(s))).toEqual(ids([...visible.slice(0, at), ...added, ...visible.slice(at)]));
          } else if (o.kind === 'rewind') {
            const prompts = visible.filter((m) => isPromptLike(m) && m !== visible[0]);
            const turn = prompts[o.pick % Math.max(1, prompts.length)];
            if (!turn) continue;
            store.rewindConversation(s, { id: uid('rw'), turnId: turn.id, createdAt: 1 });
          } else {
            const pinned = visible.find((m) => m.pinned);
            if (pinned) store.setPinned(s, pinned.id, false);
          }
          const now = store.loadVisible(s);
          expect(ids(now)).toEqual(store.deriveVisibleIds(s));
          expect(historyProblems(now)).toEqual([]);
        }
        store.close();
        store = openStore(file);
        const visible = store.loadVisible(s);
        expect(ids(visible)).toEqual(store.deriveVisibleIds(s));
        const all = store.loadTranscript(s, { includeArchived: true });
        // nothing lost: every message is stored, visible or archived by a record that exists
        expect(new Set(all.map((e) => e.message.id))).toEqual(everStored);
        const db = new Database(file, { readonly: true });
        const marks = new Set(db.prepare('SELECT id FROM compactions WHERE session_id = ?').pluck().all(s) as string[]);
        db.close();
        for (const e of all) if (e.archivedBy !== null) expect(marks.has(e.archivedBy), `${e.message.id} archived by a stored record`).toBe(true);
        expect(all.filter((e) => e.archivedBy === null).length).toBe(visible.length);
      }),
      { numRuns: 80, seed: 20261126 },
    );
    // the runs undid rewinds, not only compactions, and reverted after repairs
    expect(unrewinds).toBeGreaterThan(20);
    expect(repairsReverted).toBeGreaterThan(20);
    // ~2 s alone; a loaded machine running the whole suite stretches it well past the default limit
  }, 120_000);
});

function wasCut(sessionId: string, id: string): boolean {
  const entry = store.loadTranscript(sessionId, { includeArchived: true }).find((e) => e.message.id === id);
  return entry?.archivedBy?.startsWith('rw') === true;
}

describe('migration from schema v4', () => {
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
