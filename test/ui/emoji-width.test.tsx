import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { FakeController, KEYS, renderAppSized, waitFor } from './helpers.js';

// An emoji with a skin-tone modifier in the prompt (issue 26): tmux draws 👍🏽 four columns wide
// where Ink's measure says two, which pushed the box's right border onto the next line. The box
// shows the emoji without its tone, so every terminal draws it the same; the text sent keeps it.

afterEach(() => cleanup());

const TONE = /[\u{1F3FB}-\u{1F3FF}]/u;

describe('a skin-toned emoji in the prompt box', () => {
  it('keeps the right border on its line, and is sent with its tone', async () => {
    const c = new FakeController();
    const app = renderAppSized(c, 40);
    const text = 'ok 👍🏽 and 👋🏿 thanks';
    await app.press(text);
    await app.waitForText('thanks');
    const row = app
      .frame()
      .split('\n')
      .find((l) => l.includes('❯ ok'))!;
    expect(row).not.toMatch(TONE);
    expect(row).toMatch(/thanks\s*│$/);
    await app.press(KEYS.enter);
    await waitFor(() => c.submitted.length === 1, app.frame);
    expect(c.submitted).toEqual([text]);
  });
});
