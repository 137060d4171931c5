import { afterEach, describe, expect, it, vi } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { isStaleLease, isZombie, LEASE_HEARTBEAT_MS, LEASE_STALE_MS, processAlive } from '../../src/session/lease.js';

// Whether a lease holder still lives decides between refusing a second writer and taking a
// session over; each answer here guards against one of those going wrong.

const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(code), { code });

let holder: ChildProcess | undefined;
afterEach(() => {
  vi.restoreAllMocks();
  holder?.kill('SIGKILL');
  holder = undefined;
});

describe('lease holder liveness', () => {
  it('counts a process of another user (kill answers EPERM) as alive, so its session is not taken over', () => {
    const kill = vi.spyOn(process, 'kill').mockImplementation(() => {
      throw errno('EPERM');
    });
    expect(processAlive(4242)).toBe(true);
    expect(kill).toHaveBeenCalledWith(4242, 0);
    const lease = { token: 't', pid: 4242, host: hostname(), heartbeatAt: Date.now(), acquiredAt: 0 };
    expect(isStaleLease(lease)).toBe(false);
  });

  it('counts a process that is gone (ESRCH) as dead', () => {
    vi.spyOn(process, 'kill').mockImplementation(() => {
      throw errno('ESRCH');
    });
    expect(processAlive(4242)).toBe(false);
    expect(isStaleLease({ token: 't', pid: 4242, host: hostname(), heartbeatAt: Date.now(), acquiredAt: 0 })).toBe(true);
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    vi.restoreAllMocks();
    expect(processAlive(dead)).toBe(false);
  });

  it.runIf(existsSync('/proc/self/stat'))('counts a zombie (killed, not yet reaped by its parent) as dead', async () => {
    // sh starts a child, then becomes `sleep`, which never reaps it. The child exits only once its
    // parent is `sleep`: one that exited sooner (a loaded machine) could be reaped by sh itself.
    const child = 'p=$$; (while [ "$(cat /proc/$p/comm)" != sleep ]; do sleep 0.01; done) & echo $!; exec sleep 30';
    holder = spawn('sh', ['-c', child], { stdio: ['ignore', 'pipe', 'ignore'] });
    const pid = await new Promise<number>((resolve) => holder!.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
    for (let i = 0; i < 200 && !isZombie(pid); i++) await new Promise((r) => setTimeout(r, 25));
    expect(isZombie(pid)).toBe(true);
    expect(() => process.kill(pid, 0)).not.toThrow(); // what made the old check call it alive
    expect(processAlive(pid)).toBe(false);
    expect(isStaleLease({ token: 't', pid, host: hostname(), heartbeatAt: Date.now(), acquiredAt: 0 })).toBe(true);
    expect(processAlive(holder.pid!)).toBe(true); // the running parent is not a zombie
  });

  it('keeps the stale-heartbeat limit well above the heartbeat interval', () => {
    // A holder renewing on time must never look silent: several missed beats before a takeover.
    expect(LEASE_STALE_MS).toBeGreaterThanOrEqual(3 * LEASE_HEARTBEAT_MS);
    const now = 1_000_000;
    const justBeat = { token: 't', pid: 1, host: 'elsewhere', heartbeatAt: now - LEASE_HEARTBEAT_MS * 2, acquiredAt: 0 };
    expect(isStaleLease(justBeat, now)).toBe(false);
    expect(isStaleLease({ ...justBeat, heartbeatAt: now - LEASE_STALE_MS - 1 }, now)).toBe(true);
  });
});
