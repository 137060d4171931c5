// What the two terminals the end-to-end tests drive (tmux.ts: a real one; terminal.ts: an
// in-process one) wait for on their screens, written once for both.

/** A terminal whose screen can be read and which takes named keys. */
export interface Screen {
  /** The visible screen plus the last `history` lines of scrollback. */
  screen(history?: number): string;
  keys(...names: string[]): void;
  /** Resolves once everything the program wrote so far shows on the screen. */
  settle?(): Promise<void>;
  /** What else a wait that timed out should say (the in-process terminal: when the program last wrote). */
  state?(): string;
}

/** What the shell (or the in-process terminal) prints on the screen after the program ends. */
export const EXITED = /\[exited with (\d+)\]/;

/** Waits until the screen matches; throws with the screen when it does not in time. */
export async function waitForScreen(term: Screen, pattern: RegExp | string, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    // the terminal's own settling is bounded by the wait's deadline too: a settle that never came
    // (the headless terminal's write callback) hung a test to vitest's bound with no screen shown
    const settled = term.settle?.();
    if (settled) {
      await new Promise<void>((r) => {
        const late = setTimeout(r, Math.max(0, deadline - Date.now()));
        void settled.then(() => (clearTimeout(late), r()));
      });
    }
    last = term.screen();
    if (typeof pattern === 'string' ? last.includes(pattern) : pattern.test(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${String(pattern)}${term.state ? ` (${term.state()})` : ''}; screen:\n${last}`);
}

/** Waits for the program to exit and returns its exit code. */
export async function waitForExit(term: Screen, timeoutMs = 10_000): Promise<number> {
  const screen = await waitForScreen(term, EXITED, timeoutMs);
  return Number(EXITED.exec(screen)![1]);
}

/**
 * Exits as a person does, with Ctrl-C twice: the second press once the first one's hint shows.
 * The first press waits until no work runs: an answer's text can show before its turn has ended,
 * and a Ctrl-C then interrupts the turn instead of arming the exit. On a loaded machine the second
 * press can reach the program after the hint's two seconds, where it only arms the exit again;
 * then the program is still at its prompt and one more press ends it. A program that shows no
 * hint, or never exits, still fails here.
 */
export async function exitWithCtrlC(term: Screen, scale = 1): Promise<number> {
  for (let attempt = 0; attempt < 3; attempt++) {
    await waitForIdle(term, 15_000 * scale);
    term.keys('C-c');
    const armed = await waitForScreen(term, new RegExp(`Press Ctrl-C again to exit|${EXITED.source}`), 15_000 * scale);
    const exited = EXITED.exec(armed);
    if (exited) return Number(exited[1]);
    term.keys('C-c');
    try {
      return await waitForExit(term, 10_000 * scale);
    } catch (err) {
      // still running: try again only if it is back at its prompt, waiting for the press it missed
      if (!/Ask for a change|❯/.test(term.screen(0))) throw err;
    }
  }
  throw new Error(`Ctrl-C twice did not exit three times; screen:\n${term.screen()}`);
}

/** Waits until the screen shows no running work (its activity line says "esc to interrupt"). */
export async function waitForIdle(term: Screen, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await term.settle?.();
    const screen = term.screen(0);
    if (!screen.includes('esc to interrupt')) return;
    if (Date.now() > deadline) throw new Error(`the program was still working; screen:\n${screen}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * What both terminals offer on top of their screen and keys: the waits above, as methods, their
 * bounds multiplied by `scale` (the in-process terminal's are twice tmux's: the program shares the
 * test's thread with the fake server and the emulator, so on a loaded machine it gets a smaller
 * share of the CPU than a process of its own does; a FileRead took 4.6 s under a load of 16 on 2 cores).
 */
export abstract class ScreenDriver implements Screen {
  abstract screen(history?: number): string;
  abstract keys(...names: string[]): void;

  constructor(private readonly scale = 1) {}

  /** Waits until the screen matches; throws with the screen when it does not in time. */
  waitFor(pattern: RegExp | string, timeoutMs = 15_000 * this.scale): Promise<string> {
    return waitForScreen(this, pattern, timeoutMs);
  }

  /** Waits for the program to exit and returns its exit code. */
  waitForExit(timeoutMs = 10_000 * this.scale): Promise<number> {
    return waitForExit(this, timeoutMs);
  }

  /** Exits as a person does, with Ctrl-C twice (see exitWithCtrlC above). */
  exitWithCtrlC(): Promise<number> {
    return exitWithCtrlC(this, this.scale);
  }
}
