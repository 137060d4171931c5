import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { itemRenderCount } from '../../src/ui/components/ItemView.js';
import type { Message } from '../../src/llm/messages.js';
import { FakeController, KEYS, msg, renderApp, text, waitFor } from './helpers.js';

afterEach(() => cleanup());

function history(n: number): Message[] {
  return Array.from({ length: n }, (_, i) => (i % 2 === 0 ? msg('user', [text(`question ${i}`)]) : msg('assistant', [text(`answer **${i}**`)])));
}

describe('per-update work does not depend on the transcript', () => {
  it('keystrokes and streamed chunks render no transcript item; a finished message renders exactly one', async () => {
    const c = new FakeController();
    c.transcript = history(200);
    const app = renderApp(c);
    await app.waitForText('answer 199');
    // the newest screenful is printed first, the older items right after: wait for all of them
    await app.waitForText(/question 0\n/);
    const printed = itemRenderCount();

    await app.press(...'typing a prompt'.split(''), KEYS.left, KEYS.backspace, KEYS.up, KEYS.down);
    c.emit({ type: 'turn_start', turnId: 't' }, { type: 'request_start', step: 1, attempt: 1 });
    for (let i = 0; i < 20; i++) c.emit({ type: 'text_delta', text: `chunk ${i} ` });
    c.emit({ type: 'tool_start', id: 'x', name: 'Bash', input: {}, summary: 'ls' });
    await app.waitForText('chunk 19');
    expect(itemRenderCount()).toBe(printed);

    c.emit({ type: 'message', message: msg('assistant', [text('done')]) });
    await waitFor(() => itemRenderCount() === printed + 1, app.frame);
    await app.press('x', 'y');
    c.emit({ type: 'text_delta', text: 'more' });
    await app.waitForText('more');
    expect(itemRenderCount()).toBe(printed + 1);
  });
});
