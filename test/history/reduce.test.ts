import { describe, expect, it } from 'vitest';
import { deriveHistory, effectiveLog, LogError, stepFrom } from '../../src/history/reduce.js';
import { recordEntry, type LogEntry, type StepRecord } from '../../src/history/records.js';
import { applyRecord, shownMessage } from '../../src/history/view.js';
import type { Message } from '../../src/llm/messages.js';

// The one reducer of the history on hand-made logs: what each record does, how full reverts are
// settled, the sequence of entries a second derivation would fold over, one record applied to a
// view, and the messages it gives. Random sequences: properties.test.ts.

const msg = (id: string, addedBy: string | null = null): LogEntry => ({ type: 'message', id, addedBy });

describe('deriveHistory (the reducer folded over the effective log)', () => {
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

describe('effectiveLog (what a second derivation folds over)', () => {
  const base: LogEntry[] = [
    msg('u1'),
    msg('a1'),
    msg('cp1', 'c1'),
    { type: 'record', id: 'c1', kind: 'compaction', body: { view: ['cp1'] } },
    msg('u2'),
    { type: 'record', id: 'r1', kind: 'revert', body: { target: 'c1', restore: ['u1', 'a1'] } },
    msg('cp2', 'c2'),
    { type: 'record', id: 'c2', kind: 'compaction', body: { view: ['cp2'] } },
    { type: 'record', id: 'pn', kind: 'pin', body: { pins: [{ id: 'u2', pinned: true }] } },
  ];

  it('is the log itself while no full revert undid anything', () => {
    expect(effectiveLog(base)).toEqual(base);
  });

  it('leaves out what a full revert undid, and a partial revert of it; what the undone records added stays, added by the revert', () => {
    const log: LogEntry[] = [...base, { type: 'record', id: 'r2', kind: 'revert', body: { target: 'c1' } }];
    // a mutation that kept undone records (or re-attributed nothing) fails here
    expect(effectiveLog(log)).toEqual([
      msg('u1'),
      msg('a1'),
      msg('cp1', 'r2'),
      msg('u2'),
      msg('cp2', 'r2'),
      { type: 'record', id: 'pn', kind: 'pin', body: { pins: [{ id: 'u2', pinned: true }] } },
      { type: 'record', id: 'r2', kind: 'revert', body: { target: 'c1' } },
    ]);
    const d = deriveHistory(log);
    expect(d.view).toEqual(['u1', 'a1', 'u2']);
    expect(Object.fromEntries(d.hiddenBy)).toEqual({ cp1: 'r2', cp2: 'r2' });
  });
});

describe('stepFrom and applyRecord (one record applied to a view)', () => {
  const user = (id: string, extra: Partial<Message> = {}): Message => ({
    id,
    role: 'user',
    kind: 'normal',
    createdAt: 1,
    blocks: [{ type: 'text', text: id }],
    ...extra,
  });
  const reply = (id: string): Message => ({ id, role: 'assistant', kind: 'normal', createdAt: 1, blocks: [{ type: 'text', text: id }] });
  const visible = [user('u1', { pinned: true }), reply('a1'), user('u2'), reply('a2')];
  const records: Array<[StepRecord, Message[]]> = [
    [{ kind: 'compaction', id: 'c1', body: { view: ['cp', 'u2', 'a2'] } }, [user('cp', { kind: 'checkpoint' })]],
    [{ kind: 'compaction', id: 'c2', body: { revisions: [{ id: 'a1', blocks: [{ type: 'text', text: 'cleared' }] }] } }, []],
    [{ kind: 'rewind', id: 'rw', body: { cut: 'u2' } }, []],
    [{ kind: 'repair', id: 'rp', body: { inserts: [{ id: 'n', after: 'a1' }] } }, [user('n')]],
    [{ kind: 'pin', id: 'pn', body: { pins: [{ id: 'u1', pinned: false }] } }, []],
  ];

  it('gives what a replay of the whole log gives, for every kind of record it takes', () => {
    const log = visible.map((m) => msg(m.id));
    for (const [record, added] of records) {
      const step = stepFrom(
        visible.map((m) => m.id),
        record,
        added.map((m) => m.id),
      );
      const replay = deriveHistory([...log, ...added.map((m) => msg(m.id, record.id)), recordEntry(record)]);
      expect(step.view, record.kind).toEqual(replay.view);
      expect(step.hiddenBy, record.kind).toEqual(replay.hiddenBy);
      expect(step.revised, record.kind).toEqual(replay.revised);
      expect(step.pinned, record.kind).toEqual(replay.pinned);
      // the messages: those untouched are the very objects given (counts memoized per object hold)
      const after = applyRecord(visible, record, added);
      expect(after.map((m) => m.id)).toEqual(replay.view);
      for (const m of after) if (!replay.revised.has(m.id) && !replay.pinned.has(m.id)) expect([...visible, ...added]).toContain(m);
    }
  });

  it('shows revised blocks and the pinned flag a record set, as the store reads them back', () => {
    const [micro] = records[1]!;
    expect(applyRecord(visible, micro)[1]!.blocks).toEqual([{ type: 'text', text: 'cleared' }]);
    const [unpin] = records[4]!;
    expect(applyRecord(visible, unpin)[0]).toEqual({ ...visible[0], pinned: false });
    expect(shownMessage(visible[2]!, stepFrom(['u2'], unpin))).toBe(visible[2]);
  });

  it('refuses a view that names a message neither visible nor added', () => {
    expect(() => applyRecord(visible, { kind: 'compaction', id: 'c9', body: { view: ['ghost'] } })).toThrow(LogError);
  });
});
