import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll } from 'vitest';

// Setup file of every project (vitest.config.ts). With AGENT_TEST_CPU=<file> set, appends one
// line per test file to that file: its project, path, wall seconds and CPU seconds (user, sys),
// counting the worker's own CPU from the moment the file starts loading (its imports included)
// to its end, and the processes it started and waited for (a spawned agent, git, a shell). The
// worker's per-file durations vitest prints are wall time, which on a shared 2-core machine says
// how busy the machine was; the suite's budget is CPU (docs/build.md, "where the time goes").
const target = process.env['AGENT_TEST_CPU'];

/** This process's CPU in clock ticks (100 a second on Linux): its own user and sys, then its waited-for children's. */
function ticks(): number[] {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // fields after the command's closing parenthesis: state is field 3, utime 14 … cstime 17
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields.slice(11, 15).map(Number);
}

if (target) {
  const start = ticks();
  const wall = performance.now();
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a hook's first parameter as its fixtures, which must be a pattern
  afterAll(({}, file) => {
    const [u, s, cu, cs] = ticks().map((t, i) => (t - start[i]!) / 100);
    const round = (n: number): number => Math.round(n * 100) / 100;
    const line = {
      project: file.file.projectName,
      file: file.file.name,
      wall: round((performance.now() - wall) / 1000),
      user: round(u! + cu!),
      sys: round(s! + cs!),
    };
    appendFileSync(target, `${JSON.stringify(line)}\n`);
  });
}
