import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { emptyUsage } from '../../src/llm/messages.js';
import { computeDiff, formatUnified } from '../../src/tools/fileDiff.js';
import type { ApprovalDecision, ApprovalRequest } from '../../src/tools/permissions.js';
import { SPINNER } from '../../src/ui/components/LiveRegion.js';
import { FakeController, KEYS, renderApp, renderAppSized, session, tick, waitFor } from './helpers.js';

afterEach(() => cleanup());

const before = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
const after = before.replace('line 10\n', 'line ten\n').replace('line 50\n', 'line fifty\nline fifty-one\n');

const edit = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  toolName: 'Edit',
  toolUseId: 'tu-edit',
  input: { path: 'src/a.ts' },
  summary: 'src/a.ts',
  diff: computeDiff('src/a.ts', before, after),
  ...over,
});

function ask(req: ApprovalRequest, c = new FakeController(), rows?: number) {
  const app = rows ? renderAppSized(c, 100, rows) : renderApp(c);
  const decisions: ApprovalDecision[] = [];
  c.emit(
    { type: 'turn_start', turnId: 't' },
    { type: 'tool_start', id: req.toolUseId, name: req.toolName, input: req.input, summary: req.summary },
    { type: 'approval', request: req, respond: (d) => decisions.push(d) },
  );
  return { c, app, decisions };
}

describe('the approval prompt for an edit', () => {
  it('shows the file, +N −M and a numbered diff, and offers apply once / accept edits / deny / deny and stop', async () => {
    const { app, decisions } = ask(edit());
    await app.waitForText('Edit wants to change src/a.ts');
    const f = app.frame();
    expect(f).toContain('+3 −2');
    expect(f).toMatch(/10\s+- line 10/);
    expect(f).toMatch(/10\s+\+ line ten/);
    expect(f).toContain('❯ 1. Apply once');
    expect(f).toContain('2. Apply, and accept edits for the rest of the session');
    expect(f).toContain('3. Deny, and tell the model why');
    expect(f).toContain('4. Deny, and stop the turn');
    await app.press('2', KEYS.enter);
    expect(decisions).toEqual([{ kind: 'accept_edits' }]);
  });

  it('a change outside the working directory says so and offers no "accept edits"', async () => {
    const { app, decisions } = ask(edit({ outsideCwd: true }));
    await app.waitForText('outside the working directory');
    expect(app.frame()).not.toContain('accept edits');
    await app.press(KEYS.enter);
    expect(decisions).toEqual([{ kind: 'allow_once' }]);
  });

  it('a diff taller than the screen is trimmed and scrolls with PgDn/PgUp', async () => {
    const big = Array.from({ length: 80 }, (_, i) => `row ${i + 1}`).join('\n') + '\n';
    const req = edit({ diff: computeDiff('big.txt', undefined, big) });
    const { app } = ask(req, new FakeController(), 30);
    await app.waitForText('Edit wants to create big.txt');
    expect(app.frame()).toContain('+ row 1');
    expect(app.frame()).not.toContain('+ row 40');
    expect(app.frame()).toMatch(/↓ \d+ more lines/);
    expect(app.frame()).toContain('pgup/pgdn, home/end: scroll the diff');
    await app.press('\u001b[6~');
    await app.waitForText('↑');
    expect(app.frame()).not.toContain('+ row 1\n');
    await app.press('\u001b[5~');
    await app.waitForText('+ row 1');
  });

  it('while waiting for the answer one spinner shows, and the tool row has no clock', async () => {
    const { app } = ask(edit());
    await app.waitForText('Waiting for your answer');
    await tick(300);
    const f = app.frame();
    expect(f).toContain('waiting for your answer');
    const spinners = [...f].filter((ch) => SPINNER.includes(ch)).length;
    expect(spinners).toBe(1);
  });

  it("the tool's clock starts when the person answers, not when it asked", async () => {
    const { c, app } = ask({ toolName: 'Bash', toolUseId: 'b1', input: { command: 'sleep 9' }, summary: 'sleep 9', suggestedPrefix: 'sleep' });
    await app.waitForText('Bash wants to run');
    await tick(2200);
    await app.press(KEYS.enter);
    await tick(150);
    // elapsed shown for the running tool is under 2 s (it would be ≥ 2 s counted from the question)
    expect(app.frame()).toMatch(/Bash sleep 9 · [01](\.\d)?s/);
    c.emit({ type: 'turn_end', reason: 'end_turn', steps: 1, usage: emptyUsage(), text: '' });
  });
});

describe('Shift+Tab', () => {
  it('cycles the permission mode, shown in the footer', async () => {
    const c = new FakeController(session({ permissionMode: 'ask' }));
    const app = renderApp(c);
    await app.waitForText('ask before edits and commands');
    await app.press(KEYS.shiftTab);
    await app.waitForText('⏵⏵ accept edits');
    await app.press(KEYS.shiftTab);
    await app.waitForText('read-only (deny)');
    await app.press(KEYS.shiftTab);
    await app.waitForText('ask before edits and commands');
    expect(c.modeCycles).toBe(3);
  });
});

describe('an applied edit in the transcript', () => {
  it('shows path +N −M and the first lines of the diff, Ctrl-O the whole diff', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    const big = Array.from({ length: 30 }, (_, i) => `row ${i + 1}`).join('\n') + '\n';
    const diff = computeDiff('notes.md', undefined, big);
    c.emit(
      { type: 'turn_start', turnId: 't' },
      { type: 'tool_start', id: 'w1', name: 'Write', input: { path: 'notes.md' }, summary: 'notes.md' },
      {
        type: 'tool_end',
        id: 'w1',
        name: 'Write',
        output: { content: `Created notes.md (+30 −0)\n\n${formatUnified(diff)}`, isError: false },
        durationMs: 12,
        status: 'done',
      },
    );
    await app.waitForText('notes.md +30 −0');
    expect(app.frame()).toContain('(new file)');
    expect(app.frame()).toContain('+ row 3');
    expect(app.frame()).not.toContain('+ row 20');
    expect(app.frame()).toMatch(/more diff lines \(ctrl\+o to expand\)/);
    await app.press(KEYS.ctrl('o'));
    await app.waitForText('+ row 30');
  });
});

describe('the /rewind picker', () => {
  const targets = [
    { index: 1, turnId: 'u1', text: 'add a README', createdAt: Date.now() - 60_000, inConversation: false, files: ['README.md'] },
    { index: 2, turnId: 'u2', text: 'rename foo to bar', createdAt: Date.now() - 1_000, inConversation: true, files: ['src/a.ts'] },
  ];
  it('lists turns, warns that Bash cannot be rewound, and submits the choice (the request comes back into the prompt)', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'command_output', command: '/rewind', output: { kind: 'rewind', targets } });
    await app.waitForText('Rewind to before which turn?');
    expect(app.frame()).toContain('cannot be rewound');
    expect(app.frame()).toContain('❯ 2. rename foo to bar');
    await app.press(KEYS.enter);
    await app.waitForText('1. Code and conversation');
    await app.press(KEYS.enter);
    await waitFor(() => c.submitted.length === 1);
    expect(c.submitted).toEqual(['/rewind 2 both']);
    await app.waitForText('rename foo to bar');
  });

  it('a compacted turn offers only its code', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'command_output', command: '/rewind', output: { kind: 'rewind', targets } });
    await app.waitForText('Rewind to before which turn?');
    await app.press(KEYS.up, KEYS.enter);
    await app.waitForText('not available: this turn was compacted');
    await app.press('1', KEYS.enter);
    expect(c.submitted).toEqual([]);
    // a digit selects, Enter rewinds (issue 30: a digit used to rewind at once)
    await app.press('3');
    await app.waitForText('❯ 3. Code only');
    expect(c.submitted).toEqual([]);
    await app.press(KEYS.enter);
    await waitFor(() => c.submitted.length === 1);
    expect(c.submitted).toEqual(['/rewind 1 code']);
  });
});
