// The end of a run with background commands still running. Print mode gives them a few seconds to
// end on their own, then stops them (the whole group: SIGTERM, SIGKILL after the grace period),
// with a note on stderr naming them, so that a -p run leaves no process behind — unless
// --keep-background: then they are left running, detached (see BackgroundJob.detach), and the note
// names their pids. The TUI asks which of the two at its exit (exitQuestion.ts).
import type { BackgroundCommands, RunningCommand } from './commands.js';

/** How long running background commands get after the result before they are stopped (ms). */
export const PRINT_LINGER_MS = 2_000;

export async function stopAfterPrint(commands: BackgroundCommands, note: (text: string) => void, lingerMs = PRINT_LINGER_MS): Promise<void> {
  if (commands.running().length === 0) return;
  const deadline = Date.now() + lingerMs;
  while (commands.running().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const left = commands.running();
  if (left.length === 0) return;
  const names = left.map((r) => `${r.id} \`${short(r.command)}\``).join(', ');
  note(`agent: stopping ${left.length === 1 ? 'the background command' : `${left.length} background commands`} still running: ${names}\n`);
  await commands.stopAll();
}

const short = (command: string): string => (command.length > 60 ? `${command.slice(0, 59)}…` : command);

/** What was left running: "2 background commands left running (detached): b1 `npm run dev` (pid 123), …". */
export function leftRunningText(left: readonly RunningCommand[]): string {
  const names = left.map((r) => `${r.id} \`${short(r.command)}\` (pid ${r.pid})`).join(', ');
  return (
    `${left.length === 1 ? 'the background command' : `${left.length} background commands`} left running (detached): ${names}; ` +
    `their output is no longer archived; stop ${left.length === 1 ? 'it' : 'them'} with kill -TERM ${left.map((r) => `-${r.pid}`).join(' ')} (${left.length === 1 ? 'its whole process group' : 'their whole process groups'})`
  );
}

/** --keep-background: the commands still running are detached and named on stderr with their pids. */
export function keepAfterPrint(commands: BackgroundCommands, note: (text: string) => void): void {
  const left = commands.detachAll();
  if (left.length > 0) note(`agent: ${leftRunningText(left)}\n`);
}
