import { describe, expect, it } from 'vitest';
import { endNotice, exitLine, firstLinesOf, lastLinesOf } from '../../src/background/notice.js';
import type { ShellRecord } from '../../src/background/record.js';

const record = (over: Partial<ShellRecord> = {}): ShellRecord => ({
  id: 'b1',
  command: 'npm run dev\n  --port 3000',
  pid: 1,
  startedAt: 1_000,
  state: 'exited',
  code: 0,
  file: '/x',
  chars: 0,
  bytes: 0,
  kept: 0,
  lastRead: 0,
  ...over,
});

describe("a background command's notices", () => {
  it("the front end's line: which command (its first line), how it ended, and how long it ran only when its end is known", () => {
    expect(exitLine(record({ endedAt: 3_500 }))).toBe('Background command b1 ended: exit code 0 after 2.5s — npm run dev');
    expect(exitLine(record({ state: 'lost' }))).toBe('Background command b1 ended: ended, exit status unknown — npm run dev');
    // a clock that went back says 0, not a negative time
    expect(exitLine(record({ endedAt: 500, signal: 'SIGTERM' }))).toBe('Background command b1 ended: killed by SIGTERM after 0ms — npm run dev');
  });

  it("the model's notice: the whole command, its last lines or that it printed nothing, and how to Recall the rest", () => {
    expect(endNotice(record({ endedAt: 2_000 }), 'done')).toBe(
      [
        '[Background command b1 ended: exit code 0 after 1s]',
        '$ npm run dev\n  --port 3000',
        'Last lines of its output:\ndone',
        'Its whole output: Recall id="b1" (offset/limit, pattern, or since_last_read=true).',
      ].join('\n'),
    );
    expect(endNotice(record({ state: 'stopped' }), '')).toContain(
      '[Background command b1 ended: stopped]\n$ npm run dev\n  --port 3000\nIt printed nothing.\n',
    );
  });

  it('first and last lines: ten of them, long lines clipped, a block of 2,000 characters at most, no trailing blank lines', () => {
    const lines = Array.from({ length: 15 }, (_, i) => `line ${i}`);
    expect(firstLinesOf(`${lines.join('\n')}\n\n`)).toBe(lines.slice(0, 10).join('\n'));
    expect(lastLinesOf(`${lines.join('\n')}\n\n`)).toBe(lines.slice(5).join('\n'));
    expect(lastLinesOf(lines.join('\n'), 3)).toBe('line 12\nline 13\nline 14');
    expect(firstLinesOf('')).toBe('');
    expect(lastLinesOf('  \n')).toBe('');
    const long = 'x'.repeat(400);
    expect(firstLinesOf(long)).toBe(`${'x'.repeat(300)}…`);
    // eight clipped lines of 301 characters: six fit in 2,000 (with their newlines), the seventh would not
    const wide = Array.from({ length: 8 }, () => long).join('\n');
    expect(firstLinesOf(wide).split('\n')).toHaveLength(6);
    // seven asked for: 300 characters a line, 2,100 in all
    expect(lastLinesOf(wide, 7).split('\n')).toHaveLength(6);
  });
});
