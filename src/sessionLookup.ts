// Which stored session a run continues: a session named by id or prefix (--resume, `sessions
// show`), the latest in this directory (--continue), or a copy of one under a new id (--fork).
// It only finds and copies; opening the session is bootstrap's.
import type { GlobalOptions } from './cliOptions.js';
import { CliError, EXIT_USAGE } from './cliError.js';
import type { Config } from './config/config.js';
import { newId } from './llm/messages.js';
import { isStaleLease, LEASE_STALE_MS } from './session/lease.js';
import { isStoreError, type SessionInfo, type Store } from './store/index.js';

/** A session by id, unique prefix or the short id the footer shows; an ambiguous one is a usage error that says so. */
export function lookUpSession(store: Store, id: string, what: string): SessionInfo | undefined {
  try {
    return store.getSession(id);
  } catch (e) {
    if (isStoreError(e) && e.kind === 'not_found') throw new CliError(`${what}: ${e.message}`, EXIT_USAGE);
    throw e;
  }
}

/** Which stored session --resume <id> / --continue name; undefined for a new session. */
export function findSessionToResume(store: Store, config: Config, opts: GlobalOptions): SessionInfo | undefined {
  if (typeof opts.resume === 'string') {
    const info = lookUpSession(store, opts.resume, '--resume');
    if (!info) throw new CliError(`--resume: no session with id "${opts.resume}" in ${config.dbPath} (list them with \`agent sessions\`)`, EXIT_USAGE);
    return info;
  }
  if (opts.continue) {
    // never a read-only run's copy (one still being read, or one whose run was killed just now)
    const latest = store.latestSession(config.cwd);
    const info = latest?.id.startsWith(COPY_PREFIX) ? store.listSessions({ cwd: config.cwd, limit: 8 }).find((s) => !s.id.startsWith(COPY_PREFIX)) : latest;
    if (!info) throw new CliError(`--continue: no earlier session in ${config.cwd} (start one with \`agent\`)`, EXIT_USAGE);
    return info;
  }
  return undefined;
}

/** --fork: a copy of the stored session under a new id, which this process then continues. */
export function forkSession(store: Store, from: SessionInfo, cwd: string): SessionInfo {
  return store.forkSession(from.id, {
    id: newId('s'),
    cwd,
    provider: from.provider,
    model: from.model,
    ...(from.title ? { title: `${from.title} (fork)` } : {}),
  });
}

/** The id prefix of a read-only run's copy (-p /todos of a session the TUI writes), which no other session has. */
const COPY_PREFIX = 'sview_'; // newId('sview')'s

/** A read-only run's copy of a session another process writes: removed at its close, or at a later start (removeLeftoverCopies) if the run was killed. */
export function readOnlyCopy(store: Store, from: SessionInfo, cwd: string): SessionInfo {
  return store.forkSession(from.id, { id: newId('sview'), cwd, provider: from.provider, model: from.model });
}

/**
 * Copies left by read-only runs that were killed (so `--continue` would take one for the latest
 * session): removed when no live process holds them. A copy without a lease may be one another
 * run has just made and is about to open: it stays until it is older than a stale lease.
 */
export function removeLeftoverCopies(store: Store, now = Date.now()): void {
  for (const id of store.sessionIdsStartingWith(COPY_PREFIX)) {
    const lease = store.getLease(id);
    const stale = lease ? isStaleLease(lease, now) : now - (store.getSession(id)?.createdAt ?? 0) > LEASE_STALE_MS;
    if (stale) store.deleteSession(id);
  }
}
