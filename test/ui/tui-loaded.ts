import { loadTui } from '../../src/ui/load.js';
import { FakeStdin, SizedStdout } from './fakes.js';

// What the files that run the whole TUI through runTui share (each in fresh modules, as the
// environment Ink is first loaded in decides how it draws): the loading, and the streams.

/** runTui, loaded the way the agent loads it, with `env` set while Ink is first imported and put back after. */
export async function loadRunTui(env: Record<string, string>): Promise<Awaited<ReturnType<typeof loadTui>>['runTui']> {
  const before = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    return (await loadTui()).runTui;
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** An 80×24 terminal's streams for runTui, and the fakes behind them. */
export function tuiStreams() {
  const stdin = new FakeStdin();
  const stdout = new SizedStdout(80, 24);
  const stderr = new SizedStdout(80, 24);
  const io = {
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: stderr as unknown as NodeJS.WriteStream,
    patchConsole: false,
  };
  return { stdin, stdout, io };
}
