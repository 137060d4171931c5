import { describe, expect, it } from 'vitest';
import { ReadRows } from '../../src/tools/readRows.js';

// FileRead's rows kept beyond the model's copy, for the spill archive (issue 30 pin): they stop
// at the archive's cap, and the whole says where it stopped. Kills the mutants that drop the
// cap check (every row kept) or keep the row that crosses it.

describe('ReadRows', () => {
  it('keeps the requested rows past the model copy only up to the archive cap', () => {
    const rows = new ReadRows(1, 100, 1_000, 300);
    for (let n = 1; n <= 50; n++) rows.add(n, `line ${n} ${'x'.repeat(10)}`, false);
    expect(rows.full).toBe(true);
    const out = rows.result('big.txt', 50);
    expect(out.content.length).toBeLessThan(300);
    const whole = out.full!.text;
    const kept = whole.split('\n').filter((l) => /^\s+\d+\t/.test(l));
    // every kept row fits under the cap, and the next one would not have
    expect(kept.join('\n').length).toBeLessThanOrEqual(300);
    expect(kept.join('\n').length + 1 + kept[0]!.length).toBeGreaterThan(300);
    expect(kept.at(-1)).toMatch(new RegExp(`^\\s+${kept.length}\\t`));
    expect(whole).toContain(`showing 1-${kept.length} (output capped at 300 characters). Read more with offset=${kept.length + 1}.`);
  });

  it('keeps every row when they fit under the cap', () => {
    const rows = new ReadRows(1, 100, 1_000, 10_000);
    for (let n = 1; n <= 50; n++) rows.add(n, `line ${n}`, false);
    expect(rows.full).toBe(false);
    expect(
      rows
        .result('f.txt', 50)
        .full!.text.split('\n')
        .filter((l) => /^\s+\d+\t/.test(l)),
    ).toHaveLength(50);
  });
});
