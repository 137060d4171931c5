import { describe, expect, it } from 'vitest';
import { initialState, normalizeState } from '../../src/compaction/guards.js';

// The compaction state is read back from a session's meta, which an older build, a crash or a
// hand edit may have left in any shape: what is valid is kept, the rest is dropped, never thrown on.

const reported = { count: 4, firstId: 'm1', lastId: 'm4', tokens: 7_954, parts: 'k' };
const anchor = { count: 4, firstId: 'm1', lastId: 'm4', rawMessages: 3_600, systemRaw: 786, toolsRaw: 3_696, tokens: 7_954, source: 'reported' };

describe('the saved compaction state', () => {
  it('keeps a valid anchor and the provider’s count of the last request', () => {
    const s = normalizeState({ ...initialState(), anchor, reported });
    expect(s.reported).toEqual(reported);
    expect(s.anchor).toEqual(anchor);
  });

  it('drops a count or an anchor that does not describe a history’s start, or whose figures are not figures', () => {
    for (const bad of [
      { ...reported, count: 0 },
      { ...reported, count: 2.5 },
      { ...reported, tokens: -1 },
      { ...reported, tokens: Number.NaN },
      { ...reported, parts: undefined },
      { ...reported, firstId: 7 },
      'reported',
      null,
    ]) {
      expect(normalizeState({ reported: bad }).reported, JSON.stringify(bad)).toBeUndefined();
    }
    expect(normalizeState({ anchor: { ...anchor, count: 0 } }).anchor).toBeUndefined();
    expect(normalizeState({ anchor: { ...anchor, source: 'guess' } }).anchor).toBeUndefined();
    expect(normalizeState('not an object')).toEqual(initialState());
  });
});
