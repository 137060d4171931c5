import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenCounter } from '../../src/compaction/tokens.js';
import { deriveHistory } from '../../src/history/reduce.js';
import { shownMessage } from '../../src/history/view.js';
import { isToolResultMessage, type Message } from '../../src/llm/messages.js';
import { historyProblems } from '../../src/llm/validate.js';
import { SessionLog, type LogDeps } from '../../src/session/sessionLog.js';
import { decodeMessage, type MessageRow } from '../../src/store/codec.js';
import { openStore, type RevertRequest, type Store } from '../../src/store/index.js';
import { sqlite } from '../../src/store/sqlite.js';
import { assistant, autoChange, microChange, toolPair, uid, user } from '../store/helpers.js';

// The one reducer, three ways: random sequences of what a session does to its history (turns,
// micro and summary compactions, /uncompact whole and partial, /rewind and /rewind undo, /unpin,
// crashes repaired on resume, another writer's repair, plain resumes), each through the
// session's log (SessionLog, which moves its messages on by the reducer) and the store (which
// applies the same reducer to its cached columns). After every step the messages in memory, the
// store's cache and a fresh replay of the log agree, row by row for the cache; the history is
// valid for both providers; and nothing stored is ever lost.

// tmpfs where there is one: the store syncs every commit, which a disk would make the cost of the run
const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
let dir: string;
let file: string;
let store: Store;
let raw: Database.Database;
let rowsOf: Database.Statement<[string], Row>;

beforeAll(() => {
  dir = mkdtempSync(join(base, 'agent-history-'));
  file = join(dir, 'agent.db');
  store = openStore(file);
  raw = new (sqlite().Database)(file, { readonly: true });
  rowsOf = raw.prepare<[string], Row>(`${ROWS} FROM messages WHERE session_id = ? ORDER BY seq`);
});
afterAll(() => {
  raw.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

type Op =
  | { kind: 'turn'; tools: number; pin: boolean }
  | { kind: 'micro'; keep: number }
  | { kind: 'compact'; keep: number; trigger: 'auto' | 'manual' | 'reactive' }
  | { kind: 'revert'; pick: number; partial: number }
  | { kind: 'rewind'; pick: number }
  | { kind: 'unrewind'; pick: number }
  | { kind: 'unpin'; pick: number }
  | { kind: 'crash'; how: 'dangling call' | 'orphan result' | 'unanswered prompt' }
  | { kind: 'insert'; pick: number }
  | { kind: 'resume' };

const pick = fc.nat({ max: 1_000 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('turn' as const), tools: fc.integer({ min: 0, max: 2 }), pin: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('micro' as const), keep: fc.integer({ min: 0, max: 3 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('compact' as const),
      keep: fc.integer({ min: 1, max: 3 }),
      trigger: fc.constantFrom('auto', 'manual', 'reactive'),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('revert' as const), pick, partial: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 6 })) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('rewind' as const), pick }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('unrewind' as const), pick }) },
  fc.record({ kind: fc.constant('unpin' as const), pick }),
  fc.record({ kind: fc.constant('crash' as const), how: fc.constantFrom('dangling call', 'orphan result', 'unanswered prompt') }),
  fc.record({ kind: fc.constant('insert' as const), pick }),
  fc.record({ kind: fc.constant('resume' as const) }),
);

const counter = new TokenCounter((t) => Math.ceil(t.length / 4));
const ids = (ms: readonly Message[]): string[] => ms.map((m) => m.id);
const isPromptLike = (m: Message): boolean => m.role === 'user' && m.kind === 'normal' && !isToolResultMessage(m);

/** The newest `n` or more messages the compaction hid, from a prompt on, when the result is valid. */
function partialRestore(hidden: readonly Message[], view: readonly Message[], n: number): string[] | undefined {
  for (let start = Math.max(0, hidden.length - n); start >= 0; start--) {
    const part = hidden.slice(start);
    if (part.length > 0 && isPromptLike(part[0]!) && historyProblems([...part, ...view]).length === 0) return ids(part);
  }
  return undefined;
}

type Row = MessageRow & { pos: number | null; archived_by: string | null; shown_blocks: string | null; shown_pinned: number | null };

const ROWS = 'SELECT id, role, kind, pinned, blocks, tokens, usage, model, interrupted, created_at, prefix_hash, pos, archived_by, shown_blocks, shown_pinned';

/**
 * The three views of one history agree: the session's messages, the store's cache (as resume
 * reads it, and column by column) and a fresh replay of the log over the messages as stored.
 */
function agree(s: string, log: SessionLog): void {
  const mem = log.messages();
  const cache = store.loadVisibleEntries(s).map((e) => e.message);
  const d = deriveHistory(store.historyLog(s));
  const rows = rowsOf.all(s);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const replay = d.view.map((id) => shownMessage(decodeMessage(byId.get(id)!), d));
  same(mem, replay, 'the messages in memory are the replay');
  same(cache, replay, 'the cache as resume reads it is the replay');
  const pos = new Map(d.view.map((id, i) => [id, i]));
  same(
    rows.map((r) => ({ id: r.id, pos: r.pos, archivedBy: r.archived_by, blocks: r.shown_blocks, pinned: r.shown_pinned })),
    rows.map((r) => {
      const revised = d.revised.get(r.id);
      const pinned = d.pinned.get(r.id);
      return {
        id: r.id,
        pos: pos.get(r.id) ?? null,
        archivedBy: pos.has(r.id) ? null : (d.hiddenBy.get(r.id) ?? 'hidden by nothing'),
        blocks: revised ? JSON.stringify(revised.blocks) : null,
        pinned: pinned === undefined ? null : pinned ? 1 : 0,
      };
    }),
    'the cached columns are the replay',
  );
  expect(historyProblems(mem)).toEqual([]);
  expect(store.getSession(s)!.visibleCount).toBe(mem.length);
}

/** Deep equality: a plain comparison first (the matcher's own is most of the run's time), the matcher's diff when they differ. */
function same(actual: unknown, expected: unknown, what: string): void {
  if (!equal(actual, expected)) expect(actual, what).toStrictEqual(expected);
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

describe('the history: one reducer for the session, the store and a replay', () => {
  it('over 1,000 random sequences of turns, compactions, reverts, rewinds, unpins, repairs and resumes: memory = cached columns = replay, valid, nothing lost', () => {
    let run = 0;
    const seen: Record<string, number> = {};
    const count = (what: string): void => {
      seen[what] = (seen[what] ?? 0) + 1;
    };
    const notices: string[] = [];
    /** As /uncompact and /rewind undo plan it: a revert whose history the provider would refuse is not made (a load repair may not fit what comes back). */
    const refusedAsInvalid = (s: string, req: RevertRequest): boolean => {
      const refused = historyProblems(store.previewRevert(s, req).map((e) => e.message)).length > 0;
      if (refused) count('revert refused as invalid');
      return refused;
    };
    fc.assert(
      fc.property(fc.array(op, { minLength: 4, maxLength: 12 }), (ops) => {
        const s = `h${run++}`;
        const deps: LogDeps = {
          store,
          counter,
          dbPath: file,
          notice: (level, text) => notices.push(`${level}: ${text}`),
          describe: () => ({ id: s, cwd: '/', provider: 'p', model: 'm' }),
        };
        let log = SessionLog.create(s, deps);
        const everStored = new Set<string>();
        const direct = (m: Message): void => {
          store.appendMessage(s, m, 3);
          everStored.add(m.id);
        };
        /** Another process's writes (a crash, a repair) happen while this one does not hold the session. */
        const reopen = (): boolean => {
          const { log: next, notes } = SessionLog.resume(store.getSession(s)!, deps);
          if (notes.length > 0) count('repaired on resume');
          log = next;
          return notes.length > 0;
        };
        try {
          // a session starts with a turn: the other operations need something to work on
          for (const o of [{ kind: 'turn', tools: 1, pin: false } as const, ...ops]) {
            const visible = log.messages();
            if (o.kind === 'turn') {
              const msgs: Message[] = [user(`ask ${uid('q')}`, o.pin ? { pinned: true } : {})];
              for (let i = 0; i < o.tools; i++) msgs.push(...toolPair(i % 2 ? 'FileRead' : 'Bash', { command: `cmd ${i}` }, `result ${uid('o')}`));
              msgs.push(assistant(`answer ${uid('t')}`));
              for (const m of msgs) everStored.add(log.append(m).id);
            } else if (o.kind === 'micro' || o.kind === 'compact') {
              const c = o.kind === 'micro' ? microChange(visible, o.keep) : autoChange(visible, o.keep, o.trigger);
              if (!c) continue;
              expect(log.commitCompaction(c)).toBeUndefined();
              for (const m of c.added) everStored.add(m.id);
              count(o.kind);
            } else if (o.kind === 'revert') {
              const inEffect = store.compactionsInEffect(s).filter((c) => c.record.trigger !== 'micro' || o.partial === 0);
              const target = inEffect[o.pick % Math.max(1, inEffect.length)];
              if (!target) continue;
              const before = store.loadTranscript(s, { includeArchived: true });
              const hidden = before.filter((e) => e.archivedBy === target.record.id).map((e) => e.message);
              if (o.partial > 0) {
                const restore = partialRestore(hidden, visible, o.partial);
                if (!restore) continue;
                log.revert({ id: uid('rv'), target: target.record.id, restore, createdAt: 1 });
                expect(ids(log.messages())).toEqual([...restore, ...ids(visible)]);
                count('partial revert');
              } else {
                const req = { id: uid('rv'), target: target.record.id, createdAt: 1 };
                if (refusedAsInvalid(s, req)) continue;
                log.revert(req);
                const after = new Set(ids(log.messages()));
                const rewound = new Set(
                  ids(store.loadTranscript(s, { includeArchived: true }).flatMap((e) => (e.archivedBy?.startsWith('rw') ? [e.message] : []))),
                );
                // what it hid is back, unless a later rewind cut it; what was visible and not a checkpoint stays; what a rewind took out stays out
                for (const m of hidden) if (m.kind !== 'checkpoint') expect(after.has(m.id) || rewound.has(m.id), `${m.id} is back`).toBe(true);
                for (const m of visible) if (m.kind === 'normal') expect(after.has(m.id), `${m.id} stays visible`).toBe(true);
                for (const e of before) if (e.archivedBy?.startsWith('rw')) expect(after.has(e.message.id), `${e.message.id} stays rewound`).toBe(false);
                count('revert');
              }
            } else if (o.kind === 'rewind') {
              const prompts = visible.filter((m) => isPromptLike(m) && m !== visible[0]);
              const turn = prompts[o.pick % Math.max(1, prompts.length)];
              if (!turn) continue;
              const archived = log.rewind(turn.id, uid('rw'));
              expect(archived).toBe(visible.length - visible.indexOf(turn));
              count('rewind');
            } else if (o.kind === 'unrewind') {
              const rewinds = store.rewindsInEffect(s);
              const target = rewinds[o.pick % Math.max(1, rewinds.length)];
              if (!target) continue;
              const req = { id: uid('rv'), target: target.id, createdAt: 1 };
              if (refusedAsInvalid(s, req)) continue;
              log.revert(req);
              for (const m of visible) if (m.kind === 'normal') expect(ids(log.messages()), `${m.id} stays visible`).toContain(m.id);
              count('rewind undone');
            } else if (o.kind === 'unpin') {
              const pinned = visible.filter((m) => m.pinned);
              const m = pinned[o.pick % Math.max(1, pinned.length)];
              if (!m) continue;
              log.unpin(m.id);
              expect(log.messages().find((x) => x.id === m.id)?.pinned).toBe(false);
              count('unpin');
            } else if (o.kind === 'crash') {
              // what a process that died mid-turn left: the next one repairs it on resume
              log.close();
              direct(user(`ask ${uid('q')}`));
              if (o.how === 'dangling call') direct(assistant([{ type: 'tool_use', id: uid('toolu_'), name: 'Bash', input: { command: 'make' } }]));
              else if (o.how === 'unanswered prompt') direct(user(`and then ${uid('q')}`));
              else {
                direct(assistant(`ok ${uid('t')}`));
                const stray = toolPair('Bash', { command: 'stray' }, 'a result whose call is not there')[1];
                direct(stray);
              }
              reopen();
              count(o.how);
            } else if (o.kind === 'insert') {
              // another writer's repair, in the middle of the history: a note and its answer after a finished turn
              const ends = visible.flatMap((m, i) => (m.role === 'assistant' && (i === visible.length - 1 || isPromptLike(visible[i + 1]!)) ? [i] : []));
              if (ends.length === 0) continue;
              log.close();
              const at = ends[o.pick % ends.length]! + 1;
              const added = [user(`note ${uid('n')}`), assistant(`noted ${uid('a')}`)];
              store.rewriteVisible(s, { messages: [...visible.slice(0, at), ...added, ...visible.slice(at)], added, replaced: [] });
              for (const m of added) everStored.add(m.id);
              if (!reopen()) expect(ids(log.messages())).toEqual(ids([...visible.slice(0, at), ...added, ...visible.slice(at)]));
              count('insert');
            } else {
              log.close();
              // two prompts in a row (a crash's leftovers, then a turn) get their "no reply" marker now
              if (!reopen()) expect(log.messages()).toStrictEqual(visible);
            }
            agree(s, log);
          }
          // nothing lost: every message stored, visible or out of view by a record that exists
          const all = store.loadTranscript(s, { includeArchived: true });
          const stored = new Set(ids(all.map((e) => e.message)));
          for (const id of everStored) expect(stored.has(id), `${id} is stored`).toBe(true);
          const marks = new Set(raw.prepare<[string], string>('SELECT id FROM compactions WHERE session_id = ?').pluck().all(s));
          for (const e of all) if (e.archivedBy !== null) expect(marks.has(e.archivedBy), `${e.message.id} is out of view by a stored record`).toBe(true);
        } finally {
          log.close();
        }
      }),
      { numRuns: 1_000, seed: 20261127 },
    );
    expect(notices).toEqual([]);
    // every operation ran often enough to matter (a generator that stopped producing one would pass silently)
    const kinds = ['micro', 'compact', 'revert', 'partial revert', 'rewind', 'rewind undone', 'unpin', 'insert', 'repaired on resume'];
    for (const what of [...kinds, 'dangling call', 'orphan result', 'unanswered prompt']) expect(seen[what] ?? 0, what).toBeGreaterThan(30);
    // about 10 s of CPU alone (1,000 sequences of 5 to 13 operations, each step checked); the whole suite on a shared machine stretches it
  }, 300_000);
});
