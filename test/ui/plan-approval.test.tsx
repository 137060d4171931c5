import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { ApprovalDecision, ApprovalRequest } from '../../src/tools/permissions.js';
import { FakeController, KEYS, renderApp } from './helpers.js';

afterEach(() => cleanup());

const PLAN = '## Plan\n1. Change the port.\n2. Run the tests.';
const planRequest: ApprovalRequest = { toolName: 'ExitPlanMode', toolUseId: 'tu1', input: { plan: PLAN }, summary: PLAN, plan: PLAN };

async function ask() {
  const c = new FakeController();
  const app = renderApp(c);
  const decisions: ApprovalDecision[] = [];
  c.emit({ type: 'turn_start', turnId: 't' }, { type: 'approval', request: planRequest, respond: (d) => decisions.push(d) });
  await app.waitForText('presents its plan');
  return { app, decisions };
}

describe('a plan presented for approval (ExitPlanMode)', () => {
  it('shows the plan and its three choices; Enter approves (edits still ask)', async () => {
    const { app, decisions } = await ask();
    const f = app.frame();
    expect(f).toContain('1. Change the port.');
    expect(f).toContain('❯ 1. Approve the plan; edits and commands still ask');
    expect(f).toContain('2. Approve the plan, and accept edits for the rest of the session');
    expect(f).toContain('3. Keep planning, and tell the model what to change');
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
});
// Mutations that fail this: the plan options not returned for a plan request (Bash's four appear), accept_edits mapped to once.
