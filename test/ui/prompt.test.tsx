import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { Key } from 'ink';
import { PromptModel } from '../../src/ui/prompt-model.js';
import { NO_KEY } from '../../src/ui/typed-keys.js';
import { COMMANDS, FakeController, KEYS, renderApp, tick, waitFor } from './helpers.js';

afterEach(() => cleanup());

const k = (over: Partial<Key>): Key => ({ ...NO_KEY, ...over });

function model(history: string[] = []) {
  const sent: string[] = [];
  const m = new PromptModel({ history, commands: () => COMMANDS, onSubmit: (t) => sent.push(t) });
  const type = (s: string): void => {
    for (const ch of s) m.handleKey(ch, k({}));
  };
  return { m, sent, type };
}

describe('prompt editing', () => {
  it('types, moves and deletes', () => {
    const { m, type } = model();
    type('hello world');
    m.handleKey('', k({ leftArrow: true }));
    m.handleKey('', k({ leftArrow: true }));
    type('X');
    expect(m.state.text).toBe('hello worXld');
    m.handleKey('a', k({ ctrl: true }));
    type('>');
    expect(m.state.text).toBe('>hello worXld');
    m.handleKey('e', k({ ctrl: true }));
    m.handleKey('', k({ backspace: true }));
    expect(m.state.text).toBe('>hello worXl');
    m.handleKey('w', k({ ctrl: true }));
    expect(m.state.text).toBe('>hello ');
    m.handleKey('', k({ home: true }));
    m.handleKey('k', k({ ctrl: true }));
    expect(m.state.text).toBe('');
  });

  it('Ctrl-U deletes to the line start; Ctrl-D deletes under the cursor; word moves with Alt', () => {
    const { m, type } = model();
    type('one two three');
    m.handleKey('', k({ leftArrow: true, meta: true }));
    expect(m.state.cursor).toBe(8);
    m.handleKey('d', k({ ctrl: true }));
    expect(m.state.text).toBe('one two hree');
    m.handleKey('u', k({ ctrl: true }));
    expect(m.state.text).toBe('hree');
    expect(m.state.cursor).toBe(0);
  });

  it('handles characters outside the BMP as one', () => {
    const { m, type } = model();
    type('a😀b');
    m.handleKey('', k({ leftArrow: true }));
    m.handleKey('', k({ backspace: true }));
    expect(m.state.text).toBe('ab');
  });

  it('multi-line: Alt+Enter, Ctrl+J and a trailing backslash add a line; Enter sends', () => {
    const { m, sent, type } = model();
    type('first');
    m.handleKey('\r', k({ return: true, meta: true }));
    type('second');
    m.handleKey('\n', k({}));
    type('third\\');
    m.handleKey('\r', k({ return: true }));
    type('fourth');
    expect(m.state.text).toBe('first\nsecond\nthird\nfourth');
    // Up moves between lines before it reaches history.
    m.handleKey('', k({ upArrow: true }));
    m.handleKey('', k({ home: true }));
    type('>');
    expect(m.state.text).toBe('first\nsecond\n>third\nfourth');
    m.handleKey('\r', k({ return: true }));
    expect(sent).toEqual(['first\nsecond\n>third\nfourth']);
    expect(m.state.text).toBe('');
  });

  it('does not send an empty prompt', () => {
    const { m, sent, type } = model();
    type('   ');
    m.handleKey('\r', k({ return: true }));
    expect(sent).toEqual([]);
  });

  it('history: Up recalls earlier prompts (across sessions), Down comes back to the draft', () => {
    const { m, type } = model(['from yesterday', 'from today']);
    type('draft');
    m.handleKey('', k({ upArrow: true }));
    expect(m.state.text).toBe('from today');
    m.handleKey('', k({ upArrow: true }));
    expect(m.state.text).toBe('from yesterday');
    m.handleKey('', k({ upArrow: true }));
    expect(m.state.text).toBe('from yesterday');
    m.handleKey('', k({ downArrow: true }));
    m.handleKey('', k({ downArrow: true }));
    expect(m.state.text).toBe('draft');
  });

  it('history includes what was sent in this session', () => {
    const { m, type } = model(['old']);
    type('new one');
    m.handleKey('\r', k({ return: true }));
    m.handleKey('', k({ upArrow: true }));
    expect(m.state.text).toBe('new one');
    m.handleKey('', k({ upArrow: true }));
    expect(m.state.text).toBe('old');
  });

  it('a small paste goes in as text, line breaks included', () => {
    const { m, sent, type } = model();
    type('look: ');
    m.handleKey('line one\r\nline two\rline three', k({}));
    expect(m.state.text).toBe('look: line one\nline two\nline three');
    m.handleKey('\r', k({ return: true }));
    expect(sent).toEqual(['look: line one\nline two\nline three']);
  });

  it('a large paste shows as a placeholder and is sent whole; chunks of one paste join', () => {
    const { m, sent, type } = model();
    const big = Array.from({ length: 120 }, (_, i) => `log line ${i}`).join('\n');
    type('why? ');
    m.handleKey(big.slice(0, 700), k({}));
    m.handleKey(big.slice(700), k({}));
    expect(m.state.text).toBe('why? [pasted text #1 · 120 lines]');
    type(' thanks');
    m.handleKey('\r', k({ return: true }));
    expect(sent).toEqual([`why? ${big} thanks`]);
  });

  it('a single line arriving with its Enter in one chunk (fast typing, tmux send-keys) is submitted', () => {
    const { m, sent, type } = model();
    type('run ');
    m.handleKey('the tests\r', k({}));
    expect(sent).toEqual(['run the tests']);
    expect(m.state.text).toBe('');
    // two lines in one chunk remain a paste
    m.handleKey('one\rtwo\r', k({}));
    expect(sent).toHaveLength(1);
    expect(m.state.text).toBe('one\ntwo\n');
  });

  it('escape sequences in pasted text are dropped', () => {
    const { m } = model();
    m.handleKey('a\u001b[31mred\u001b[0m\u0007b', k({}));
    expect(m.state.text).toBe('aredb');
  });
});

describe('slash-command completion', () => {
  it('lists matching commands with descriptions while typing', () => {
    const { m, type } = model();
    type('/co');
    expect(m.state.completion?.matches.map((c) => c.name)).toEqual(['compact', 'context', 'cost']);
    type('n');
    expect(m.state.completion?.matches.map((c) => c.name)).toEqual(['context']);
    type(' ');
    expect(m.state.completion).toBeNull();
  });

  it('Tab completes a unique match, then the common prefix, then cycles', () => {
    const { m, type } = model();
    type('/he');
    m.handleKey('', k({ tab: true }));
    expect(m.state.text).toBe('/help ');
    m.clear();
    type('/comp');
    m.handleKey('', k({ tab: true }));
    expect(m.state.text).toBe('/compact ');
    m.clear();
    type('/c');
    m.handleKey('', k({ tab: true }));
    expect(m.state.text).toBe('/co');
    m.handleKey('', k({ tab: true }));
    expect(m.state.text).toBe('/compact');
    m.handleKey('', k({ tab: true }));
    expect(m.state.text).toBe('/context');
    m.handleKey('', k({ tab: true, shift: true }));
    expect(m.state.text).toBe('/compact');
    expect(m.state.completion?.index).toBe(0);
  });

  it('suggests the closest command for a typo', () => {
    const { m, type } = model();
    type('/comapct');
    expect(m.state.completion?.matches).toEqual([]);
    expect(m.state.completion?.suggestion?.name).toBe('compact');
  });
});

describe('the prompt in the app', () => {
  it('shows typed text with the cursor, and the completion list with descriptions', async () => {
    const app = renderApp(new FakeController());
    await app.press(...'/c'.split(''));
    await app.waitForText('/compact [focus…]');
    expect(app.frame()).toContain('Summarize the conversation to free context');
    expect(app.frame()).toContain('/context');
    await app.press(KEYS.tab, KEYS.tab);
    await app.waitForText('▸ /compact');
    await app.press(...'x'.split(''));
    await app.press(KEYS.ctrl('u'));
    await app.press(...'/zzz'.split(''));
    await app.waitForText('Unknown command /zzz — /help lists the commands');
  });

  it('arrow keys and multi-line input through the terminal', async () => {
    const c = new FakeController(undefined, [], ['earlier prompt']);
    const app = renderApp(c);
    await app.press(KEYS.up);
    await app.waitForText('❯ earlier prompt');
    await app.press(KEYS.ctrl('u'), 'a', KEYS.altEnter, 'b', KEYS.ctrlJ, 'c', '\\', KEYS.enter, 'd', KEYS.left, KEYS.left, 'X', KEYS.enter);
    await waitFor(() => c.submitted.length === 1, app.frame);
    expect(c.submitted).toEqual(['a\nb\ncX\nd']);
  });

  it('a long paste through the terminal shows the placeholder', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    const lines = Array.from({ length: 50 }, (_, i) => `p${i}`).join('\r');
    await app.press(lines);
    await app.waitForText('[pasted text #1 · 50 lines]');
    await app.press(KEYS.enter);
    await waitFor(() => c.submitted.length === 1, app.frame);
    expect(c.submitted[0]!.split('\n')).toHaveLength(50);
  });

  it('Ctrl-C clears the input first, and a second one within 2 s exits', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.press(...'some text'.split(''));
    await app.waitForText('❯ some text');
    await app.press(KEYS.ctrl('c'));
    await app.waitForText('Press Ctrl-C again to exit');
    expect(app.frame()).not.toContain('some text');
    expect(c.exits).toBe(0);
    await app.press(KEYS.ctrl('c'));
    await waitFor(() => c.exits === 1, app.frame);
    await waitFor(() => c.subscribers === 0, app.frame);
  });

  it('Ctrl-C interrupts a running turn when the input is empty', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'busy', busy: true });
    await app.waitForText('Thinking');
    await app.press(KEYS.ctrl('c'));
    expect(c.interrupts).toBe(1);
    expect(c.exits).toBe(0);
  });

  it('two Ctrl-C further apart than 2 s do not exit', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    const realNow = Date.now;
    let t = realNow();
    Date.now = () => t;
    try {
      await app.press(KEYS.ctrl('c'));
      t += 2500;
      await app.press(KEYS.ctrl('c'));
      await tick(10);
      expect(c.exits).toBe(0);
    } finally {
      Date.now = realNow;
    }
  });
});
