// Finding the shell the Bash tool runs commands with, and killing process groups.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** First executable named `name` on PATH, or undefined. */
export function findOnPath(name: string, pathVar = process.env['PATH'] ?? ''): string | undefined {
  for (const dir of pathVar.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

let cachedShell: string | undefined;

/** bash when installed, else sh. */
export function defaultShell(): string {
  cachedShell ??= findOnPath('bash') ?? '/bin/sh';
  return cachedShell;
}

/** Signals a whole process group; false when it no longer exists. */
export function killGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

// Commands run in their own process groups, which Node does not kill on exit: do it here.
const liveGroups = new Set<number>();
let exitHookInstalled = false;

export function trackGroup(pgid: number): () => void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const g of liveGroups) killGroup(g, 'SIGKILL');
    });
  }
  liveGroups.add(pgid);
  return () => liveGroups.delete(pgid);
}
