// The TUI's exit with background commands still running: once its screen is gone, it asks whether
// to stop them (the default: Enter stops them, their whole groups, SIGTERM then SIGKILL after the
// grace period) or to leave them running, detached, named with their pids. A signal's exit does
// not ask: every group is stopped (processes/signals.ts).
import { world } from '../runtime/world.js';
import { createInterface } from 'node:readline/promises';
import type { BackgroundCommands } from './commands.js';
import { leftRunningText } from './printEnd.js';

export async function askAboutBackground(
  commands: BackgroundCommands,
  io: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream } = { input: world().stdin, output: world().stdout },
): Promise<void> {
  const running = commands.running();
  if (running.length === 0) return;
  const say = (text: string): void => void io.output.write(`${text}\n`);
  const names = running.map((r) => `  ${r.id}  pid ${r.pid}  ${r.command.replace(/\s+/g, ' ').trim()}`);
  say(`\n${running.length === 1 ? 'A background command is' : `${running.length} background commands are`} still running:\n${names.join('\n')}`);
  // the app let go of the terminal's input (Ink unrefs it when it ends): hold it again while asking
  (io.input as { ref?: () => void }).ref?.();
  const rl = createInterface({ input: io.input, output: io.output, terminal: false });
  let answer = '';
  try {
    answer = (await rl.question(`Stop ${running.length === 1 ? 'it' : 'them'}? [Y/n] `)).trim().toLowerCase();
  } catch {
    // the input closed: the default
  } finally {
    rl.close();
    (io.input as { unref?: () => void }).unref?.();
  }
  if (answer === 'n' || answer === 'no') {
    const left = commands.detachAll();
    say(`${leftRunningText(left).replace(/^./, (c) => c.toUpperCase())}.`);
    return;
  }
  // the groups are awaited on unref'd timers: hold the program open until they are gone
  const hold = setInterval(() => undefined, 1_000);
  const n = await commands.stopAll().finally(() => clearInterval(hold));
  say(`Stopped ${n} background ${n === 1 ? 'command' : 'commands'}.`);
}
