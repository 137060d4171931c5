import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { CommandOutput } from '../../src/protocol/views.js';
import { FakeController, renderAppSized } from './helpers.js';

// /context (issue 26): its rows are shares of the whole window and add up to 100.0%, and at 40
// columns the numbers show whole (the bar gives way first).

afterEach(() => cleanup());

const output: CommandOutput = {
  kind: 'context',
  rows: [
    { label: 'System prompt', tokens: 3_333 },
    { label: 'Tools', tokens: 6_667 },
    { label: 'Messages', tokens: 76_667 },
  ],
  contextWindow: 200_000,
  effectiveWindow: 180_000,
  percentLeft: 52,
};

async function show(columns: number): Promise<string[]> {
  const c = new FakeController();
  const app = renderAppSized(c, columns);
  await app.waitForText('context left');
  c.emit({ type: 'command_output', command: '/context', output });
  await app.waitForText('Reserved for the reply');
  return app
    .frame()
    .split('\n')
    .filter((l) => /\d%$/.test(l.trim()));
}

describe('/context', () => {
  for (const columns of [100, 40]) {
    it(`at ${columns} columns: every row shows its tokens and share, and the shares add up to 100%`, async () => {
      const rows = await show(columns);
      expect(rows).toHaveLength(5);
      for (const r of rows) {
        expect(r).not.toContain('…');
        expect(r.length).toBeLessThanOrEqual(columns);
      }
      const tenths = rows.map((r) => Math.round(Number(/([\d.]+)%$/.exec(r.trim())![1]) * 10));
      expect(tenths.reduce((a, b) => a + b, 0)).toBe(1000);
      expect(rows.find((r) => r.includes('Reserved'))).toMatch(/20\.0k\s+10\.0%$/);
    });
  }
});
