// Print mode's end: background commands still running after the result get a few seconds to end
// on their own, then are stopped (the whole group: SIGTERM, SIGKILL after the grace period), with
// a note on stderr naming them, so that a -p run never leaves a process behind.
import type { BackgroundCommands } from './commands.js';

/** How long running background commands get after the result before they are stopped (ms). */
export const PRINT_LINGER_MS = 2_000;

export async function stopAfterPrint(commands: BackgroundCommands, note: (text: string) => void, lingerMs = PRINT_LINGER_MS): Promise<void> {
  if (commands.running().length === 0) return;
  const deadline = Date.now() + lingerMs;
  while (commands.running().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const left = commands.running();
  if (left.length === 0) return;
  const names = left.map((r) => `${r.id} \`${r.command.length > 60 ? `${r.command.slice(0, 59)}…` : r.command}\``).join(', ');
  note(`agent: stopping ${left.length === 1 ? 'the background command' : `${left.length} background commands`} still running: ${names}\n`);
  await commands.stopAll();
}
