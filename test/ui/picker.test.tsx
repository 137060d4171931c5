import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { SessionListItem } from '../../src/protocol/views.js';
import { newPicker, pickerKey, visibleSessions } from '../../src/ui/picker.js';
import { FakeController, KEYS, renderApp, waitFor } from './helpers.js';

afterEach(() => cleanup());

const HOUR = 3_600_000;
const now = Date.now();
const sessions: SessionListItem[] = [
  { id: 's_old00000000old1', title: 'Old refactor', cwd: '/srv/legacy', updatedAt: now - 72 * HOUR, messageCount: 300, contextTokens: 120_000 },
  { id: 's_new00000000new1', title: 'Fix login bug', cwd: '/work/web', updatedAt: now - 2 * HOUR, messageCount: 42, contextTokens: 31_200 },
  { id: 's_mid00000000mid1', title: null, cwd: '/work/api', updatedAt: now - 20 * HOUR, messageCount: 8, contextTokens: null },
];

async function openPicker() {
  const c = new FakeController();
  const app = renderApp(c);
  c.emit({ type: 'command_output', command: '/resume', output: { kind: 'picker', sessions } });
  await app.waitForText('Resume a session');
  return { c, app };
}

describe('the session picker', () => {
  it('lists sessions newest first with directory, age, message count and context size', async () => {
    const { app } = await openPicker();
    const f = app.frame();
    const order = ['Fix login bug', '(untitled 0000mid1)', 'Old refactor'].map((s) => f.indexOf(s));
    expect(order[0]).toBeGreaterThan(-1);
    expect(order[0]! < order[1]! && order[1]! < order[2]!).toBe(true);
    expect(f).toContain('/work/web · 2h ago · 42 msgs · 31.2k tok');
    expect(f).toContain('20h ago · 8 msgs · —');
    expect(f).toContain('3d ago · 300 msgs · 120.0k tok');
    expect(f).toContain('❯ Fix login bug');
  });

  it('arrows and Enter resume the chosen session', async () => {
    const { c, app } = await openPicker();
    await app.press(KEYS.down, KEYS.down, KEYS.up, KEYS.down, KEYS.enter);
    await waitFor(() => c.resumed.length === 1, app.frame);
    expect(c.resumed).toEqual(['s_old00000000old1']);
    await app.waitForText('Ask for a change');
  });

  it('Esc closes it without resuming', async () => {
    const { c, app } = await openPicker();
    await app.press(KEYS.esc);
    await app.waitForText('Ask for a change');
    expect(app.frame()).not.toContain('Resume a session');
    expect(c.resumed).toEqual([]);
  });

  it("a terminal's late cursor reports (the start's emoji question answered after the first frame) are no filter: every session stays listed", async () => {
    const { c, app } = await openPicker();
    // Ink leaves each report unparsed: "[12;5R" would reach the keys as typed text
    await app.press('\u001b[12;5R', '\u001b[12;7R');
    await app.press(KEYS.enter);
    await waitFor(() => c.resumed.length === 1, app.frame);
    expect(c.resumed).toEqual(['s_new00000000new1']);
  });

  it('typing filters', async () => {
    const { c, app } = await openPicker();
    await app.press(...'api'.split(''));
    await app.waitForText('filter: api');
    expect(app.frame()).not.toContain('Fix login bug');
    await app.press(KEYS.enter);
    await waitFor(() => c.resumed.length === 1, app.frame);
    expect(c.resumed).toEqual(['s_mid00000000mid1']);
  });

  it('opening at start (agent --resume) asks the controller for the picker', async () => {
    const c = new FakeController();
    const app = renderApp(c, { openPicker: true });
    await waitFor(() => c.submitted.length === 1, app.frame);
    expect(c.submitted).toEqual(['/resume']);
  });

  it('keeps the selection inside the list', () => {
    const key = (over: Record<string, boolean>) => ({
      upArrow: false,
      downArrow: false,
      return: false,
      escape: false,
      pageUp: false,
      pageDown: false,
      home: false,
      end: false,
      backspace: false,
      delete: false,
      ctrl: false,
      meta: false,
      shift: false,
      tab: false,
      leftArrow: false,
      rightArrow: false,
      super: false,
      hyper: false,
      capsLock: false,
      numLock: false,
      ...over,
    });
    let s = newPicker(sessions);
    s = pickerKey(s, '', key({ upArrow: true })).state;
    expect(s.selected).toBe(0);
    s = pickerKey(s, '', key({ pageDown: true })).state;
    expect(s.selected).toBe(2);
    expect(pickerKey(s, '', key({ return: true })).action).toEqual({ kind: 'resume', id: 's_old00000000old1' });
    s = pickerKey(s, 'zzz', key({})).state;
    expect(visibleSessions(s)).toEqual([]);
    expect(pickerKey(s, '', key({ return: true })).action).toBeUndefined();
  });
});
