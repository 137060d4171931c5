import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { setSkinToneColumns } from '../../src/ui/stringWidth.js';
import { FakeController, KEYS, renderAppSized, waitFor } from './helpers.js';

// An emoji with a skin-tone modifier in the prompt (issue 26): tmux draws 👍🏽 four columns wide
// where Ink's measure says two, which pushed the box's right border onto the next line. Where the
// terminal did not say at start how wide it draws it (ui/emoji-probe.ts), the box shows the emoji
// without its tone; where it did, the box keeps the tone (the width function counts what it said:
// test/ui/emoji-probe.test.ts, and test/e2e/tui-emoji.test.ts in tmux). The text sent keeps it.

afterEach(() => {
  cleanup();
  setSkinToneColumns(undefined);
});

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

  // mutation: PromptView stripping the tone whatever the terminal said fails both
  it.each([4, 2] as const)('keeps the tone in the box where the terminal said it draws it %i columns wide', async (columns) => {
    setSkinToneColumns(columns);
    const c = new FakeController();
    const app = renderAppSized(c, 40);
    await app.press('ok 👍🏽 and 👋🏿 thanks');
    await app.waitForText('thanks');
    const row = app
      .frame()
      .split('\n')
      .find((l) => l.includes('❯ ok'))!;
    expect(row).toContain('ok 👍🏽 and 👋🏿 thanks');
  });
});
