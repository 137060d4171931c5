import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { FakeController, KEYS, msg, renderApp, session, text, waitFor } from './helpers.js';

afterEach(() => cleanup());

// Thinking in the TUI: a live "Thinking…" row while it streams, one collapsed dim line when the
// reply begins, the whole of it on Ctrl+O; a resumed session shows its stored thinking collapsed.

describe('thinking in the TUI', () => {
  it('shows the live row with its tokens, then one collapsed line, then the whole on Ctrl+O', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.waitForText('context left');
    c.emit(
      { type: 'busy', busy: true },
      { type: 'message', message: msg('user', [text('why?')]) },
      { type: 'turn_start', turnId: 't1' },
      { type: 'request_start', step: 1, attempt: 1 },
    );
    const thought = 'First I should compare the two approaches. ' + 'Then weigh the costs of each one carefully. '.repeat(12) + 'The second one is cheaper.';
    c.emit({ type: 'thinking_delta', text: '' }, { type: 'thinking_delta', text: thought });
    await app.waitForText('Thinking…');
    await waitFor(() => /\d+ thinking/.test(app.frame()), app.frame);

    c.emit({ type: 'text_delta', text: 'Use the second.' });
    await app.waitForText('✻ Thought (');
    expect(app.frame()).toContain('First I should compare the two approaches.');
    expect(app.frame()).not.toContain('The second one is cheaper.');
    const collapsed = app
      .frame()
      .split('\n')
      .filter((l) => l.includes('✻ Thought'));
    expect(collapsed).toHaveLength(1);

    c.emit({ type: 'message', message: msg('assistant', [{ type: 'thinking', thinking: thought, signature: 'sig' }, text('Use the second.')]) });
    c.emit(
      {
        type: 'turn_end',
        reason: 'end_turn',
        steps: 1,
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        text: 'Use the second.',
      },
      { type: 'busy', busy: false },
    );
    await app.press(KEYS.ctrl('o'));
    await app.waitForText('second one is cheaper.');
    expect(app.frame()).toContain('✻ Thought (');
  });

  it('Ctrl+O after a tool call prints the output its row promises, though the model thought again after it; the thinking next', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.waitForText('context left');
    const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
    const think = (words: string, end: string): string => `${words} `.repeat(30) + end;
    c.emit({ type: 'busy', busy: true }, { type: 'message', message: msg('user', [text('list it')]) }, { type: 'turn_start', turnId: 't1' });
    c.emit({ type: 'thinking_delta', text: think('Run ls first.', 'FIRST-THOUGHT-END') }, { type: 'text_delta', text: '' });
    c.emit({ type: 'tool_start', id: 'tu1', name: 'Bash', input: { command: 'seq 60' }, summary: 'seq 60' });
    const output = Array.from({ length: 60 }, (_, i) => `row-${i + 1}`).join('\n');
    c.emit({ type: 'tool_end', id: 'tu1', name: 'Bash', output: { content: output, isError: false }, durationMs: 5, status: 'done' });
    await app.waitForText('(+59 lines)');
    // a thinking model thinks again before its answer: that thinking comes after the row
    c.emit({ type: 'thinking_delta', text: think('Sixty rows came back.', 'SECOND-THOUGHT-END') }, { type: 'text_delta', text: 'Sixty rows.' });
    c.emit({ type: 'turn_end', reason: 'end_turn', steps: 2, usage, text: 'Sixty rows.' }, { type: 'busy', busy: false });
    await app.waitForText('Sixty rows.');
    expect(app.frame()).not.toContain('row-60');
    await app.press(KEYS.ctrl('o'));
    // mutation: thinkingIsNewer without the same-turn rule prints SECOND-THOUGHT-END here instead
    await app.waitForText('row-60');
    expect(app.frame()).not.toContain('SECOND-THOUGHT-END');
    await app.press(KEYS.ctrl('o'));
    await app.waitForText('SECOND-THOUGHT-END');

    // the next turn thinks without a tool call: Ctrl+O prints that thinking, not the old row
    c.emit({ type: 'busy', busy: true }, { type: 'message', message: msg('user', [text('and now?')]) }, { type: 'turn_start', turnId: 't2' });
    c.emit({ type: 'thinking_delta', text: think('Nothing to run.', 'THIRD-THOUGHT-END') }, { type: 'text_delta', text: 'Done.' });
    c.emit({ type: 'turn_end', reason: 'end_turn', steps: 1, usage, text: 'Done.' }, { type: 'busy', busy: false });
    await app.waitForText('Done.');
    await app.press(KEYS.ctrl('o'));
    await app.waitForText('THIRD-THOUGHT-END');
  });

  it('Ctrl+O after a tool call that no thinking followed prints its output, not the thinking before it', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.waitForText('context left');
    const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
    c.emit({ type: 'busy', busy: true }, { type: 'message', message: msg('user', [text('list it')]) }, { type: 'turn_start', turnId: 't1' });
    c.emit({ type: 'thinking_delta', text: `${'Run seq first. '.repeat(30)}ONLY-THOUGHT-END` }, { type: 'text_delta', text: '' });
    c.emit({ type: 'tool_start', id: 'tu1', name: 'Bash', input: { command: 'seq 60' }, summary: 'seq 60' });
    const output = Array.from({ length: 60 }, (_, i) => `row-${i + 1}`).join('\n');
    c.emit({ type: 'tool_end', id: 'tu1', name: 'Bash', output: { content: output, isError: false }, durationMs: 5, status: 'done' });
    await app.waitForText('(+59 lines)');
    c.emit({ type: 'text_delta', text: 'Sixty rows.' });
    c.emit({ type: 'turn_end', reason: 'end_turn', steps: 2, usage, text: 'Sixty rows.' }, { type: 'busy', busy: false });
    await app.waitForText('Sixty rows.');
    await app.press(KEYS.ctrl('o'));
    // mutation: thinkingIsNewer true for a thinking before the row prints ONLY-THOUGHT-END here instead
    await app.waitForText('row-60');
    expect(app.frame()).not.toContain('ONLY-THOUGHT-END');
  });

  it('a resumed session shows stored thinking as one collapsed line, and its first words', async () => {
    const c = new FakeController(session(), [
      msg('user', [text('hello')]),
      msg('assistant', [{ type: 'thinking', thinking: 'The person greets me; answer briefly.', signature: 's' }, text('Hi!')]),
    ]);
    const app = renderApp(c);
    await app.waitForText('Hi!');
    expect(app.frame()).toContain('✻ Thought (');
    expect(app.frame()).toContain('The person greets me; answer briefly.');
  });
});
