// The process groups this program started: one registry for every child that runs on its own
// (a Bash command, a hook, an MCP stdio server; later a background shell), so that whatever
// ends the program — its own exit, or SIGTERM, SIGHUP, SIGINT (signals.ts) — ends them first.
// Each child is spawned detached, the leader of its own group, so one signal to the group
// reaches its whole tree (a `sleep` a command started, the node an `npx` server runs).
// What it owns: the list of live groups and how a group is stopped (SIGTERM, then SIGKILL after
// a grace period, for whatever is left). What it never does: start a process, or decide when
// one child should stop (its owner does: a timeout, an interrupt, a closed connection).

export type GroupKind = 'bash' | 'hook' | 'mcp';

export interface ChildGroup {
  /** The group's id: the pid of its leader. */
  pgid: number;
  kind: GroupKind;
  /** What runs, for a list (the command, the hook, the server's name). */
  label: string;
  startedAt: number;
  /** Its leader exited, its owner let it go, and members it started were still running then. */
  leaderGone?: boolean;
}

const groups = new Map<number, ChildGroup>();
let exitHookInstalled = false;

/**
 * Adds a group; the returned function removes it when its owner saw its leader end, unless members
 * remain, or at once with `leaveRunning` (the owner lets the group outlive the program).
 */
export function trackGroup(pgid: number, kind: GroupKind, label: string): (leaveRunning?: boolean) => void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // the last word, whatever path the exit took: nothing the program started outlives it
    process.once('exit', () => {
      for (const g of groups.values()) killGroup(g.pgid, 'SIGKILL');
    });
  }
  // groups kept after their leader exited that have emptied since
  for (const g of groups.values()) if (g.leaderGone && !killGroup(g.pgid, 0)) groups.delete(g.pgid);
  const entry: ChildGroup = { pgid, kind, label, startedAt: Date.now() };
  groups.set(pgid, entry);
  return (leaveRunning = false) => {
    if (groups.get(pgid) !== entry) return;
    // what the leader left running (`server &` in a command) is still this group: it is stopped
    // with the others when the program ends, not forgotten with its leader; unless the owner
    // leaves the group running past the program's end (a detached background command)
    if (!leaveRunning && killGroup(pgid, 0)) entry.leaderGone = true;
    else groups.delete(pgid);
  };
}

/** The groups running now, oldest first. */
export function childGroups(): ChildGroup[] {
  return [...groups.values()];
}

/** Signals a whole process group; false when it no longer exists. */
export function killGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

// Not unref'd: whoever awaits a stop (KillShell in print mode, where nothing else may hold the
// event loop) must see it resolve, not the program end first with 0. The wait is bounded by the grace.
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Stops one group: SIGTERM to all of it, SIGKILL after `graceMs` to whatever is left. Resolves
 * when no member is left (a member that is a zombie of ours counts until Node reaps it, which it
 * does as the event loop turns) or right after the SIGKILL.
 */
export async function stopGroup(pgid: number, graceMs: number): Promise<void> {
  if (!killGroup(pgid, 'SIGTERM')) return;
  for (let waited = 0; waited < graceMs; waited += 25) {
    await sleep(25);
    if (!killGroup(pgid, 0)) return;
  }
  killGroup(pgid, 'SIGKILL');
}

/** Stops every tracked group at once (see stopGroup); each is forgotten once stopped. */
export async function stopAllGroups(graceMs: number): Promise<void> {
  const all = childGroups();
  await Promise.all(all.map((g) => stopGroup(g.pgid, graceMs)));
  for (const g of all) if (groups.get(g.pgid) === g) groups.delete(g.pgid);
}

/** SIGKILL to every tracked group, now (a second signal: no more waiting). */
export function killAllGroups(): void {
  for (const g of groups.values()) killGroup(g.pgid, 'SIGKILL');
}
