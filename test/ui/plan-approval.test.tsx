import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { ApprovalDecision, ApprovalRequest } from '../../src/tools/permissions.js';
import { FakeController, KEYS, renderApp } from './helpers.js';

afterEach(() => cleanup());

const PLAN = '## Plan\n1. Change the port.\n2. Run the tests.';
const planRequest: ApprovalRequest = { toolName: 'ExitPlanMode', toolUseId: 'tu1', input: { plan: PLAN }, summary: PLAN, plan: PLAN };

class EditorController extends FakeController {
  constructor(private readonly editor?: string) {
    super();
  }
  editorEnv(): NodeJS.ProcessEnv {
    return this.editor === undefined ? {} : { PATH: process.env['PATH'] ?? '', EDITOR: this.editor };
  }
}

async function ask(editor?: string) {
  const c = new EditorController(editor);
  const app = renderApp(c);
  const decisions: ApprovalDecision[] = [];
  c.emit({ type: 'turn_start', turnId: 't' }, { type: 'approval', request: planRequest, respond: (d) => decisions.push(d) });
  await app.waitForText('presents its plan');
  return { app, decisions };
}

describe('a plan presented for approval (ExitPlanMode)', () => {
  it('shows the plan and its four choices; Enter approves (edits still ask)', async () => {
    const { app, decisions } = await ask();
    const f = app.frame();
    expect(f).toContain('1. Change the port.');
    expect(f).toContain('❯ 1. Approve the plan; edits and commands still ask');
    expect(f).toContain('2. Approve the plan, and accept edits for the rest of the session');
    expect(f).toContain('3. Keep planning, and tell the model what to change');
    expect(f).toContain('4. Open the plan in your editor first ($VISUAL, $EDITOR or vi), then choose');
    await app.press(KEYS.enter);
    expect(decisions).toEqual([{ kind: 'allow_once' }]);
  });

  it('2 approves with edits accepted; 3 with a note sends the plan back with it', async () => {
    const first = await ask();
    await first.app.press('2', KEYS.enter);
    expect(first.decisions).toEqual([{ kind: 'accept_edits' }]);
    cleanup();
    const second = await ask();
    await second.app.press('3', ...'use 8080'.split(''), KEYS.enter);
    expect(second.decisions).toEqual([{ kind: 'deny', note: 'use 8080' }]);
  });
  it('4 opens the plan in $EDITOR and asks again with the edited plan, which goes with the approval', async () => {
    const { app, decisions } = await ask("sed -i 's/Change the port/Change the port to 8080/'");
    await app.press('4', KEYS.enter);
    await app.waitForText('Your edited plan');
    expect(app.frame()).toContain('1. Change the port to 8080.');
    expect(decisions).toEqual([]);
    await app.press('2', KEYS.enter);
    expect(decisions).toEqual([{ kind: 'accept_edits', plan: '## Plan\n1. Change the port to 8080.\n2. Run the tests.' }]);
  });

  it('an edited plan sent back goes with the note', async () => {
    const { app, decisions } = await ask("sed -i 's/Run the tests/Run every test/'");
    await app.press('4', KEYS.enter);
    await app.waitForText('Your edited plan');
    await app.press('3', ...'and lint'.split(''), KEYS.enter);
    expect(decisions).toEqual([{ kind: 'deny', note: 'and lint', plan: '## Plan\n1. Change the port.\n2. Run every test.' }]);
  });

  it('an editor that cannot be started says so, and the plan is asked again as it was', async () => {
    const { app, decisions } = await ask('/nonexistent/editor-xyz');
    await app.press('4', KEYS.enter);
    await app.waitForText('Could not start the editor "/nonexistent/editor-xyz"');
    expect(app.frame()).toContain('1. Change the port.');
    await app.press('1', KEYS.enter);
    expect(decisions).toEqual([{ kind: 'allow_once' }]);
  });

  it('an editor that changes nothing approves the plan as presented', async () => {
    const { app, decisions } = await ask('true');
    await app.press('4', KEYS.enter);
    await app.waitForText('The plan is unchanged.');
    await app.press('1', KEYS.enter);
    expect(decisions).toEqual([{ kind: 'allow_once' }]);
  });
});
// Mutations that fail this (editor): the fourth choice left out, the edited text not read back (the frame keeps "Change the port."),
// the decision without the edited plan, a failed editor not reported (no "Could not start"), an unchanged plan marked edited.
// Mutations that fail this: the plan options not returned for a plan request (Bash's four appear), accept_edits mapped to once.
