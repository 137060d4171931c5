// A wrap made ahead of the command that uses it. Wrapping a command costs more than running a small
// one: the library resolves the shell with `which` and scans the project with ripgrep for nested
// .git/hooks and the like, on every wrap, from this (large) process. So when a command ends, the
// next one's wrap is made while the model thinks: the wrap of a fixed command that runs the real
// one from its environment (runFromEnv: every wrap is one), under an id of its own that the real
// command's violations are then looked up by. It is used once, like any wrap.
// It is good only while nothing it was made from changed, so that it bounds the command exactly as
// a fresh wrap would: the same settings, placement and shell, and the same names in the
// directories the library looked at — the project to the depth of its scan and the folders of the
// paths it denies (sandboxFingerprint, folder stamps shared with the checkpoints: tools/folderStamps.ts). A name added, removed or renamed changes its directory's
// mtime. Anything else: it is thrown away and the command is wrapped as it comes.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FolderStamps } from '../tools/folderStamps.js';

/** The variable a wrap reads its command from (unset before the command runs). */
export const COMMAND_VARIABLE = 'AGENT_SANDBOX_COMMAND';

/**
 * On Linux the library starts its proxy bridges inside the sandbox (socat listening on 3128 and
 * 1080) in the background and runs the command at once, so a command that connects at once could
 * beat them: curl's "Failed to connect to localhost port 3128", once in some 30 commands on a
 * loaded machine, where the proxy would have refused the host by name. So the command waits until
 * both listen (the sandbox's own /proc/net, read by the shell; polled every 5 ms, at most 2 s, then
 * it runs anyway and meets what it meets).
 */
const BRIDGES_LISTEN =
  'n=0; while [ $n -lt 400 ]; do l=0; for f in /proc/net/tcp /proc/net/tcp6; do [ -r $f ] && while read -r _ a _ s _; do ' +
  'case "$s$a" in 0A*:0C38|0A*:0438) l=$((l+1));; esac; done < $f; done; [ $l -ge 2 ] && break; sleep 0.005; n=$((n+1)); done; unset n l f a s';

/**
 * What every wrap runs: the command from the environment, the variable gone first (expanded
 * before `eval` runs); on Linux with the command's own bridges, once they listen (the session's
 * bridges, bridges.ts, listen before any command runs).
 */
export const runFromEnv = (platform: string, bridgesListen: boolean): string =>
  `${platform === 'linux' && bridgesListen ? `${BRIDGES_LISTEN}; ` : ''}eval "unset ${COMMAND_VARIABLE}; $${COMMAND_VARIABLE}"`;

/** How deep the scan looks is the library's depth in files: a name there is listed by its directory one level up. */
const dirsWithin = (root: string, depth: number): string[] => {
  const out = [root];
  if (depth <= 0) return out;
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return out;
  }
  // node_modules is not scanned (the library's own exclusion)
  for (const e of entries) if (e.isDirectory() && e.name !== 'node_modules') out.push(...dirsWithin(join(root, e.name), depth - 1));
  return out;
};

/**
 * The directories whose names a wrap depends on, stamped when it was made: `project` scanned to
 * `depth` (files; its directories to depth - 1); `denied`: the paths denied outside it (secrets,
 * the trust file), watched through their folders. Writable paths are not watched: one that
 * appears later is only missing from the wrap (less writable, never more).
 */
export const sandboxFingerprint = (project: string, depth: number, denied: readonly string[]): FolderStamps =>
  new FolderStamps([...new Set([...dirsWithin(project, depth - 1), ...denied.map((p) => dirname(p))])]);

/** A wrap waiting for its command. */
export interface PreparedWrap {
  /** The library's id for it: the command's violations are filed under this. */
  id: string;
  readOnly: boolean;
  shell: string;
  cwd: string;
  /** The settings' generation it was made under. */
  generation: number;
  /** Its directories' stamps (changed: it is let go). */
  fingerprint: FolderStamps;
  argv: string[];
  env: Record<string, string>;
}
