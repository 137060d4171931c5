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

/** In the background, how long reading rests after a read of a slow stream (ms)... */
const BATCH_MS = 100;
/** ...slow meaning: less than this was read in the last BATCH_MS (the pipe buffer's size: a stream that fills it is read without rests). */
const FAST_BYTES = 64 * 1024;

/** The native handle under a child's pipe (net.Socket's `_handle`): what stops and starts its reads. */
interface PipeHandle {
  readStop(): number;
  readStart(): number;
}

/** A stream's native handle, when it has one that can stop and start its reads. */
function pipeHandle(stream: Readable): PipeHandle | undefined {
  const handle = (stream as unknown as { _handle?: Partial<PipeHandle> | null })._handle;
  return handle && typeof handle.readStop === 'function' && typeof handle.readStart === 'function' ? (handle as PipeHandle) : undefined;
}

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
  private restTimer: NodeJS.Timeout | undefined;
  private resting: { stream: Readable; handle: PipeHandle } | undefined;
  /** The current BATCH_MS window of background reads: when it began, what came in it, whether the last one was fast. */
  private window = { start: 0, bytes: 0, fast: false };
  private readonly untrack: (leaveRunning?: boolean) => void;
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
    // stdout is the one pipe of its output (the shell sends stderr there); the outer shell's own
    // stderr says only why it could not start the command. Read directly: no merged stream between.
    const streams = [sub.stdout, sub.stderr].filter((s): s is Readable => s != null);
    let streamDone = false;
    const streamEnded = Promise.all(
      streams.map((stream) => {
        const decoder = stream === sub.stdout ? this.decoder : new TextDecoder('utf-8');
        return new Promise<void>((resolve) => {
          stream.on('data', (chunk: Buffer | string) => {
            this.take(this.cleaner.push(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })));
            if (this.sink && stream === sub.stdout) this.batch(stream, chunk.length);
          });
          stream.once('end', () => resolve());
          stream.once('close', () => resolve());
          stream.once('error', () => resolve());
        });
      }),
    ).then(() => {
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
      this.wake();
      // Output still in the pipe arrives right after exit; a process it left running that keeps
      // the pipe open must not hold the result back.
      if (!streamDone) await Promise.race([streamEnded, new Promise((r) => setTimeout(r, settings.drainMs))]);
      clearTimeout(this.restTimer);
      sub.stdout?.destroy();
      sub.stderr?.destroy();
      this.take(this.cleaner.push(this.decoder.decode()));
      this.take(this.cleaner.flush());
      return exit;
    });
  }

  /**
   * In the background, the pipe is read in batches: after a read of a slow stream, reading stops for
   * BATCH_MS, the kernel's pipe buffer holding what the command prints meanwhile, and the next read
   * takes it all at once; so a command printing a line every few ms costs this process one wake-up
   * per batch, not one per line. A stream is fast once FAST_BYTES (the pipe buffer's size) come
   * within one BATCH_MS window; it is then read without rests until a window brings less (a fast
   * stream is not slowed; its first full buffer waits at most BATCH_MS). Streams have no way to stop
   * the read itself (pause() stops only the flow), so this stops its handle as net.Socket's own
   * pause does for `onread` sockets, leaving its `reading` flag set so that the stream does not
   * start it again; where the handle has no readStop, reading goes on per chunk.
   */
  private batch(stream: Readable, bytes: number): void {
    const now = performance.now();
    // a new window: fast if the one just over was (one that ended long ago says nothing)
    if (now - this.window.start >= BATCH_MS)
      this.window = { start: now, bytes: 0, fast: this.window.bytes >= FAST_BYTES && now - this.window.start < 2 * BATCH_MS };
    this.window.bytes += bytes;
    if (this.window.fast || this.window.bytes >= FAST_BYTES) return;
    const handle = pipeHandle(stream);
    if (this.restTimer || !handle) return;
    handle.readStop();
    this.resting = { stream, handle };
    this.restTimer = setTimeout(() => this.wake(), BATCH_MS);
  }

  /** Reads again now (the batch is over, or the command exited and its last output is wanted). */
  private wake(): void {
    clearTimeout(this.restTimer);
    this.restTimer = undefined;
    const resting = this.resting;
    this.resting = undefined;
    this.window = { start: performance.now(), bytes: 0, fast: false };
    if (resting && !resting.stream.destroyed && pipeHandle(resting.stream) === resting.handle) resting.handle.readStart();
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
        this.untrack(true);
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
