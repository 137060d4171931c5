// Which stored session a run continues: a session named by id or prefix (--resume, `sessions
// show`), the latest in this directory (--continue), or a copy of one under a new id (--fork).
// It only finds and copies; opening the session is bootstrap's.
import type { GlobalOptions } from './cliOptions.js';
import { CliError, EXIT_USAGE } from './cliError.js';
import type { Config } from './config/config.js';
import { newId } from './llm/messages.js';
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
    const info = store.latestSession(config.cwd);
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
