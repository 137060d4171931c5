import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { FakeController, KEYS, renderApp, waitFor } from './helpers.js';

// Ctrl+C's hint says what the next press does (issue 26): while a tool runs, the press after
// the one that cleared the input interrupts, so the hint must not promise an exit.

afterEach(() => cleanup());

describe('Ctrl+C while a tool runs', () => {
  it('clearing the input says the next press interrupts, and the next press interrupts without exiting', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'busy', busy: true }, { type: 'turn_start', turnId: 't' }, { type: 'tool_start', id: 'b1', name: 'Bash', input: {}, summary: 'sleep 30' });
    await app.waitForText('Bash sleep 30');
    await app.press(...'next question'.split(''));
    await app.waitForText('next question');
    await app.press(KEYS.ctrl('c'));
    await app.waitForText('Press Ctrl-C again to interrupt');
    expect(app.frame()).not.toContain('again to exit');
    expect(c.interrupts).toBe(0);
    await app.press(KEYS.ctrl('c'));
    await waitFor(() => c.interrupts === 1, app.frame);
    expect(c.exits).toBe(0);
  });
});
