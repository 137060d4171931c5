import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { FakeController, KEYS, renderApp, tick } from './helpers.js';

// The conventions and defect fixes of issue #14, as the person meets them in the app.

afterEach(() => cleanup());

const type = (s: string): string[] => s.split('');

describe('a prompt that starts with a path', () => {
  it('is queued as a prompt while the agent works, not sent as a command; a real command still goes at once', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.waitForText('context left');
    c.emit({ type: 'busy', busy: true });
    await app.waitForText('esc to interrupt');
    await app.press(...type('/etc/hosts is it fine?'));
    expect(app.frame()).not.toContain('Unknown command');
    await app.press(KEYS.enter);
    expect(c.submitted).toEqual([]);
    await app.waitForText('queued: /etc/hosts is it fine?');
    await app.press(...type('/cost'), KEYS.enter);
    expect(c.submitted).toEqual(['/cost']);
    await tick(1);
  });
});

describe('the footer', () => {
  it('shows the new model after /model switches', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.waitForText('claude-sonnet-4-5');
    c.view = { ...c.view, model: 'gpt-4o', provider: 'openai' };
    c.emit({ type: 'command_output', command: '/model gpt-4o', output: { kind: 'text', text: 'Switched to gpt-4o' } }, { type: 'context', usage: c.usageView });
    await app.waitForText('gpt-4o ·');
    expect(app.frame()).not.toContain('claude-sonnet-4-5 ·');
  });
});
