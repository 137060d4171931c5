import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { FakeController, KEYS, renderApp, tick, waitFor } from './helpers.js';

// A command that needs an argument, chosen with Enter, says what it needs (issue 26): it waited
// invisibly, and the next prompt became its argument. "/" and Enter says how to choose.

afterEach(() => cleanup());

const type = (s: string): string[] => s.split('');

describe('Enter on a command that needs an argument, and on a lone /', () => {
  for (const [typed, name, args] of [
    ['/hist', 'history', '<query> | open <id>'],
    ['/unpin', 'unpin', '<n>'],
  ] as const) {
    it(`${typed} and Enter shows the usage of /${name} and runs nothing`, async () => {
      const c = new FakeController();
      c.commandList = [...c.commandList, { name, args, description: 'needs an argument' }];
      const app = renderApp(c);
      await app.press(...type(typed), KEYS.enter);
      await app.waitForText(`usage: /${name} ${args} — type it, then Enter`);
      expect(c.submitted).toEqual([]);
      await app.press(...type('7'));
      await waitFor(() => !app.frame().includes('usage:'), app.frame);
      await app.press(KEYS.enter);
      await waitFor(() => c.submitted.length === 1, app.frame);
      expect(c.submitted).toEqual([`/${name} 7`]);
    });
  }

  it('/ and Enter says how to choose a command, and runs none', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.press('/');
    await app.press(KEYS.enter);
    await app.waitForText('Choose a command: ↑↓ then Enter, or type its name');
    await tick(20);
    expect(c.submitted).toEqual([]);
  });
});
