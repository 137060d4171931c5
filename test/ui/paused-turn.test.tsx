import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { emptyUsage, type Block } from '../../src/llm/messages.js';
import { FakeController, KEYS, msg, renderApp, text, waitFor } from './helpers.js';

afterEach(() => cleanup());

// A turn the provider paused (pause_turn) and the loop continued: the paused reply holds the
// search call, the continuation its result and the rest of the answer.

const call = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'vitest 4' } };
const results = [
  { url: 'https://docs.example.org/release-notes', title: 'Release notes' },
  { url: 'https://blog.example.org/whats-new', title: "What's new" },
];
const pausedSearch: Block = { type: 'web_search', provider: 'anthropic', id: 'srvtoolu_1', query: 'vitest 4', results: [], wire: [call] };
const resultPart: Block = {
  type: 'web_search',
  provider: 'anthropic',
  id: 'srvtoolu_1',
  query: 'vitest 4',
  results,
  wire: [{ type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] }],
};

describe('a paused turn in the TUI', () => {
  it('shows the continued text after the paused text, the search once with its results, and nothing about stopping', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.waitForText('context left');
    await app.press(...'what is new?'.split(''), KEYS.enter);
    c.emit(
      { type: 'busy', busy: true },
      { type: 'message', message: msg('user', [text('what is new?')]) },
      { type: 'turn_start', turnId: 't1' },
      { type: 'request_start', step: 1, attempt: 1 },
      { type: 'text_delta', text: 'Let me look that up.' },
      { type: 'message', message: msg('assistant', [text('Let me look that up.'), pausedSearch]) },
      { type: 'usage', usage: emptyUsage(), model: 'claude-sonnet-4-5', stopReason: 'pause_turn' },
      { type: 'request_start', step: 2, attempt: 1 },
      { type: 'text_delta', text: 'Vitest 4 is out.' },
      { type: 'message', message: msg('assistant', [resultPart, text('Vitest 4 is out.')]) },
      { type: 'usage', usage: emptyUsage(), model: 'claude-sonnet-4-5', stopReason: 'end_turn' },
      { type: 'turn_end', reason: 'end_turn', steps: 2, usage: emptyUsage(), text: 'Let me look that up.\n\nVitest 4 is out.' },
      { type: 'busy', busy: false },
    );
    await app.waitForText('Vitest 4 is out.');
    await waitFor(() => !app.frame().includes('esc to interrupt'), app.frame);
    const frame = app.frame();
    expect(frame.indexOf('Let me look that up.')).toBeLessThan(frame.indexOf('Vitest 4 is out.'));
    // mutation: showing the paused call as a row of its own (a "0 results" search) fails these
    expect(frame.match(/Web search/g)).toHaveLength(1);
    expect(frame).toContain('2 results');
    expect(frame).not.toContain('0 results');
    expect(frame).not.toMatch(/stopped|Interrupted|output limit/i);
  });
});
