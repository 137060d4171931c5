import { EventEmitter } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import xterm from '@xterm/headless';
import { main, type World } from '../../src/cli.js';
import { inWorld } from '../../src/runtime/world.js';
import { loadTui } from '../../src/ui/load.js';
import { AGENT_BIN, inProcessRuns, stopWhenListening } from './harness.js';
import { ScreenDriver } from './screenWaits.js';

// The app's modules (Ink, React, the transcript) load once per worker, here, through the app's
// own loader (it hides CI from Ink): compiling them for the first test of a file would take that
// test's first screen past its wait on a loaded machine.
await loadTui();

// Drives the interactive app in this process, in a headless terminal: `main(argv, world)` with a
// world whose standard input and output are a terminal's (isTTY, raw mode, columns and rows, the
// 'resize' event), rendered into @xterm/headless (the terminal emulator of VS Code, without its
// screen), which answers the app's queries (the cursor position the emoji probe asks for) as a
// terminal does. Its API is the tmux driver's (tmux.ts), so a TUI file switches by importing
// `Tmux` from here; the tmux smoke files (start, type, stream, resize, exit) keep the real
// terminal path. The screen is read from the emulator's buffer: scrollback and the visible
// lines, right-trimmed, as `tmux capture-pane -p` prints them.

/** What tmux's send-keys sends for the key names the tests use. */
const KEYS: Record<string, string> = {
  Enter: '\r',
  Escape: '\x1b',
  Tab: '\t',
  BTab: '\x1b[Z',
  BSpace: '\x7f',
  Up: '\x1b[A',
  Down: '\x1b[B',
  Right: '\x1b[C',
  Left: '\x1b[D',
  Home: '\x1b[H',
  End: '\x1b[F',
  PPage: '\x1b[5~',
  NPage: '\x1b[6~',
  DC: '\x1b[3~',
  Space: ' ',
};

function keyBytes(name: string): string {
  const known = KEYS[name];
  if (known !== undefined) return known;
  const ctrl = /^C-([a-z])$/.exec(name);
  if (ctrl) return String.fromCharCode(ctrl[1]!.charCodeAt(0) - 96);
  const meta = /^M-(.)$/.exec(name);
  if (meta) return `\x1b${meta[1]}`;
  if (name.length === 1) return name;
  throw new Error(`terminal.ts: no bytes for the key "${name}" (add it to KEYS)`);
}

export const hasTmux = true;

export class Tmux extends ScreenDriver {
  private readonly term: xterm.Terminal;
  private readonly stdin: PassThrough & { isTTY: boolean; setRawMode: (on: boolean) => void; ref: () => void; unref: () => void };
  private readonly stdout: Writable & { isTTY: boolean; columns: number; rows: number };
  private readonly signals = new EventEmitter();
  private readonly exitHooks = new Set<() => void>();
  private readonly world: World;
  private ended = false;
  /** When the program last wrote to the terminal, and how many writes: what a wait that timed out says. */
  private readonly output = { at: Date.now(), writes: 0 };
  private stopRun: { stop: () => Promise<unknown> } | undefined;

  constructor(opts: { command: string[]; cwd: string; env: NodeJS.ProcessEnv; width?: number; height?: number }) {
    super(2);
    let [node, bin, ...args] = opts.command;
    const env = { ...opts.env };
    // `env TERM=dumb node bin/agent.js …`: the variables go into the world's environment
    if (node === 'env') {
      const rest = [bin!, ...args];
      while (rest[0]?.includes('=')) {
        const [k, ...v] = rest.shift()!.split('=');
        env[k!] = v.join('=');
      }
      [node, bin, ...args] = rest;
    }
    if (node !== process.execPath || bin !== AGENT_BIN) throw new Error(`terminal.ts runs the agent only (node ${AGENT_BIN} …), not ${opts.command.join(' ')}`);
    const cols = opts.width ?? 100;
    const rows = opts.height ?? 30;
    // convertEol: a terminal's line discipline turns the program's \n into \r\n (onlcr)
    this.term = new xterm.Terminal({ cols, rows, scrollback: 5_000, allowProposedApi: true, convertEol: true });
    this.stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => {}, ref: () => {}, unref: () => {} });
    const term = this.term;
    const output = this.output;
    this.stdout = Object.assign(
      new Writable({
        decodeStrings: false,
        write(chunk: unknown, _encoding, done) {
          output.at = Date.now();
          output.writes++;
          term.write(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array));
          done();
        },
      }),
      { isTTY: true, columns: cols, rows },
    );
    // what the terminal answers (a cursor position report) reaches the program as input does
    this.term.onData((data) => this.input(data));
    this.world = {
      env,
      cwd: opts.cwd,
      stdin: this.stdin as unknown as NodeJS.ReadStream,
      stdout: this.stdout as unknown as NodeJS.WriteStream,
      stderr: this.stdout as unknown as NodeJS.WriteStream,
      signals: this.signals,
      exit: (code) => this.finish(code),
      onExit: (fn) => {
        this.exitHooks.add(fn);
        return () => this.exitHooks.delete(fn);
      },
      slots: new Map(),
    };
    const run = main(['node', 'agent', ...args], this.world).catch((e: unknown) => {
      this.term.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\r\n`);
      return 1;
    });
    const done = run.then((code) => this.finish(code));
    this.stopRun = {
      stop: () => {
        stopWhenListening(this.signals);
        return Promise.race([done, new Promise<void>((r) => setTimeout(r, 5_000).unref())]);
      },
    };
    inProcessRuns.add(this.stopRun);
  }

  /** The program's end, once: its exit hooks run and the shell's line is printed, as under tmux. */
  private finish(code: number): void {
    if (this.ended) return;
    this.ended = true;
    if (this.stopRun) inProcessRuns.delete(this.stopRun);
    for (const fn of this.exitHooks) fn();
    this.term.write(`\r\n[exited with ${code}]\r\n`);
  }

  /** Bytes typed at the terminal, delivered in the program's world (its key handlers read its world). */
  private input(data: string): void {
    if (!this.ended) inWorld(this.world, () => this.stdin.write(data));
  }

  /** Types text literally (no key-name interpretation). */
  type(text: string): void {
    this.input(text);
  }

  /** Pastes text as a terminal does (bracketed, when the program asked for it; line breaks sent as CR). */
  paste(text: string): void {
    const body = text.replace(/\r?\n/g, '\r');
    this.input(this.term.modes.bracketedPasteMode ? `\x1b[200~${body}\x1b[201~` : body);
  }

  /** Sends named keys: Enter, Escape, C-c, Up, ... */
  keys(...names: string[]): void {
    for (const name of names) this.input(keyBytes(name));
  }

  /** Resizes the window (the program gets its 'resize' event, as SIGWINCH gives it). */
  resize(width: number, height: number): void {
    this.term.resize(width, height);
    this.stdout.columns = width;
    this.stdout.rows = height;
    inWorld(this.world, () => this.stdout.emit('resize'));
  }

  /** The visible screen plus scrollback (the last `history` lines of it). */
  screen(history = 500): string {
    const buffer = this.term.buffer.active;
    const lines: string[] = [];
    const first = Math.max(0, buffer.baseY - history);
    for (let y = first; y < buffer.baseY + this.term.rows; y++) lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
    return `${lines.join('\n')}\n`;
  }

  /** Resolves once what was written so far is parsed onto the screen. */
  settle(): Promise<void> {
    return new Promise<void>((r) => this.term.write('', r));
  }

  /** What a wait that timed out adds to the screen: how long ago the program last wrote, and whether it ended. */
  state(): string {
    return `the program wrote ${this.output.writes} times, last ${Date.now() - this.output.at} ms ago${this.ended ? '; it ended' : ''}`;
  }

  /** Ends the program if it still runs (SIGTERM in its world) and frees the terminal. */
  kill(): void {
    if (!this.ended) stopWhenListening(this.signals);
    this.stdin.end();
  }
}
