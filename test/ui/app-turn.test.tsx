import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { emptyUsage } from '../../src/llm/messages.js';
import { FakeController, KEYS, msg, renderApp, text, tick, waitFor } from './helpers.js';

afterEach(() => cleanup());

describe('the app driven through a whole turn', () => {
  it('streams the reply live, then prints the message, the tool rows and the end of the turn', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.waitForText('context left');
    expect(c.subscribers).toBe(1);

    await app.press(...'list files'.split(''), KEYS.enter);
    expect(c.submitted).toEqual(['list files']);

    c.emit(
      { type: 'busy', busy: true },
      { type: 'message', message: msg('user', [text('list files')]) },
      { type: 'turn_start', turnId: 't1' },
      { type: 'request_start', step: 1, attempt: 1 },
    );
    await app.waitForText('❯ list files');
    await app.waitForText('Thinking…');

    c.emit({ type: 'text_delta', text: 'Let me look at ' }, { type: 'text_delta', text: 'the **files**.' });
    await app.waitForText('Let me look at the **files**.');
    expect(app.frame()).toContain('Writing…');

    c.emit({ type: 'tool_call_streaming', id: 'tu1', name: 'Bash' });
    await app.waitForText('writing the call');

    const assistant = msg('assistant', [text('Let me look at the **files**.'), { type: 'tool_use', id: 'tu1', name: 'Bash', input: { command: 'ls -la' } }]);
    c.emit({ type: 'message', message: assistant });
    // The final text is rendered as Markdown (bold markers gone) and the raw stream is gone.
    await waitFor(() => !app.frame().includes('**files**'), app.frame);
    expect(app.frame()).toContain('Let me look at the files.');

    c.emit({ type: 'tool_start', id: 'tu1', name: 'Bash', input: { command: 'ls -la' }, summary: 'ls -la' });
    await app.waitForText('Bash ls -la');
    expect(app.frame()).toMatch(/Running…/);

    c.emit({ type: 'tool_end', id: 'tu1', name: 'Bash', output: { content: 'total 8\nfile-a\nfile-b\n', isError: false }, durationMs: 1234, status: 'done' });
    await app.waitForText('✓ Bash ls -la');
    expect(app.frame()).toContain('1.2s');
    expect(app.frame()).toContain('⎿ total 8');
    expect(app.frame()).toContain('(+2 lines)');

    c.emit(
      { type: 'message', message: msg('user', [{ type: 'tool_result', toolUseId: 'tu1', content: 'total 8', isError: false }]) },
      { type: 'request_start', step: 2, attempt: 1 },
      { type: 'text_delta', text: 'Two files.' },
      { type: 'message', message: msg('assistant', [text('Two files.')]) },
      { type: 'usage', usage: { ...emptyUsage(), outputTokens: 50 }, model: 'claude-sonnet-4-5', stopReason: 'end_turn' },
      { type: 'turn_end', reason: 'end_turn', steps: 2, usage: emptyUsage(), text: 'Two files.' },
      { type: 'busy', busy: false },
    );
    await app.waitForText('Two files.');
    await waitFor(() => !app.frame().includes('esc to interrupt'), app.frame);
    const screen = app.frame();
    // Order on screen: prompt, first reply, tool row, second reply.
    const order = ['❯ list files', 'Let me look at the files.', '✓ Bash ls -la', 'Two files.'].map((s) => screen.indexOf(s));
    expect(order.every((v, i) => v >= 0 && (i === 0 || v > order[i - 1]!))).toBe(true);
    // The tool result message itself is not shown as a user message.
    expect(screen.match(/❯ total 8/)).toBeNull();
  });

  it('Esc interrupts the running turn; the partial reply stays, marked interrupted', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'turn_start', turnId: 't' }, { type: 'request_start', step: 1, attempt: 1 }, { type: 'text_delta', text: 'Half an ans' });
    await app.waitForText('Half an ans');
    await app.press(KEYS.esc);
    await waitFor(() => c.interrupts === 1, app.frame);
    c.emit({ type: 'turn_end', reason: 'aborted', steps: 1, usage: emptyUsage(), text: '' });
    await app.waitForText('■ interrupted');
    expect(app.frame()).toContain('Half an ans');
  });

  it('Esc does nothing to the controller when no turn runs', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.waitForText('context left');
    await app.press(KEYS.esc);
    await tick(20);
    expect(c.interrupts).toBe(0);
  });

  it('queues a prompt typed while the agent works, sends it when the turn ends, and gives it back on Esc', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'busy', busy: true }, { type: 'turn_start', turnId: 't' });
    await app.waitForText('Thinking');
    await app.press(...'next one'.split(''), KEYS.enter);
    await app.waitForText('queued: next one');
    expect(c.submitted).toEqual([]);
    // Slash commands are not queued.
    await app.press(...'/cost'.split(''), KEYS.enter);
    expect(c.submitted).toEqual(['/cost']);
    c.emit({ type: 'turn_end', reason: 'end_turn', steps: 1, usage: emptyUsage(), text: '' }, { type: 'busy', busy: false });
    await waitFor(() => c.submitted.length === 2, app.frame);
    expect(c.submitted[1]).toBe('next one');

    c.emit({ type: 'busy', busy: true }, { type: 'turn_start', turnId: 't2' });
    await app.waitForText('Thinking');
    await app.press(...'later'.split(''), KEYS.enter);
    await app.waitForText('queued: later');
    await app.press(KEYS.esc);
    await waitFor(() => c.interrupts === 1, app.frame);
    await waitFor(() => !app.frame().includes('queued: later'), app.frame);
    c.emit({ type: 'turn_end', reason: 'aborted', steps: 1, usage: emptyUsage(), text: '' }, { type: 'busy', busy: false });
    await tick(20);
    expect(c.submitted).toHaveLength(2);
    // It is back in the prompt, ready to edit or send.
    expect(app.frame()).toMatch(/❯ later/);
  });

  it('shows the retry row, the error row and the continuation note', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'turn_start', turnId: 't' }, { type: 'retry', attempt: 2, maxAttempts: 5, delayMs: 4000, kind: 'overloaded', message: 'Overloaded' });
    await app.waitForText('Overloaded — retrying in 4s (2/5)');
    c.emit({ type: 'continuation', count: 1, max: 3 }, { type: 'error', kind: 'auth', message: 'invalid x-api-key' });
    await app.waitForText('✗ Error: invalid x-api-key');
    expect(app.frame()).toContain('asking the model to continue (1/3)');
  });

  it('resets the transcript when another session opens', async () => {
    const c = new FakeController();
    c.transcript = [msg('user', [text('old question')]), msg('assistant', [text('old answer')])];
    const app = renderApp(c);
    await app.waitForText('old answer');
    c.emit({
      type: 'session',
      session: { id: 's_new00000newsess', title: 'Other', model: 'gpt-4o', provider: 'openai', cwd: '/tmp/other' },
      transcript: [msg('user', [text('new question')])],
      compactions: [],
    });
    await app.waitForText('new question');
    // The screen was cleared before the new transcript was printed.
    const frames = app.stdout.frames;
    const cleared = frames.findIndex((f) => f.startsWith('\u001b[2J'));
    expect(cleared).toBeGreaterThanOrEqual(0);
    expect(frames[cleared]).not.toContain('new question');
    expect(frames.slice(cleared + 1).some((f) => f.includes('new question'))).toBe(true);
    expect(app.frame()).toContain('gpt-4o');
    expect(app.frame()).toContain('newsess');
  });

  it('an exit event ends the app', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.waitForText('context left');
    c.emit({ type: 'exit' });
    await waitFor(() => c.subscribers === 0, app.frame);
  });
});
