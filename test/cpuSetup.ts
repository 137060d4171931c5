import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { afterAll } from 'vitest';

// Setup file of every project (vitest.config.ts). With AGENT_TEST_CPU=<file> set, appends one
// line per test file to that file: its project, the worker's pid, its path, wall seconds and CPU seconds (user, sys),
// counting the worker's own CPU from the moment the file starts loading (its imports included)
// to its end, and the processes it started and waited for (a spawned agent, git, a shell); then
// the same CPU split by where it ran: the worker's main thread, its other threads (V8's compiler
// and GC helpers, libuv's pool) and its children. The worker's per-file durations vitest prints
// are wall time, which on a shared 2-core machine says how busy the machine was; the suite's
// budget is CPU (docs/build.md, "where the time goes"). With AGENT_TEST_PROFILE=<dir> set, each
// file's main thread is sampled too (the inspector's profiler, 1 ms), written to
// <dir>/<project>-<file>.cpuprofile for Chrome's DevTools or a script to rank by function.
const target = process.env['AGENT_TEST_CPU'];
const profileDir = process.env['AGENT_TEST_PROFILE'];

/** CPU in clock ticks (100 a second on Linux) of a /proc stat line: user and sys, then its waited-for children's. */
function ticksOf(stat: string): number[] {
  // fields after the command's closing parenthesis: state is field 3, utime 14 … cstime 17
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields.slice(11, 15).map(Number);
}

/** This process's ticks (user, sys, children's user, children's sys) and its main thread's (user + sys). */
function ticks(): { all: number[]; main: number } {
  const [u, s] = ticksOf(readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8'));
  return { all: ticksOf(readFileSync('/proc/self/stat', 'utf8')), main: u! + s! };
}

if (target) {
  const start = ticks();
  const wall = performance.now();
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a hook's first parameter as its fixtures, which must be a pattern
  afterAll(({}, file) => {
    const end = ticks();
    const [u, s, cu, cs] = end.all.map((t, i) => (t - start.all[i]!) / 100);
    const round = (n: number): number => Math.round(n * 100) / 100;
    const main = (end.main - start.main) / 100;
    const line = {
      project: file.file.projectName,
      pid: process.pid,
      file: file.file.name,
      wall: round((performance.now() - wall) / 1000),
      user: round(u! + cu!),
      sys: round(s! + cs!),
      main: round(main),
      threads: round(u! + s! - main),
      children: round(cu! + cs!),
    };
    appendFileSync(target, `${JSON.stringify(line)}\n`);
  });
}

if (profileDir) {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 1_000 });
  await session.post('Profiler.start');
  // biome-ignore lint/correctness/noEmptyPattern: as above
  afterAll(async ({}, file) => {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    writeFileSync(join(profileDir, `${file.file.projectName}-${file.file.name.replace(/\//g, '_')}.cpuprofile`), JSON.stringify(profile));
  });
}
