// One running Bash command: the process (the leader of its own group, tracked in
// processes/groups.ts), its output cleaned as it comes, and where that output goes. In the
// foreground it fills the head-and-tail buffer the model gets and the whole-output buffer a spill
// archives; handed to the background (run_in_background, or a timeout that moves it) it goes to
// the background archive instead, from that moment on, and nothing more is kept here.
// What it never does: decide when to stop, move or report a command (bash.ts does).
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { ResultPromise } from 'execa';
import { killGroup, trackGroup } from '../processes/groups.js';
import { FullOutputBuffer } from './spill.js';
import { TerminalText } from './terminalText.js';
import { HeadTailBuffer } from './truncate.js';
import type { BackgroundJob, CommandExit } from './types.js';

export type StopReason = 'timeout' | 'interrupted';

export interface Exited extends CommandExit {
  error?: unknown;
}

export interface RunSettings {
  maxOutputChars: number;
  /** After SIGTERM, how long before SIGKILL (ms). */
  graceMs: number;
  /** After the shell exits, how long to wait for output still in the pipe (ms). */
  drainMs: number;
  onProgress?: ((text: string) => void) | undefined;
}

export class BashRun {
  readonly startedAt = Date.now();
  readonly pid: number | undefined;
  readonly buffer: HeadTailBuffer;
  /** The whole output (capped) for a spill: what the archive keeps when the head and tail are cut. */
  readonly whole = new FullOutputBuffer();
  /** Resolves when the shell exited (the stream may still hold output). */
  readonly exited: Promise<Exited>;
  /** Resolves when it exited and its output is drained, the process forgotten by the registry. */
  readonly ended: Promise<Exited>;
  stopReason: StopReason | undefined;
  private sink: ((text: string) => void) | undefined;
  private readonly cleaner = new TerminalText();
  private readonly decoder = new TextDecoder('utf-8');
  private killTimer: NodeJS.Timeout | undefined;
  private readonly untrack: () => void;
  /** The one pipe of its output (the shell sends stderr into stdout). */
  private readonly pipe: Readable | undefined;

  constructor(
    command: string,
    sub: ResultPromise,
    private readonly settings: RunSettings,
  ) {
    this.buffer = new HeadTailBuffer(settings.maxOutputChars);
    this.pid = sub.pid;
    // a rejected execa promise is the exit event's business
    sub.then(
      () => undefined,
      () => undefined,
    );
    const stream = sub.all;
    let streamDone = false;
    const streamEnded = new Promise<void>((resolve) => {
      if (!stream) return resolve();
      stream.on('data', (chunk: Buffer | string) =>
        this.take(this.cleaner.push(typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true }))),
      );
      stream.once('end', () => resolve());
      stream.once('close', () => resolve());
      stream.once('error', () => resolve());
    }).then(() => {
      streamDone = true;
    });
    const untrack = this.pid !== undefined ? trackGroup(this.pid, 'bash', command) : () => undefined;
    this.untrack = untrack;
    this.pipe = sub.stdout ?? undefined;
    this.exited = new Promise<Exited>((resolve) => {
      sub.once('exit', (code, signal) => resolve({ code, signal }));
      sub.once('error', (error) => resolve({ code: null, signal: null, error }));
    });
    this.ended = this.exited.then(async (exit) => {
      if (this.stopReason && this.pid !== undefined) {
        // the shell is gone; whatever it started that ignored SIGTERM goes now
        killGroup(this.pid, 'SIGKILL');
      }
      clearTimeout(this.killTimer);
      untrack();
      // Output still in the pipe arrives right after exit; a process it left running that keeps
      // the pipe open must not hold the result back.
      if (!streamDone) await Promise.race([streamEnded, new Promise((r) => setTimeout(r, settings.drainMs))]);
      stream?.destroy();
      sub.stdout?.destroy();
      sub.stderr?.destroy();
      this.take(this.cleaner.push(this.decoder.decode()));
      this.take(this.cleaner.flush());
      return exit;
    });
  }

  private take(text: string): void {
    if (text === '') return;
    if (this.sink) return this.sink(text);
    this.buffer.push(text);
    this.whole.push(text);
    this.settings.onProgress?.(text);
  }

  /** SIGTERM to its group, SIGKILL after the grace period; the first reason stands. */
  stop(why: StopReason): void {
    if (this.stopReason || this.pid === undefined) return;
    this.stopReason = why;
    killGroup(this.pid, 'SIGTERM');
    this.killTimer = setTimeout(() => killGroup(this.pid ?? 0, 'SIGKILL'), this.settings.graceMs);
  }

  /** Hands the command to the background: its output so far, and from now on whatever it prints goes to `follow`'s sink. */
  handOver(command: string): BackgroundJob {
    const earlier = this.whole.result().text;
    return {
      command,
      pid: this.pid ?? 0,
      startedAt: this.startedAt,
      earlier,
      follow: (onText) => {
        this.sink = onText;
      },
      ended: this.ended.then((e) => ({ code: e.code, signal: e.signal })),
      detach: () => {
        this.untrack();
        this.sink = () => undefined;
        if (!this.pipe) return;
        // the drain holds the pipe's read end once this program is gone; it ends with the command
        const drain = spawn('cat', [], { stdio: [this.pipe, 'ignore', 'ignore'], detached: true });
        drain.on('error', () => undefined);
        drain.unref();
      },
    };
  }
}
