import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { debug } from '../log.js';
import type { LeaseHolder, Store } from '../store/index.js';

// One writer per session: the process that writes a session holds a lease on it in the
// database (pid, host, heartbeat). A second process is refused while the holder lives; a
// lease left by a process that died (same host, pid gone) or went silent (heartbeat older
// than LEASE_STALE_MS, e.g. another host) is taken over.

export const LEASE_HEARTBEAT_MS = 10_000;
export const LEASE_STALE_MS = 60_000;

export class SessionInUseError extends Error {
  override readonly name = 'SessionInUseError';
  constructor(
    readonly sessionId: string,
    readonly holder: LeaseHolder,
  ) {
    const where = holder.host === hostname() ? '' : ` on ${holder.host}`;
    super(
      `session ${sessionId} is in use by pid ${holder.pid}${where} (another agent is writing it); ` +
        'wait for it to finish, or add --fork to continue it as a new session',
    );
  }
}

/**
 * True when the process exists and runs (EPERM: it exists but belongs to someone else, so it
 * is alive). A zombie — killed, not yet reaped by its parent, as in a container without an init
 * process — still answers kill(pid, 0) but will never write again: it counts as dead.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/** Linux: the state field of /proc/<pid>/stat (after the parenthesised command name) is Z. Elsewhere unknown: false. */
export function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  const state = stat
    .slice(stat.lastIndexOf(')') + 1)
    .trim()
    .charAt(0);
  return state === 'Z' || state === 'X';
}

/** Whether a holder no longer writes: this very process (it may reopen its own session), a dead process on this host, or a silent heartbeat. */
export function isStaleLease(holder: LeaseHolder, now = Date.now(), host = hostname(), staleMs = LEASE_STALE_MS): boolean {
  if (holder.host === host && (holder.pid === process.pid || !processAlive(holder.pid))) return true;
  return now - holder.heartbeatAt > staleMs;
}

export class SessionLease {
  private timer: NodeJS.Timeout | undefined;
  private released = false;
  /** Set when another process took the lease over (this one had gone silent too long). */
  lost = false;

  private constructor(
    private readonly store: Store,
    readonly sessionId: string,
    private readonly token: string,
    private readonly onLost: () => void,
  ) {
    this.timer = setInterval(() => this.renew(), LEASE_HEARTBEAT_MS);
    this.timer.unref?.();
  }

  /** Takes the lease or throws SessionInUseError naming the live holder. */
  static acquire(store: Store, sessionId: string, onLost: () => void = () => undefined): SessionLease {
    const token = randomBytes(12).toString('hex');
    const result = store.acquireLease(sessionId, { token, pid: process.pid, host: hostname() }, (h) => isStaleLease(h));
    if (!result.acquired) throw new SessionInUseError(sessionId, result.holder);
    if (result.tookOver && result.tookOver.pid !== process.pid) {
      debug('took over a stale session lease', { session: sessionId, pid: result.tookOver.pid, host: result.tookOver.host });
    }
    return new SessionLease(store, sessionId, token, onLost);
  }

  private renew(): void {
    if (this.released || this.lost) return;
    try {
      if (this.store.renewLease(this.sessionId, this.token)) return;
    } catch (e) {
      debug('lease heartbeat failed', { session: this.sessionId, error: (e as Error).message });
      return;
    }
    this.lost = true;
    this.stop();
    this.onLost();
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.stop();
    try {
      this.store.releaseLease(this.sessionId, this.token);
    } catch (e) {
      debug('lease release failed', { session: this.sessionId, error: (e as Error).message });
    }
  }
}
