// A session resumed from another directory: its tools would run there without a word, so the
// person is told where the session was started and how to go back to it.
import { existsSync } from 'node:fs';

/** Quotes a path for a POSIX shell when it needs it. */
const shellQuote = (p: string): string => (/^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`);

/** The note for a session started in `startedIn`, now opened in `cwd`; null when they are the same. */
export function otherDirectoryNote(id: string, startedIn: string, cwd: string): string | null {
  if (startedIn === cwd) return null;
  const back = existsSync(startedIn)
    ? `To work there again, exit and run: cd ${shellQuote(startedIn)} && agent --resume ${id}`
    : `That directory no longer exists.`;
  return `This session was started in ${startedIn}; its tools now run in ${cwd}. ${back}`;
}
