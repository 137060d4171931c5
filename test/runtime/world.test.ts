import type { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { handleClosedStdout, onClosedStdout } from '../../src/closedPipe.js';
import { debugEnabled, enableDebugLog, redact, registerSecret } from '../../src/log.js';
import { childGroups, trackGroup } from '../../src/processes/groups.js';
import { terminatingSignal, onTerminatingSignals } from '../../src/processes/signals.js';
import { homeDir, inWorld, processWorld, world, type World } from '../../src/runtime/world.js';
import { tempDir } from '../tempDirs.js';
import { testWorld } from '../worlds.js';

// Issue 50: two runs in one process (the in-process test harness) each have their own world, and
// what was process-wide state (the log's secrets and debug file, the
// process groups, the signal state, the closed-pipe handler) is the run's own.

describe('a run’s world', () => {
  it('is the one main entered, through awaits, and the process’s outside any run', async () => {
    const a = testWorld({ HOME: '/home/a' });
    expect(world()).toBe(processWorld());
    await inWorld(a, async () => {
      await new Promise((r) => setTimeout(r, 1));
      expect(world()).toBe(a);
      expect(homeDir()).toBe('/home/a');
    });
    expect(world()).toBe(processWorld());
  });

  it("the process's world runs what is to run at the process's exit, and lets go of it when told", () => {
    const last = (): void => undefined;
    const off = processWorld().onExit(last);
    // mutation: onExit registering nothing leaves the groups' SIGKILL at the exit (groups.ts) unrun
    expect(process.listeners('exit')).toContain(last);
    off();
    expect(process.listeners('exit')).not.toContain(last);
  });

  it('keeps a run’s secrets, debug log, groups and closed-pipe handler from another run', () => {
    const a = testWorld();
    const b = testWorld();
    const secret = 'hunter2-but-longer-than-eight';
    const log = `${tempDir('agent-world-')}/debug.log`;
    inWorld(a, () => {
      registerSecret(secret);
      enableDebugLog(log);
      trackGroup(999_999, 'bash', 'sleep 1');
      onClosedStdout(() => {});
    });
    inWorld(b, () => {
      expect(redact(`key ${secret}`)).toBe(`key ${secret}`);
      expect(debugEnabled()).toBe(false);
      expect(childGroups()).toEqual([]);
      expect(handleClosedStdout()).toBe(false);
    });
    inWorld(a, () => {
      expect(redact(`key ${secret}`)).toBe('key [redacted]');
      expect(debugEnabled()).toBe(true);
      expect(childGroups().map((g) => g.pgid)).toEqual([999_999]);
      expect(handleClosedStdout()).toBe(true);
    });
  });

  it('hears signals from its own source only, and handles them in its own world', async () => {
    const a = testWorld();
    const b = testWorld();
    let shutdownIn: World | undefined;
    const off = inWorld(a, () =>
      onTerminatingSignals(['SIGTERM'], () => {
        shutdownIn = world();
      }),
    );
    (b.signals as EventEmitter).emit('SIGTERM', 'SIGTERM');
    expect(shutdownIn).toBeUndefined();
    (a.signals as EventEmitter).emit('SIGTERM', 'SIGTERM');
    expect(shutdownIn).toBe(a);
    await new Promise((r) => setTimeout(r, 50));
    expect(a.exits).toEqual([143]);
    expect(inWorld(a, terminatingSignal)).toBe('SIGTERM');
    expect(inWorld(b, terminatingSignal)).toBeUndefined();
    off();
  });
  // mutations: slot() keeping one map for every world (runtime/world.ts), or onTerminatingSignals
  // listening on process instead of its world's signals, fail these tests
});
