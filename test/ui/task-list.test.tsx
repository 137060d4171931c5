import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { Todo } from '../../src/plan/todos.js';
import { FakeController, renderApp, waitFor } from './helpers.js';

afterEach(() => cleanup());

class TodoController extends FakeController {
  list: Todo[] = [];
  todos(): readonly Todo[] {
    return this.list;
  }
}

describe('the task list above the prompt', () => {
  it('shows the list while work is under way (the item in progress by its active form), follows TodoWrite and rewinds, and Ctrl+T toggles it', async () => {
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

    // a TodoWrite finished: read again
    c.list = c.list.map((t) => (t.status === 'in_progress' ? { ...t, status: 'completed' } : t));
    c.emit({ type: 'tool_end', id: 't1', name: 'TodoWrite', output: { content: 'set', isError: false }, durationMs: 1, status: 'done' });
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
// Mutations that fail this: no refresh on tool_end or history_reset, Ctrl+T not bound, the list shown when every item is settled.
