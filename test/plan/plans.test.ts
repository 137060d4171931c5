import { describe, expect, it } from 'vitest';
import { approvalResult, approvalsIn, approvedPlan, plansIn } from '../../src/plan/plans.js';
import { TOOL } from '../../src/tools/toolNames.js';
import { assistant, results, user } from '../compaction/helpers.js';

// The approved plan derived from the log (plan/plans.ts): what /plan show, the ledger and print
// mode read. The TUI's approval runs in test/ui/plan-approval.test.tsx, end to end in
// test/e2e/plan.test.ts.

const present = (id: string, plan: string) => assistant('Here is the plan.', [{ id, name: TOOL.ExitPlanMode, input: { plan } }]);

describe('the approved plan a log holds', () => {
  it('is the text the person approved (their edit included), exactly; a plan sent back is none; the last approval wins', () => {
    const log = [
      user('/plan rename the module'),
      present('p1', '1. rename\n2. fix imports'),
      results([{ id: 'p1', content: 'The user wants changes: keep the old name as an alias', isError: true }]),
      present('p2', '1. rename\n2. alias the old name'),
    ];
    expect(approvedPlan(log)).toBeUndefined();
    const approved = [...log, results([{ id: 'p2', content: approvalResult('1. rename\n2. alias the old name\n3. run the tests', 'default', true) }])];
    expect(approvedPlan(approved)).toEqual({ text: '1. rename\n2. alias the old name\n3. run the tests', id: 'p2' });
    const again = [...approved, present('p3', 'second plan'), results([{ id: 'p3', content: approvalResult('second plan', 'acceptEdits') }])];
    expect(approvedPlan(again)).toEqual({ text: 'second plan', id: 'p3' });
  });

  it('print mode: the plans a reply presents, and the calls a result approved', () => {
    expect(plansIn(present('p1', 'the plan'))).toEqual([{ id: 'p1', plan: 'the plan' }]);
    expect(approvalsIn(results([{ id: 'p1', content: approvalResult('the plan', 'default') }]))).toEqual(['p1']);
    expect(approvalsIn(results([{ id: 'p1', content: 'The user wants changes', isError: true }]))).toEqual([]);
    // only ExitPlanMode calls with a plan: mutation `b.type === 'tool_use' || …` (plans.ts) takes the Read call too
    const mixed = assistant('Reading first.', [
      { id: 'r1', name: TOOL.FileRead, input: { path: 'a.ts' } },
      { id: 'p2', name: TOOL.ExitPlanMode, input: { plan: 7 } },
      { id: 'p3', name: TOOL.ExitPlanMode, input: { plan: 'the real plan' } },
    ]);
    expect(plansIn(mixed)).toEqual([{ id: 'p3', plan: 'the real plan' }]);
    expect(approvalsIn(results([{ id: 'r1', content: 'a.ts: 3 lines' }]))).toEqual([]);
  });
});

// Mutation checked: approvedPlan slicing from the rule (`b.content.slice(at)`: the plan read with
// its "--- approved plan ---" line) fails the first test (the fresh sample of 6 Dec, mutant 7).
