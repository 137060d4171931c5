import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { FakeController, KEYS, renderApp } from './helpers.js';

afterEach(() => cleanup());

// A prompt larger than the window is refused by the session before anything is sent
// (prompt_refused): the person sees why, and the text is back in the prompt to shorten or save.
describe('a refused prompt', () => {
  it('shows why and puts the text back into the prompt, ahead of what was typed since', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.waitForText('context left');
    await app.press('n', 'e', 'w');
    c.emit({
      type: 'prompt_refused',
      text: 'summarize this huge log',
      message: 'This prompt is about 90,000 tokens … so it was not sent (nothing was stored). Save the text to a file and ask the model to read it',
    });
    await app.waitForText('it was not sent');
    expect(app.frame().replace(/\s+/g, ' ')).toContain('Save the text to a file');
    expect(app.frame()).toContain('summarize this huge log');
    await app.press(KEYS.enter);
    expect(c.submitted).toEqual(['summarize this huge log\nnew']);
  });
});
