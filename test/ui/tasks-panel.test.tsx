import './force-color.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { TaskRowView } from '../../src/protocol/views.js';
import { FakeController, KEYS, renderAppSized, waitFor } from './helpers.js';

// The /tasks panel in place of the prompt: the background commands with state, time and output
// size, a selection moved by the arrows, Enter or Ctrl+O asking for the selected one's output,
// `s` stopping it, `a` stopping all, Esc closing; rows follow the commands as they end.
// Mutations that fail it: a panel that ignores ↓ (the view names b1, not b2), a sub-agent's row
// named by its id alone (the stop line lacks the session), Esc not closing (the hint stays).

afterEach(() => cleanup());

const row = (id: string, over: Partial<TaskRowView> = {}): TaskRowView => ({
  id,
  sessionId: 's-main',
  own: true,
  command: `npm run dev-${id}`,
  state: 'running',
  running: true,
  ran: '12s',
  output: '3.1 KB',
  pid: 4242,
  ...over,
});

async function openPanel(rows: TaskRowView[]) {
  const c = new FakeController();
  let current = rows;
  c.views.tasks = () => current;
  const app = renderAppSized(c, 120, 30);
  c.emit({ type: 'command_output', command: '/tasks', output: { kind: 'tasks', rows, text: 'listing' } });
  await app.waitForText('Background commands (');
  return { c, app, set: (next: TaskRowView[]) => (current = next) };
}

describe('the /tasks panel', () => {
  it('lists the commands with the first selected and the keys named, in place of the prompt', async () => {
    const { app } = await openPanel([
      row('b1'),
      row('b2', { state: 'exit code 0', running: false, ran: '3s', output: '120 B' }),
      row('b1', { sessionId: 'child-9', own: false }),
    ]);
    const f = app.frame();
    expect(f).toContain('Background commands (2 running)');
    expect(f).toMatch(/❯ b1\s+running\s+12s\s+3\.1 KB npm run dev-b1/);
    expect(f).toMatch(/ {2}b2\s+exit code 0\s+3s\s+120 B npm run dev-b2/);
    expect(f).toContain('npm run dev-b1 (sub-agent child-9)');
    expect(f).toContain('enter or ctrl+o: view output · s: stop · a: stop all · ↑↓: select · esc: close');
  });

  it('views, stops one, stops all and closes with its keys', async () => {
    const { c, app } = await openPanel([row('b1'), row('b2'), row('b1', { sessionId: 'child-9', own: false })]);
    await app.press(KEYS.down);
    await waitFor(() => /❯ b2/.test(app.frame()), app.frame);
    await app.press(KEYS.ctrl('o'));
    await app.press(KEYS.enter);
    await app.press('s');
    await app.press(KEYS.down, 's');
    await app.press('a');
    expect(c.submitted).toEqual(['/tasks view b2', '/tasks view b2', '/tasks stop b2', '/tasks stop child-9/b1', '/tasks stop all']);
    await app.press(KEYS.esc);
    await waitFor(() => !app.frame().includes('s: stop ·'), app.frame);
  });

  it('follows the commands: a row that ended shows its state once the footer count changes, the selection stays on its command', async () => {
    const { c, app, set } = await openPanel([row('b1'), row('b2')]);
    await app.press(KEYS.down);
    set([row('b1', { state: 'stopped', running: false }), row('b2')]);
    c.emit({ type: 'background_status', text: '1 background' });
    await app.waitForText('Background commands (1 running)');
    expect(app.frame()).toMatch(/ {2}b1\s+stopped/);
    expect(app.frame()).toMatch(/❯ b2\s+running/);
  });

  it('reads its rows again every second while a command runs, so its time goes on with no event', async () => {
    const { app, set } = await openPanel([row('b1', { ran: '12s' })]);
    set([row('b1', { ran: '13s' })]);
    // mutation: no refresh while open (the times frozen at the opening) never shows 13s
    await waitFor(() => /❯ b1\s+running\s+13s/.test(app.frame()), app.frame);
  });
});
