import { execFileSync, spawnSync } from 'node:child_process';

// Drives a program in a real terminal: tmux runs it, send-keys types, capture-pane reads the
// screen. Each instance uses its own tmux server socket, so tests never touch each other.

export const hasTmux = spawnSync('tmux', ['-V']).status === 0;

let counter = 0;

/** What the shell prints on the screen after the program ends (see the constructor). */
const EXITED = /\[exited with (\d+)\]/;

export class Tmux {
  private readonly socket = `agent-e2e-${process.pid}-${++counter}`;
  private readonly target = 'main';

  constructor(opts: { command: string[]; cwd: string; env: NodeJS.ProcessEnv; width?: number; height?: number }) {
    const envArgs = Object.entries(opts.env).flatMap(([k, v]) => (v === undefined ? [] : ['-e', `${k}=${v}`]));
    // the shell prints the exit code after the program, where the screen can be read
    const command = ['sh', '-c', '"$0" "$@"; echo "[exited with $?]"', ...opts.command];
    this.tmux([
      'new-session',
      '-d',
      '-s',
      this.target,
      '-x',
      String(opts.width ?? 100),
      '-y',
      String(opts.height ?? 30),
      '-c',
      opts.cwd,
      ...envArgs,
      ...command,
    ]);
    // keep the pane after the shell exits too, so its last screen can still be read
    this.tmux(['set-option', '-t', this.target, 'remain-on-exit', 'on']);
  }

  private tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  }

  /** Types text literally (no key-name interpretation). */
  type(text: string): void {
    this.tmux(['send-keys', '-t', this.target, '-l', text]);
  }

  /** Pastes text as a terminal does (bracketed, when the program asked for it; line breaks sent as CR). */
  paste(text: string): void {
    execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', 'load-buffer', '-b', 'paste', '-'], { input: text });
    this.tmux(['paste-buffer', '-p', '-d', '-b', 'paste', '-t', this.target]);
  }

  /** Sends named keys: Enter, Escape, C-c, Up, ... */
  keys(...names: string[]): void {
    this.tmux(['send-keys', '-t', this.target, ...names]);
  }

  /** Resizes the window (the program gets SIGWINCH). */
  resize(width: number, height: number): void {
    this.tmux(['resize-window', '-t', this.target, '-x', String(width), '-y', String(height)]);
  }

  /** The visible screen plus scrollback. */
  screen(history = 500): string {
    return this.tmux(['capture-pane', '-p', '-t', this.target, '-S', `-${history}`]);
  }

  /** Waits until the screen matches; throws with the screen when it does not in time. */
  async waitFor(pattern: RegExp | string, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      last = this.screen();
      if (typeof pattern === 'string' ? last.includes(pattern) : pattern.test(last)) return last;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${String(pattern)}; screen:\n${last}`);
  }

  /** Waits for the program to exit and returns its exit code. */
  async waitForExit(timeoutMs = 10_000): Promise<number> {
    const screen = await this.waitFor(EXITED, timeoutMs);
    return Number(EXITED.exec(screen)![1]);
  }

  /**
   * Exits as a person does, with Ctrl-C twice: the second press once the first one's hint shows.
   * On a loaded machine the second press can reach the program after the hint's two seconds,
   * where it only arms the exit again; then the program is still at its prompt and one more
   * press ends it. A program that shows no hint, or never exits, still fails here.
   */
  async exitWithCtrlC(): Promise<number> {
    for (let attempt = 0; attempt < 3; attempt++) {
      this.keys('C-c');
      const armed = await this.waitFor(new RegExp(`Press Ctrl-C again to exit|${EXITED.source}`));
      const exited = EXITED.exec(armed);
      if (exited) return Number(exited[1]);
      this.keys('C-c');
      try {
        return await this.waitForExit();
      } catch (err) {
        // still running: try again only if it is back at its prompt, waiting for the press it missed
        if (!/Ask for a change|❯/.test(this.screen(0))) throw err;
      }
    }
    throw new Error(`Ctrl-C twice did not exit three times; screen:\n${this.screen()}`);
  }

  kill(): void {
    try {
      this.tmux(['kill-server']);
    } catch {
      // already gone
    }
  }
}
