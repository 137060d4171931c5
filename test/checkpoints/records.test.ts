import { describe, expect, it } from 'vitest';
import { lastBoundary, parseRecords, treeBefore, undoable, type CheckpointRecord } from '../../src/checkpoints/records.js';

// A session's checkpoint records read back (src/checkpoints/records.ts): pure functions over the
// lines of sessions/<id>.jsonl.

describe('checkpoint records', () => {
  it('parses every whole record, skipping blank lines, a line cut by a crash and what is no record', () => {
    const text = [
      '{"edge":"start","turn":"t1","at":1}',
      '',
      '   ',
      '{"edge":"before","turn":"t1","at":2,"tree":"A"}',
      '{"edge":"after","tu',
      '{"edge":"after","turn":"t1"}',
      '{"turn":"t1","at":3}',
      'null',
      '{"edge":"undo","at":4}',
    ].join('\n');
    expect(parseRecords(text)).toEqual([
      { edge: 'start', turn: 't1', at: 1 },
      { edge: 'before', turn: 't1', at: 2, tree: 'A' },
      { edge: 'undo', at: 4 },
    ]);
  });

  it('the last boundary is the last record holding a tree, the first record too', () => {
    expect(lastBoundary([])).toBeUndefined();
    expect(lastBoundary([{ edge: 'before', turn: 't1', at: 1, tree: 'A' }])).toBe('A');
    const records: CheckpointRecord[] = [
      { edge: 'before', turn: 't1', at: 1, tree: 'A' },
      { edge: 'after', turn: 't1', at: 2, tree: 'B' },
      { edge: 'start', turn: 't2', at: 3 },
      { edge: 'before', turn: 't2', at: 4, failed: 'git failed' },
    ];
    expect(lastBoundary(records)).toBe('B');
  });

  it("the tree before a turn: its own 'before', else the next record holding the tree before a change, else unchanged; why not, when it cannot be had", () => {
    const records: CheckpointRecord[] = [
      { edge: 'start', turn: 't1', at: 1 },
      { edge: 'start', turn: 't2', at: 2 },
      { edge: 'before', turn: 't2', at: 3, tree: 'A' },
      { edge: 'after', turn: 't2', at: 4, tree: 'B' },
      { edge: 'start', turn: 't3', at: 5 },
      { edge: 'rewind', turn: 't1', what: 'conversation', at: 6 },
      { edge: 'rewind', turn: 't1', what: 'code', at: 7, from: 'B', tree: 'A' },
      { edge: 'start', turn: 't4', at: 8 },
      { edge: 'before', turn: 't4', at: 9, failed: 'over checkpoints.maxFiles (2)' },
      { edge: 'start', turn: 't5', at: 10 },
      { edge: 'before', turn: 't5', at: 11 },
      { edge: 'start', turn: 't6', at: 12 },
      { edge: 'undo', at: 13, from: 'C', tree: 'B' },
      { edge: 'start', turn: 't7', at: 14 },
    ];
    expect(treeBefore(records, 't1')).toEqual({ tree: 'A' });
    expect(treeBefore(records, 't2')).toEqual({ tree: 'A' });
    // a conversation rewind holds no tree: the code rewind after it does
    expect(treeBefore(records, 't3')).toEqual({ tree: 'B' });
    expect(treeBefore(records, 't4')).toEqual({ missing: 'it could not be snapshotted: over checkpoints.maxFiles (2)' });
    expect(treeBefore(records, 't5')).toEqual({ missing: 'it could not be snapshotted: unknown reason' });
    expect(treeBefore(records, 't6')).toEqual({ tree: 'C' });
    expect(treeBefore(records, 't7')).toEqual({ unchanged: true });
    expect(treeBefore(records, 't9')).toEqual({ missing: 'no checkpoint was taken before it (checkpoints were off, or the turn predates them)' });
  });

  it('undo takes back the last rewind no undo took back yet', () => {
    const r1: CheckpointRecord = { edge: 'rewind', turn: 't1', what: 'code', at: 1, from: 'A', tree: 'B' };
    const r2: CheckpointRecord = { edge: 'rewind', turn: 't2', what: 'both', at: 2, from: 'B', tree: 'C' };
    const undo: CheckpointRecord = { edge: 'undo', at: 3 };
    expect(undoable([])).toBeUndefined();
    expect(undoable([r1, r2])).toBe(r2);
    expect(undoable([r1, r2, undo])).toBe(r1);
    expect(undoable([r1, r2, undo, undo])).toBeUndefined();
    expect(undoable([r1, undo, r2])).toBe(r2);
  });
});
