import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childGroups, killGroup, stopAllGroups, stopGroup, trackGroup } from '../../src/processes/groups.js';
import { until } from '../support/deadline.js';
import { tempDir } from '../tempDirs.js';

// The registry of process groups the program started: whatever ends the program stops them all
// (signals.ts calls stopAllGroups). A group whose leader exited while members it started run on
// (`npm run dev &` in a command) is still the program's to stop.

const started: number[] = [];
afterEach(() => {
  for (const pgid of started.splice(0)) killGroup(pgid, 'SIGKILL');
});

/** A detached shell that leaves `sleep` running in its group and exits; resolves when the leader has exited. */
async function leaderThatLeaves(script: string): Promise<{ pgid: number; untrack: () => void }> {
  const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  const pgid = child.pid!;
  started.push(pgid);
  const untrack = trackGroup(pgid, 'bash', script);
  await new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { pgid, untrack };
}

describe('process groups', () => {
  it('a group whose leader exited with `&` children still running is stopped with the others', async () => {
    const { pgid, untrack } = await leaderThatLeaves('sleep 30 & exit 0');
    // its owner saw the leader end
    untrack();
    expect(killGroup(pgid, 0), 'the `&` child still runs').toBe(true);
    expect(childGroups().map((g) => g.pgid)).toContain(pgid);
    await stopAllGroups(2_000);
    expect(killGroup(pgid, 0), 'the group is gone after stopAllGroups').toBe(false);
    expect(childGroups().map((g) => g.pgid)).not.toContain(pgid);
  });

  it('a group whose leader its owner saw end is only looked at, not signalled: what it left running runs on until the program ends', async () => {
    const file = join(tempDir('agent-groups-'), 'signals');
    const read = (): string => (existsSync(file) ? readFileSync(file, 'utf8') : '');
    // the `&` child notes each signal it gets; the leader exits once the child's traps are set
    const child = `trap 'echo HUP >> ${file}' HUP; trap 'echo USR1 >> ${file}' USR1; echo ready >> ${file}; while :; do sleep 0.05; done`;
    const { pgid, untrack } = await leaderThatLeaves(`sh -c "${child}" & while [ ! -s ${file} ]; do sleep 0.01; done; exit 0`);
    untrack();
    // a signal of the test's own after it: once the child noted it, any signal untrack() sent was noted before
    killGroup(pgid, 'SIGUSR1');
    await until(() => read().includes('USR1'), 'the child noting SIGUSR1');
    // mutation: untrack() probing the group with signal 1 (SIGHUP) instead of 0 hangs up what the command left running
    expect(read()).toBe('ready\nUSR1\n');
  });

  it('a group its owner leaves running past the program (a detached background command) is forgotten while it runs', async () => {
    const child = spawn('sh', ['-c', 'sleep 30'], { detached: true, stdio: 'ignore' });
    const pgid = child.pid!;
    started.push(pgid);
    const untrack = trackGroup(pgid, 'bash', 'sleep 30');
    untrack(true);
    // mutation: untrack ignoring leaveRunning keeps it, and the program's exit would SIGKILL a command the person chose to keep
    expect(childGroups().map((g) => g.pgid)).not.toContain(pgid);
    expect(killGroup(pgid, 0)).toBe(true);
  });

  it('a group kept after its leader exited is forgotten once its members ended too, when the next group is tracked', async () => {
    const { pgid, untrack } = await leaderThatLeaves('sleep 30 & exit 0');
    untrack();
    expect(childGroups().map((g) => g.pgid)).toContain(pgid);
    killGroup(pgid, 'SIGKILL');
    // the state waited for: the group has no member left (the `sleep`, orphaned, is reaped by init)
    for (const deadline = Date.now() + 5_000; killGroup(pgid, 0); ) {
      if (Date.now() > deadline) throw new Error(`group ${pgid} still has members 5 s after SIGKILL`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const next = spawn('sh', ['-c', 'sleep 30'], { detached: true, stdio: 'ignore' });
    started.push(next.pid!);
    const untrackNext = trackGroup(next.pid!, 'bash', 'sleep 30');
    // mutation: the kept group not marked as its leader gone is never looked at again, and stays listed
    expect(childGroups().map((g) => g.pgid)).not.toContain(pgid);
    untrackNext(true);
  });

  it('stopGroup: a group that ignores SIGTERM gets SIGKILL after the grace; one that ends on SIGTERM is not waited for to the grace', async () => {
    // the ignored SIGTERM is inherited by the `sleep` the shell starts
    const ready = join(tempDir('agent-groups-'), 'ready');
    const stubborn = spawn('sh', ['-c', `trap "" TERM; sleep 30 & echo > ${ready}; wait`], { detached: true, stdio: 'ignore' });
    started.push(stubborn.pid!);
    // the trap set and the sleep started before the SIGTERM (sent at once, it would end the shell before its trap)
    await until(() => existsSync(ready), 'the shell starting its sleep');
    await stopGroup(stubborn.pid!, 200);
    // mutation: no SIGKILL after the grace leaves the group running its 30 s
    await until(() => !killGroup(stubborn.pid!, 0), `group ${stubborn.pid} gone after stopGroup`, 3_000);
    const polite = spawn('sh', ['-c', 'sleep 30'], { detached: true, stdio: 'ignore' });
    started.push(polite.pid!);
    await new Promise<void>((resolve) => polite.once('spawn', () => resolve()));
    const t0 = Date.now();
    await stopGroup(polite.pid!, 20_000);
    // mutation: the poll not returning once the group is gone waits the whole 20 s grace
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(killGroup(polite.pid!, 0)).toBe(false);
  });

  it('a group that emptied with its leader is forgotten at once', async () => {
    const { pgid, untrack } = await leaderThatLeaves('exit 0');
    untrack();
    expect(childGroups().map((g) => g.pgid)).not.toContain(pgid);
  });
});

// Mutation checked: untrack deleting the entry whatever remains (as it did) leaves the `sleep` alive
// after stopAllGroups, failing the first case.
