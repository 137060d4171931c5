import { execFileSync, spawnSync } from 'node:child_process';
import { exitWithCtrlC, waitForExit, waitForScreen } from './screenWaits.js';

// Drives a program in a real terminal: tmux runs it, send-keys types, capture-pane reads the
// screen. Each instance uses its own tmux server socket, so tests never touch each other.

export const hasTmux = spawnSync('tmux', ['-V']).status === 0;

let counter = 0;

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
  waitFor(pattern: RegExp | string, timeoutMs?: number): Promise<string> {
    return waitForScreen(this, pattern, timeoutMs);
  }

  /** Waits for the program to exit and returns its exit code. */
  waitForExit(timeoutMs?: number): Promise<number> {
    return waitForExit(this, timeoutMs);
  }

  /** Exits as a person does, with Ctrl-C twice (see screenWaits.ts). */
  exitWithCtrlC(): Promise<number> {
    return exitWithCtrlC(this);
  }

  kill(): void {
    try {
      this.tmux(['kill-server']);
    } catch {
      // already gone
    }
  }
}
