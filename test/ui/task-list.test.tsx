import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { ChildState } from '../../src/agents/childState.js';
import type { Message } from '../../src/llm/messages.js';
import type { TodoView } from '../../src/protocol/views.js';
import { FakeController, renderApp, waitFor } from './helpers.js';

afterEach(() => cleanup());

/** The session's list as the plan capability's `todos` view gives it: read from the log, open while work is under way. */
class TodoController extends FakeController {
  list: TodoView[] = [];
  constructor() {
    super();
    this.views.todos = () => ({ todos: this.list, open: this.list.some((t) => t.status !== 'completed' && t.status !== 'cancelled') });
  }
}

/** A tool's result joining the log (a TodoWrite's). */
const result = (id: string, isError = false): Message => ({
  id: `m-${id}`,
  role: 'user',
  blocks: [{ type: 'tool_result', toolUseId: id, content: isError ? 'no' : 'set', isError }],
  kind: 'normal',
  createdAt: 0,
});

describe('the task list above the prompt', () => {
  it('shows the list while work is under way (the item in progress by its active form), reads it again when a result joins the log and at a rewind, and Ctrl+T toggles it', async () => {
    const c = new TodoController();
    c.list = [
      { content: 'Read the code', status: 'completed' },
      { content: 'Write the test', status: 'in_progress', activeForm: 'Writing the test' },
      { content: 'Ask about the API', status: 'blocked' },
    ];
    const app = renderApp(c);
    await app.waitForText('Tasks · 1 of 3 done');
    expect(app.frame()).toContain('◼ Writing the test');
    expect(app.frame()).toContain('✔ Read the code');
    expect(app.frame()).toContain('! Ask about the API');

    // a TodoWrite ended: the log gets its result only after tool_end (issue 49), so the list is read again at the result
    const next = c.list.map((t) => (t.status === 'in_progress' ? { ...t, status: 'completed' as const } : t));
    c.emit(
      { type: 'tool_start', id: 't1', name: 'TodoWrite', input: { todos: next }, summary: '' },
      { type: 'tool_end', id: 't1', name: 'TodoWrite', output: { content: 'set', isError: false }, durationMs: 1, status: 'done' },
    );
    c.list = next;
    c.emit({ type: 'message', message: result('t1') });
    await app.waitForText('Tasks · 2 of 3 done');

    await app.press('\u0014');
    await waitFor(() => !app.frame().includes('Tasks ·'), app.frame);
    await app.press('\u0014');
    await app.waitForText('Tasks · 2 of 3 done');

    // everything settled (after a rewind here): nothing is shown
    c.list = [{ content: 'Read the code', status: 'completed' }];
    c.emit({ type: 'history_reset' });
    await waitFor(() => !app.frame().includes('Tasks ·'), app.frame);
  });
});
// Mutations that fail this: the list not read again at a tool's result ('2 of 3 done' never comes), no refresh on
// history_reset, Ctrl+T not bound, the list shown when every item is settled (the view's `open` ignored).

describe("a sub-agent's own task list", () => {
  it('is shown indented under its running row, not as the session’s list, and goes with the row', async () => {
    const c = new TodoController();
    const app = renderApp(c);
    const child: ChildState = {
      toolUseId: 'task1',
      agent: 'explore',
      description: 'check the parser',
      status: 'running',
      toolCalls: 1,
      tokens: 900,
      startedAt: Date.now(),
    };
    c.emit(
      { type: 'turn_start', turnId: 't' },
      { type: 'tool_start', id: 'task1', name: 'Task', input: { description: 'check the parser', prompt: 'go' }, summary: 'check the parser' },
      { type: 'child', state: child },
    );
    await app.waitForText('Task');
    expect(app.frame()).not.toContain('its tasks');
    c.emit({
      type: 'child',
      state: {
        ...child,
        todos: [
          { content: 'Read the parser', status: 'completed' },
          { content: 'Run its tests', status: 'in_progress', activeForm: 'Running its tests' },
          { content: 'Report', status: 'pending' },
        ],
      },
    });
    await app.waitForText('its tasks · 1 of 3 done');
    const rows = app.frame().split('\n');
    const row = rows.findIndex((l) => l.includes('Task') && l.includes('check the parser'));
    const item = rows.findIndex((l) => l.includes('◼ Running its tests'));
    // beneath the row, indented further than it
    expect(row).toBeGreaterThanOrEqual(0);
    expect(item).toBeGreaterThan(row);
    expect(rows[item]!.indexOf('◼')).toBeGreaterThan(rows[row]!.indexOf('Task'));
    expect(app.frame()).toContain('✔ Read the parser');
    expect(app.frame()).toContain('◻ Report');
    // the session's own list stays empty: nothing above the prompt
    expect(app.frame()).not.toContain('Tasks ·');

    c.emit({ type: 'tool_end', id: 'task1', name: 'Task', output: { content: 'report', isError: false }, durationMs: 5, status: 'done' });
    await waitFor(() => !app.frame().includes('its tasks'), app.frame);
  });
});
// Mutations that fail this: the child's todos dropped from the 'child' event (no "its tasks"), the list rendered
// above the prompt as the session's ("Tasks ·"), the list not removed when the row ends.
