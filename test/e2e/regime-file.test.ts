import { expect, it } from 'vitest';
import { MODEL } from './harness.js';
import { regimeMark, regimeUseSince } from './regime.js';

// Both regimes: it tests the regime mark itself, which means something only where both regimes run.
// A file that reads MODEL.anthropic outside its tests (here, while it is collected) has used the
// suite's model in every test it holds, and in no other file's: the e2e files of a worker share
// the regime module (isolate: false), and the next file's regime-free tests must still pass.
const model = MODEL.anthropic;

it('counts a read outside the tests for this file’s tests, and not for the next file its worker runs', () => {
  expect(regimeUseSince(regimeMark())).toEqual([`MODEL.anthropic (${model})`]);
  // mutation: one flag for the whole module again (regime.ts) → every later file's regime-free tests fail
  expect(regimeUseSince(regimeMark(), '/elsewhere/another.test.ts')).toEqual([]);
});
