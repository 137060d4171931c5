import { afterEach, beforeEach } from 'vitest';
import { stopLeftoverAgents } from './harness.js';
import { checkedRegimeBound, noteTestRunning, type RegimeMark, regimeMark } from './regime.js';

// Runs before each e2e file (the setup file of both e2e projects). Its hooks run around the
// file's own: they tell regime.ts when a test of the file runs, and after each test they stop the
// agents it left running (a failed or timed-out test), so that the next test starts clean. In
// the second regime, a test that used nothing the regime changes fails (checkedRegimeBound).
let mark: RegimeMark | undefined;
beforeEach(() => {
  noteTestRunning(true);
  mark = regimeMark();
});
afterEach(async (ctx) => {
  noteTestRunning(false);
  await stopLeftoverAgents();
  // a test that failed keeps its own error; one that skipped itself sent nothing
  const state = ctx.task.result?.state;
  if (mark && state !== 'fail' && state !== 'skip') checkedRegimeBound(ctx.task.name, mark);
});
