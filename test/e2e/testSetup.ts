import { afterEach, beforeEach } from 'vitest';
import { stopLeftoverAgents } from './harness.js';
import { noteTestRunning } from './regime.js';

// Runs before each e2e file (the setup file of both e2e projects). Its hooks run around the
// file's own: they tell regime.ts when a test of the file runs, and after each test they stop the
// agents it left running (a failed or timed-out test), so that the next test starts clean.
beforeEach(() => noteTestRunning(true));
afterEach(async () => {
  noteTestRunning(false);
  await stopLeftoverAgents();
});
