// One session's background commands: Bash `run_in_background`, and foreground commands moved
// there by their timeout (or by the person, Ctrl+B). Each gets an id (b1, b2, …) and an archive
// file its output streams into as it comes — redacted line by line, terminal codes already gone,
// capped at the spill archive's cap (what comes after is counted, not kept) — so that a command
// printing 50 MB costs no memory here; Recall reads the file by range, pattern or "what is new".
// When one ends, a notice waits for the model's next request (notices()). Its process group stays
// in processes/groups.ts, so every way the program ends stops it.
// What it never does: spawn a process (tools/bash.ts does) or decide when to stop every command
// (the front ends do: print mode after the result, the TUI's exit question).
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { stopGroup } from '../processes/groups.js';
import { ARCHIVE_CAP_CHARS } from '../tools/spill.js';
import type { BackgroundJob, BackgroundOutput, BackgroundShells, CommandExit, RecallHit } from '../tools/types.js';
import { endNotice, firstLinesOf, lastLinesOf } from './notice.js';
import { describeState, type ShellRecord } from './record.js';

export type { ShellRecord, ShellState } from './record.js';

export interface ShellsOptions {
  /** Where this session's archive files go (created on the first command). */
  dir: string;
  /** Most commands running at once (bash.maxBackground)... */
  maxRunning: number;
  /** ...counted by this (every session's in the process; default: this session's). */
  countRunning?: () => number;
  /** Applied to every line before it is archived (log.ts's redact). */
  redact: (text: string) => string;
  /** Characters kept per command (default: the spill archive's cap). */
  capChars?: number;
  /** After SIGTERM, how long a stopped command gets before SIGKILL (ms). */
  graceMs?: number;
  /** Called when the set of commands or their states change (the TUI's footer and /tasks). */
  onChange?: () => void;
  /** The session they belong to (named in Recall's search hits). */
  sessionId?: string;
}

/** How much of the end of its output a command's end notice looks at. */
const TAIL_BYTES = 16 * 1024;
/** A partial line longer than this is archived without waiting for its end... */
const PENDING_MAX = 64 * 1024;
/** ...and whole lines are archived in batches, this often (ms): a command printing a line every few ms costs one redaction and one write per batch, not per line. */
const FLUSH_MS = 100;

interface Live {
  /** The session's commands it belongs to (a sub-agent's hands it to its parent's). */
  owner: Shells;
  record: ShellRecord;
  /** Undefined for one restored from a stored session. */
  job: BackgroundJob | undefined;
  fd: number | undefined;
  /** Whether its end is told to the model (not when the model stopped it itself). */
  tell: boolean;
  /** The incomplete last line (redaction works on whole lines). */
  pending: string;
  /** The first few hundred characters, for the answer that starts it. */
  head: string;
  stopping: boolean;
}

export class Shells implements BackgroundShells {
  private readonly all = new Map<string, Live>();
  private readonly pendingNotices: string[] = [];
  private counter = 0;
  private foreground: (() => void) | undefined;
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(private readonly o: ShellsOptions) {}

  refusal(): string | undefined {
    const running = this.o.countRunning?.() ?? this.running().length;
    return running >= this.o.maxRunning
      ? `${running} background commands are running, the limit (bash.maxBackground); stop one with KillShell or wait for one to end`
      : undefined;
  }

  adopt(job: BackgroundJob): string {
    const id = `b${++this.counter}`;
    mkdirSync(this.o.dir, { recursive: true, mode: 0o700 });
    const file = join(this.o.dir, `${id}.log`);
    const record: ShellRecord = {
      id,
      command: job.command,
      pid: job.pid,
      startedAt: job.startedAt,
      state: 'running',
      file,
      chars: 0,
      bytes: 0,
      kept: 0,
      lastRead: 0,
    };
    const live: Live = { owner: this, record, job, fd: openSync(file, 'w', 0o600), pending: '', head: '', stopping: false, tell: true };
    this.all.set(id, live);
    this.write(live, job.earlier);
    job.follow((text) => live.owner.write(live, text));
    void job.ended.then((exit) => live.owner.ended(live, exit));
    this.o.onChange?.();
    return id;
  }

  private write(live: Live, text: string): void {
    if (text === '') return;
    const r = live.record;
    r.chars += text.length;
    r.bytes += Buffer.byteLength(text);
    if (live.head.length < 2_000) live.head += text.slice(0, 2_000 - live.head.length);
    const cap = this.o.capChars ?? ARCHIVE_CAP_CHARS;
    if (live.fd === undefined || r.kept >= cap) return;
    live.pending += text;
    if (live.pending.length >= PENDING_MAX) return this.flush(live);
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      for (const l of this.all.values()) if (l.pending !== '') this.flush(l);
    }, FLUSH_MS).unref();
  }

  /** Archives the whole lines waiting (or all of it, a partial line past PENDING_MAX). */
  private flush(live: Live): void {
    const cut = live.pending.lastIndexOf('\n');
    if (cut === -1 && live.pending.length < PENDING_MAX) return;
    const whole = cut === -1 ? live.pending : live.pending.slice(0, cut + 1);
    live.pending = cut === -1 ? '' : live.pending.slice(cut + 1);
    this.append(live, this.o.redact(whole));
  }

  private append(live: Live, text: string): void {
    const r = live.record;
    const cap = this.o.capChars ?? ARCHIVE_CAP_CHARS;
    if (live.fd === undefined || text === '') return;
    const take = text.length <= cap - r.kept ? text : text.slice(0, cap - r.kept);
    writeSync(live.fd, take);
    r.kept += take.length;
  }

  private ended(live: Live, exit: CommandExit): void {
    const r = live.record;
    if (r.state === 'detached') return;
    if (live.pending !== '') this.append(live, this.o.redact(live.pending));
    live.pending = '';
    if (live.fd !== undefined) closeSync(live.fd);
    live.fd = undefined;
    r.endedAt = Date.now();
    r.state = live.stopping ? 'stopped' : 'exited';
    r.code = exit.code;
    r.signal = exit.signal;
    if (live.tell) this.pendingNotices.push(this.o.redact(endNotice(r, lastLinesOf(this.tail(r)))));
    this.o.onChange?.();
  }

  /** The last few KB of a command's archive file. */
  private tail(r: ShellRecord): string {
    try {
      const fd = openSync(r.file, 'r');
      try {
        const size = fstatSync(fd).size;
        const buf = Buffer.alloc(Math.min(size, TAIL_BYTES));
        const n = readSync(fd, buf, 0, buf.length, size - buf.length);
        // a first line cut mid-way (or mid-character) is dropped
        const text = buf.subarray(0, n).toString('utf8');
        return size > TAIL_BYTES ? text.slice(text.indexOf('\n') + 1) : text;
      } finally {
        closeSync(fd);
      }
    } catch {
      return '';
    }
  }

  private text(r: ShellRecord): string {
    try {
      return readFileSync(r.file, 'utf8');
    } catch {
      return '';
    }
  }

  firstLines(id: string): string {
    const live = this.all.get(id);
    return live ? firstLinesOf(this.o.redact(live.head)) : '';
  }

  output(id: string): BackgroundOutput | undefined {
    const live = this.all.get(id);
    if (!live) return undefined;
    const r = live.record;
    const cap = this.o.capChars ?? ARCHIVE_CAP_CHARS;
    const capped = r.kept >= cap ? `[the archive's cap was reached: the ${r.chars - r.kept} characters printed after that were not kept]\n` : '';
    const text = this.text(r) + (live.pending ? this.o.redact(live.pending) : '') + capped;
    return { id, label: `background command \`${short(r.command)}\` (${describeState(r)})`, text, lastRead: r.lastRead, running: r.state === 'running' };
  }

  holdForeground(move: () => void): () => void {
    this.foreground = move;
    return () => {
      if (this.foreground === move) this.foreground = undefined;
    };
  }

  /** Moves the running foreground command to the background (Ctrl+B); false when none runs. */
  moveForeground(): boolean {
    const move = this.foreground;
    if (!move) return false;
    this.foreground = undefined;
    move();
    return true;
  }

  markRead(id: string, line: number): void {
    const live = this.all.get(id);
    if (live) live.record.lastRead = Math.max(live.record.lastRead, line);
  }

  search(query: string): RecallHit[] {
    const words = query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
    if (words.length === 0) return [];
    return this.list()
      .reverse()
      .flatMap((r) => {
        const out = this.output(r.id);
        if (!out) return [];
        const hits = out.text.split('\n').filter((line) => {
          const low = line.toLowerCase();
          return words.every((w) => low.includes(w));
        });
        if (hits.length === 0) return [];
        const more = hits.length > 1 ? ` (${hits.length} matching lines: Recall id="${r.id}" with pattern reads them)` : '';
        return [{ id: r.id, label: out.label, snippet: `${hits[0]!}${more}`, sessionId: this.o.sessionId ?? '', createdAt: r.startedAt }];
      });
  }

  /** The notices of commands that ended since the last call (each is given once). */
  notices(): string[] {
    return this.pendingNotices.splice(0);
  }

  /** Every command this session started, oldest first. */
  list(): ShellRecord[] {
    return [...this.all.values()].map((l) => l.record);
  }

  running(): ShellRecord[] {
    return this.list().filter((r) => r.state === 'running');
  }

  /** Stops one (SIGTERM to its group, SIGKILL after the grace period); false when it is not running. `tell`: the model hears of its end. */
  async stop(id: string, tell = true): Promise<boolean> {
    const live = this.all.get(id);
    if (live?.record.state !== 'running') return false;
    live.stopping = true;
    live.tell = tell;
    await stopGroup(live.record.pid, this.o.graceMs ?? 1_000);
    return true;
  }

  /**
   * A sub-agent ended (Task's keep_background): its running commands go to `to` (its parent's)
   * under new ids, their end told there; `to` is told now which ones it got. Returns how many.
   */
  handTo(to: Shells, from: string): number {
    const moved = this.running().map((r) => {
      const live = this.all.get(r.id)!;
      this.all.delete(r.id);
      const was = r.id;
      r.id = `b${++to.counter}`;
      live.owner = to;
      to.all.set(r.id, live);
      return `${r.id} \`${short(r.command)}\` (pid ${r.pid}; ${was} in the sub-agent)`;
    });
    if (moved.length === 0) return 0;
    to.pendingNotices.push(
      this.o.redact(
        `[The sub-agent "${from}" ended and handed you its background ${moved.length === 1 ? 'command' : 'commands'} still running: ${moved.join(', ')}. ` +
          'Their end is told to you; Recall reads their output and KillShell stops them by these ids.]',
      ),
    );
    this.o.onChange?.();
    to.o.onChange?.();
    return moved.length;
  }

  /** Leaves every running one running past this program's end (see BackgroundJob.detach); returns them. */
  detachAll(): ShellRecord[] {
    const left = this.list().filter((r) => r.state === 'running');
    for (const r of left) {
      const live = this.all.get(r.id)!;
      live.job?.detach();
      if (live.pending !== '') this.append(live, this.o.redact(live.pending));
      live.pending = '';
      if (live.fd !== undefined) closeSync(live.fd);
      live.fd = undefined;
      r.state = 'detached';
    }
    if (left.length > 0) this.o.onChange?.();
    return left;
  }

  /** Stops every running one; resolves when they are gone. */
  async stopAll(): Promise<number> {
    const ids = this.running().map((r) => r.id);
    await Promise.all(ids.map((id) => this.stop(id)));
    return ids.length;
  }

  /** What a stored session knew: a command that ran then is over for this process (its pipe is gone), its exit status unknown. */
  restore(saved: readonly ShellRecord[]): void {
    for (const r of saved) {
      const record: ShellRecord = r.state === 'running' ? { ...r, state: 'lost' } : { ...r };
      this.all.set(r.id, { owner: this, record, job: undefined, fd: undefined, pending: '', head: '', stopping: false, tell: false });
      const n = Number(r.id.slice(1));
      if (Number.isInteger(n)) this.counter = Math.max(this.counter, n);
    }
  }
}

const short = (command: string): string => {
  const one = command.replace(/\s+/g, ' ').trim();
  return one.length > 60 ? `${one.slice(0, 59)}…` : one;
};
