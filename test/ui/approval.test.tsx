import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { ApprovalDecision, ApprovalRequest } from '../../src/tools/permissions.js';
import { emptyUsage } from '../../src/llm/messages.js';
import { FakeController, KEYS, renderApp, tick, waitFor } from './helpers.js';

afterEach(() => cleanup());

const bash = (command: string, suggestedPrefix?: string): ApprovalRequest => ({
  toolName: 'Bash',
  toolUseId: 'tu1',
  input: { command },
  summary: command,
  ...(suggestedPrefix ? { suggestedPrefix } : {}),
});

async function ask(req: ApprovalRequest) {
  const c = new FakeController();
  const app = renderApp(c);
  const decisions: ApprovalDecision[] = [];
  c.emit({ type: 'turn_start', turnId: 't' }, { type: 'approval', request: req, respond: (d) => decisions.push(d) });
  await app.waitForText('wants to run');
  return { c, app, decisions };
}

describe('the permission prompt', () => {
  it('shows the command in full and the four options; Enter allows once', async () => {
    const { app, decisions } = await ask(bash('npm test -- --reporter=verbose', 'npm test'));
    const f = app.frame();
    expect(f).toContain('Bash wants to run');
    expect(f).toContain('npm test -- --reporter=verbose');
    expect(f).toContain('❯ 1. Allow once');
    expect(f).toContain('2. Allow commands starting with `npm test` for this session');
    expect(f).toContain('3. Deny, and tell the model why');
    expect(f).toContain('4. Deny, and stop the turn');
    // The prompt box is gone while the question is open.
    expect(f).not.toContain('Ask for a change');
    await app.press(KEYS.enter);
    expect(decisions).toEqual([{ kind: 'allow_once' }]);
    await app.waitForText('Ask for a change');
  });

  it('Down then Enter remembers the suggested prefix', async () => {
    const { app, decisions } = await ask(bash('git status --short', 'git status'));
    await app.press(KEYS.down, KEYS.enter);
    expect(decisions).toEqual([{ kind: 'allow_prefix', prefix: 'git status' }]);
  });

  it('without a suggested prefix the second option allows the tool for the session', async () => {
    const { app, decisions } = await ask({ toolName: 'Write', toolUseId: 'w', input: { path: 'a' }, summary: 'a.txt' });
    expect(app.frame()).toContain('Allow Write for this session');
    await app.press('2', KEYS.enter);
    expect(decisions).toEqual([{ kind: 'allow_tool' }]);
  });

  it('deny takes a note typed inline, and keys do not reach the prompt meanwhile', async () => {
    const { app, decisions } = await ask(bash('rm -rf build', 'rm'));
    await app.press('3');
    await app.waitForText('note:');
    await app.press(...'use make clean 2'.split(''), KEYS.backspace, KEYS.backspace, 'N');
    await app.waitForText('note: use make cleanN');
    await app.press(KEYS.enter);
    expect(decisions).toEqual([{ kind: 'deny', note: 'use make cleanN' }]);
    await app.waitForText('Ask for a change');
    // Nothing typed during the question landed in the prompt.
    expect(app.frame()).not.toMatch(/❯ .*clea/);
  });

  it('Esc denies and stops the turn', async () => {
    const { app, decisions } = await ask(bash('curl example.com'));
    await app.press(KEYS.up, KEYS.esc);
    await waitFor(() => decisions.length === 1, app.frame);
    expect(decisions).toEqual([{ kind: 'deny', stop: true }]);
  });

  it('"Deny, and stop the turn" takes a note too', async () => {
    const { app, decisions } = await ask(bash('curl example.com'));
    await app.press('4', ...'not now'.split(''), KEYS.enter);
    expect(decisions).toEqual([{ kind: 'deny', note: 'not now', stop: true }]);
  });

  it('Ctrl-C denies and stops too', async () => {
    const { app, decisions } = await ask(bash('curl example.com'));
    await app.press(KEYS.ctrl('c'));
    expect(decisions).toEqual([{ kind: 'deny', stop: true }]);
  });

  it('a command that is not a simple one (a loop) is offered only "allow once", no prefix', async () => {
    const { app, decisions } = await ask({ ...bash('for f in *.ts; do wc -l $f; done'), onceOnly: true });
    const f = app.frame();
    expect(f).not.toContain('starting with');
    expect(f).not.toContain('for this session');
    expect(f).toContain('2. Deny, and tell the model why');
    await app.press('1', KEYS.enter);
    expect(decisions).toEqual([{ kind: 'allow_once' }]);
  });

  it('a digit only selects, in every kind of question: Enter decides', async () => {
    const { c, app, decisions } = await ask(bash('git status --short', 'git status'));
    await app.press('2');
    await app.waitForText('❯ 2. Allow commands starting with');
    expect(decisions).toEqual([]);
    await app.press(KEYS.enter);
    expect(decisions).toEqual([{ kind: 'allow_prefix', prefix: 'git status' }]);
    const hooks: ApprovalRequest = {
      toolName: 'hooks',
      toolUseId: 'h',
      input: {},
      summary: 'PreToolUse: ./guard.sh',
      projectCode: { what: 'hooks', name: 'hooks', file: '.claude/settings.json', changed: false },
    };
    c.emit({ type: 'approval', request: hooks, respond: (d) => decisions.push(d) });
    await app.waitForText('has hooks');
    await app.press('1');
    await app.waitForText('❯ 1. Run them, and remember');
    await app.press('3');
    await app.waitForText('❯ 3. Do not run them');
    expect(decisions).toHaveLength(1);
    await app.press(KEYS.enter);
    expect(decisions[1]).toEqual({ kind: 'deny' });
  });

  it('queued questions are asked one after the other', async () => {
    const { c, app, decisions } = await ask(bash('one'));
    c.emit({ type: 'approval', request: bash('two'), respond: (d) => decisions.push(d) });
    await app.waitForText('(1 of 2)');
    await app.press(KEYS.enter);
    await app.waitForText('two');
    await app.press('3', KEYS.enter);
    expect(decisions.map((d) => d.kind)).toEqual(['allow_once', 'deny']);
  });

  it('a question left open when the turn ends is dropped', async () => {
    const { c, app, decisions } = await ask(bash('sleep 1'));
    c.emit({ type: 'turn_end', reason: 'aborted', steps: 1, usage: emptyUsage(), text: '' });
    await app.waitForText('Ask for a change');
    await tick(10);
    expect(decisions).toEqual([]);
  });

  it('a very long command is printed in full above and previewed in the box', async () => {
    const long = Array.from({ length: 40 }, (_, i) => `echo line-${i + 1}`).join('\n');
    const { app } = await ask(bash(long));
    await app.waitForText('Bash asks to run:');
    expect(app.frame()).toContain('echo line-40');
    expect(app.frame()).toContain('37 more lines (the full command is printed above)');
  });
});
// Mutation: a digit that decides at once again (approvalKey returning decisionFor for a digit) fails 'a digit only
// selects' (a decision after '2' alone, and the hooks' '1' remembering them for good).
