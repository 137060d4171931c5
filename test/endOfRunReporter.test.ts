import { describe, expect, it } from 'vitest';
import { endOfRunLines, type FinishedTest } from './endOfRunReporter.js';

const test = (name: string, over: Partial<FinishedTest> = {}): FinishedTest => ({
  name,
  failed: false,
  durationMs: 100,
  timeoutMs: 30_000,
  ...over,
});

describe('the closing lines of a run (test/endOfRunReporter.ts)', () => {
  it('says nothing after a clean run', () => {
    expect(endOfRunLines([test('a'), test('b', { durationMs: 15_000 })])).toEqual([]);
  });

  it('names the failed tests', () => {
    const lines = endOfRunLines([test('e2e x.test.ts > fails', { failed: true }), test('e2e y.test.ts > passes')]);
    expect(lines).toEqual(['\n1 test(s) failed:', '  e2e x.test.ts > fails']);
  });

  it('names the passed tests that took over half of their limit, the nearest first, at most ten', () => {
    const slow = Array.from({ length: 12 }, (_, i) => test(`slow ${i}`, { durationMs: 15_100 + i * 1_000 }));
    const lines = endOfRunLines([test('quick'), test('exactly half', { durationMs: 15_000 }), test('failed', { failed: true, durationMs: 29_000 }), ...slow]);
    const at = lines.indexOf('\n12 passed test(s) took over half of their time limit (the 10 nearest):');
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1)).toHaveLength(10);
    expect(lines[at + 1]).toBe('  87% (26.1 s of 30 s) slow 11');
    expect(lines.at(-1)).toBe('  57% (17.1 s of 30 s) slow 2');
  });

  it('leaves out a test whose limit is not known', () => {
    expect(endOfRunLines([test('no limit', { timeoutMs: 0, durationMs: 60_000 })])).toEqual([]);
  });
});
