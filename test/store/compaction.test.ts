import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import fc from 'fast-check';
import type { CompactionCommit } from '../../src/history/compaction.js';
import type { Message } from '../../src/llm/messages.js';
import { historyProblems } from '../../src/llm/validate.js';
import { openStore, StoreError, type Store } from '../../src/store/index.js';
import { archivedBy, assistant, autoChange, microChange, record, tempDir, toolPair, uid, user, viewAfter } from './helpers.js';
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

function seed(sessionId: string, turns: number): Message[] {
  store.createSession({ id: sessionId, cwd: '/repo', provider: 'anthropic', model: 'claude-test' });
  const all: Message[] = [];
  for (let t = 0; t < turns; t++) {
    const [call, result] = toolPair('Bash', { command: `npm run step${t}` }, `output of step ${t}: ${'line\n'.repeat(5)}`);
    all.push(user(`turn ${t}: please do step ${t}`), call, result, assistant(`step ${t} done`));
  }
  for (const m of all) store.appendMessage(sessionId, m, 7);
  return all;
}

function expectInvalid(fn: () => void, message: RegExp): void {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StoreError);
    expect((e as StoreError).kind).toBe('invalid');
    expect((e as StoreError).message).toMatch(message);
    return;
  }
  throw new Error('expected StoreError invalid');
}

interface RawCounts {
  messages: number;
  archived: number;
  compactions: number;
  outputs: number;
  index: number;
  fts: number;
}

function rawCounts(path: string): RawCounts {
  const db = new Database(path, { readonly: true });
  const n = (sql: string) => db.prepare(sql).pluck().get() as number;
  const counts = {
    messages: n('SELECT count(*) FROM messages'),
    archived: n('SELECT count(*) FROM messages WHERE archived_by IS NOT NULL'),
    compactions: n('SELECT count(*) FROM compactions'),
    outputs: n('SELECT count(*) FROM tool_output_archive'),
    index: n('SELECT count(*) FROM archive_index'),
    fts: n('SELECT count(*) FROM archive_fts'),
  };
  db.close();
  return counts;
}

/**
 * Invariant 2 on the database itself: every message ever appended or added is either visible
 * or archived by an applied compaction of its session; every cleared mark in any stored
 * message points at an archived original holding the full content; every archived message
 * and cleared output is in the search index.
 */
function checkNothingLost(path: string, sessionId: string, everStored: ReadonlyMap<string, Message>, originals: ReadonlyMap<string, string>): void {
  const db = new Database(path, { readonly: true });
  const rows = db.prepare('SELECT id, COALESCE(shown_blocks, blocks) AS blocks, archived_by, pos FROM messages WHERE session_id = ?').all(sessionId) as Array<{
    id: string;
    blocks: string;
    archived_by: string | null;
    pos: number | null;
  }>;
  const applied = new Set(db.prepare("SELECT id FROM compactions WHERE session_id = ? AND status = 'applied'").pluck().all(sessionId) as string[]);
  expect(new Set(rows.map((r) => r.id))).toEqual(new Set(everStored.keys()));
  for (const r of rows) {
    if (r.archived_by === null) expect(r.pos, `visible ${r.id} has a position`).not.toBeNull();
    else {
      expect(applied.has(r.archived_by), `${r.id} archived by a known compaction`).toBe(true);
      expect(db.prepare("SELECT count(*) FROM archive_index WHERE session_id = ? AND kind = 'message' AND ref_id = ?").pluck().get(sessionId, r.id)).toBe(1);
    }
    for (const b of JSON.parse(r.blocks) as Message['blocks']) {
      if (b.type !== 'tool_result' || !b.cleared) continue;
      const content = db.prepare('SELECT content FROM tool_output_archive WHERE session_id = ? AND id = ?').pluck().get(sessionId, b.cleared.archiveId);
      expect(content, `original of ${b.cleared.archiveId}`).toBe(originals.get(b.cleared.archiveId));
      expect(db.prepare("SELECT count(*) FROM archive_index WHERE kind = 'tool_output' AND ref_id = ?").pluck().get(b.cleared.archiveId)).toBe(1);
    }
  }
  db.close();
}

describe('applyCompaction', () => {
  it('archives the head, inserts the checkpoint, keeps the tail, in one step that survives a reopen', () => {
    const all = seed('s', 4);
    const before = store.loadVisible('s');
    const change = autoChange(before, 1)!;
    store.applyCompaction('s', change, (m) => m.blocks.length * 11);
    store.close();
    store = openStore(file);

    const visible = store.loadVisible('s');
    const expected = viewAfter(before, change);
    expect(visible).toStrictEqual(expected);
    expect(historyProblems(visible)).toEqual([]);
    expect(store.loadVisibleEntries('s')[0]!.tokens).toBe(11);
    const info = store.getSession('s')!;
    expect(info).toMatchObject({ messageCount: all.length + 1, visibleCount: expected.length, compactionCount: 1 });
    expect(store.listCompactions('s')).toStrictEqual([change.record]);
    const archived = store.loadTranscript('s', { includeArchived: true }).filter((t) => t.archivedBy !== null);
    expect(archived.map((t) => t.message.id)).toEqual(archivedBy(before, change));
    expect(archived.length).toBeGreaterThan(0);
    expect(archived.every((t) => t.archivedBy === change.record.id)).toBe(true);
  });

  it('micro: rewrites the cleared messages and keeps every original in the archive', () => {
    seed('s', 3);
    const before = store.loadVisible('s');
    const change = microChange(before, 1)!;
    expect(change.cleared).toHaveLength(2);
    store.applyCompaction('s', change);
    const after = store.loadVisible('s');
    expect(after).toStrictEqual(viewAfter(before, change));
    expect(after.filter((m, i) => m !== before[i] && m.blocks.some((b) => b.type === 'tool_result' && b.cleared))).toHaveLength(2);
    expect(after.map((m) => m.id)).toEqual(before.map((m) => m.id));
    for (const c of change.cleared) {
      const item = store.getArchived(c.archiveId, { sessionId: 's' })!;
      expect(item.kind).toBe('tool_output');
      expect(item.text).toBe(c.content);
      expect(item.label).toBe(`Bash output \`${c.summary}\` (cleared)`);
    }
    expect(store.getSession('s')!.compactionCount).toBe(1);
  });

  it('keeps pinned messages visible and ahead of the tail', () => {
    store.createSession({ id: 's', cwd: '/', provider: 'p', model: 'm' });
    const msgs = [user('keep this constraint', { pinned: true }), assistant('ok'), user('two'), assistant('b'), user('three'), assistant('c')];
    for (const m of msgs) store.appendMessage('s', m, 1);
    const change = autoChange(store.loadVisible('s'), 1)!;
    store.applyCompaction('s', change);
    const ids = store.loadVisible('s').map((m) => m.id);
    expect(ids).toEqual([change.added[0]!.id, msgs[0]!.id, msgs[4]!.id, msgs[5]!.id]);
  });

  it('refuses an inconsistent change and leaves the database exactly as it was', () => {
    seed('s', 3);
    const visible = store.loadVisible('s');
    const good = autoChange(visible, 1)!;
    const before = rawCounts(file);
    const view = good.body.view!;
    const cleared = (id: string) => [
      { type: 'tool_result' as const, toolUseId: 'x', content: 'cleared', isError: false, cleared: { archiveId: id, originalTokens: 5 } },
    ];
    const cases: Array<[string, CompactionCommit, RegExp]> = [
      ['an added message not shown', { ...good, body: { view: view.slice(1) } }, /not in the new visible history/],
      ['a stranger in the new history', { ...good, body: { view: [...view, 'stranger'] } }, /neither visible now nor added/],
      ['a repeated id', { ...good, body: { view: [...view, view[1]!] } }, /lists an id twice/],
      ['an added message stored already', { ...good, added: [...good.added, visible[0]!], body: { view: [...view, visible[0]!.id] } }, /already stored/],
      ['a revision of a message out of view', { ...good, body: { view, revisions: [{ id: 'ghost', blocks: [] }] } }, /ghost is not in the visible history/],
      ['a failed record', { ...good, record: { ...good.record, status: 'failed' } }, /recordCompactionFailure/],
      [
        'a cleared mark without its original',
        { ...good, body: { view, revisions: [{ id: visible[visible.length - 2]!.id, blocks: cleared('tx_missing') }] } },
        /tx_missing/,
      ],
    ];
    for (const [name, change, message] of cases) {
      expectInvalid(() => store.applyCompaction('s', change), message);
      expect(rawCounts(file), name).toEqual(before);
      expect(store.loadVisible('s'), name).toStrictEqual(visible);
    }
    // a failure part-way through the writes (the index insert of a duplicate record id) rolls everything back
    store.applyCompaction('s', good);
    const afterGood = rawCounts(file);
    const again = autoChange(store.loadVisible('s'), 1);
    expect(again).toBeDefined();
    expectInvalid(() => store.applyCompaction('s', { ...again!, record: { ...again!.record, id: good.record.id } }), /UNIQUE/);
    expect(rawCounts(file)).toEqual(afterGood);
  });

  it('records failed and ineffective attempts without touching the history', () => {
    seed('s', 2);
    const visible = store.loadVisible('s');
    const failed = record('auto', { status: 'failed', reason: 'summarizer returned 529 overloaded', tokensAfter: 1000 });
    const ineffective = record('manual', { status: 'ineffective', reason: 'would not shrink the context', focus: 'the parser', method: 'none' });
    store.recordCompactionFailure('s', failed);
    store.recordCompactionFailure('s', ineffective);
    expect(store.listCompactions('s')).toStrictEqual([failed, ineffective]);
    expect(store.loadVisible('s')).toStrictEqual(visible);
    expect(store.getSession('s')!.compactionCount).toBe(0);
    expectInvalid(() => store.recordCompactionFailure('s', record('auto')), /applyCompaction/);
  });

  it('keeps nothing-lost and a valid history over random sequences of turns and compactions (checked on the reopened database)', () => {
    type Op = { kind: 'turn'; tools: number; pin: boolean } | { kind: 'micro'; keep: number } | { kind: 'auto'; keep: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('turn' as const), tools: fc.integer({ min: 0, max: 3 }), pin: fc.boolean() }),
      fc.record({ kind: fc.constant('micro' as const), keep: fc.integer({ min: 0, max: 3 }) }),
      fc.record({ kind: fc.constant('auto' as const), keep: fc.integer({ min: 1, max: 3 }) }),
    );
    let run = 0;
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 25 }), (ops) => {
        const sessionId = `prop${run++}`;
        store.createSession({ id: sessionId, cwd: '/', provider: 'p', model: 'm' });
        const everStored = new Map<string, Message>();
        const originals = new Map<string, string>();
        let expected: Message[] = [];
        for (const o of ops) {
          if (o.kind === 'turn') {
            const msgs: Message[] = [user(`ask ${uid('q')}`, o.pin ? { pinned: true } : {})];
            if (o.tools > 0) {
              const useIds = Array.from({ length: o.tools }, () => uid('toolu_'));
              msgs.push(
                assistant(
                  useIds.map((id, i) => ({
                    type: 'tool_use' as const,
                    id,
                    name: i % 2 ? 'FileRead' : 'Bash',
                    input: { command: `cmd ${id}`, path: `f${id}` },
                  })),
                ),
              );
              msgs.push({
                id: uid('r'),
                role: 'user',
                kind: 'normal',
                createdAt: 1,
                blocks: useIds.map((id) => ({ type: 'tool_result' as const, toolUseId: id, content: `result of ${id}`, isError: false })),
              });
            }
            msgs.push(assistant(`answer ${uid('t')}`));
            for (const m of msgs) {
              store.appendMessage(sessionId, m, 3);
              everStored.set(m.id, m);
            }
            expected = [...expected, ...msgs];
          } else {
            const change = o.kind === 'micro' ? microChange(expected, o.keep) : autoChange(expected, o.keep);
            if (!change) continue;
            store.applyCompaction(sessionId, change);
            for (const m of change.added) everStored.set(m.id, m);
            for (const c of change.cleared) originals.set(c.archiveId, c.content);
            expected = viewAfter(expected, change);
          }
        }
        store.close();
        store = openStore(file);
        const visible = store.loadVisible(sessionId);
        expect(visible).toStrictEqual(expected);
        expect(historyProblems(visible)).toEqual([]);
        expect(store.getSession(sessionId)!.visibleCount).toBe(expected.length);
        expect(store.getSession(sessionId)!.messageCount).toBe(everStored.size);
        checkNothingLost(file, sessionId, everStored, originals);
      }),
      { numRuns: 40, seed: 20240611 },
    );
  });
});
