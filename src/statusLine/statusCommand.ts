import { spawn } from 'node:child_process';

// Claude Code's `statusLine` command: run with a JSON description of the session on stdin, its
// first line of output shown under the prompt. It runs in the background: a run still going when
// the next is asked for is followed by one more (never a pile), a run that takes longer than
// `timeoutMs` is killed (its process group) and shows nothing new, a failing one keeps the line
// it had and is told once with the end of what it wrote on stderr. Typing never waits for it.

export interface StatusCommandOptions {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** The new first line ('' when the command printed none); called only when it changed. */
  onLine: (line: string) => void;
  /** A failure worth a word once (the command exited non-zero, timed out). */
  onError?: (message: string) => void;
}

const MAX_OUTPUT = 16 * 1024;
/** The end of its stderr a failure repeats (characters, on one line). */
const STDERR_SHOWN = 300;

export class StatusCommand {
  private running = false;
  private next: object | undefined;
  private line = '';
  private reported = false;
  private closed = false;

  constructor(private readonly opts: StatusCommandOptions) {}

  /** Runs the command on this input now, or once the run in progress ends (the latest input wins). */
  update(input: object): void {
    if (this.closed) return;
    if (this.running) {
      this.next = input;
      return;
    }
    this.running = true;
    void this.runOnce(input).finally(() => {
      this.running = false;
      const pending = this.next;
      this.next = undefined;
      if (pending) this.update(pending);
    });
  }

  close(): void {
    this.closed = true;
  }

  private runOnce(input: object): Promise<void> {
    return new Promise((done) => {
      const child = spawn('/bin/sh', ['-c', this.opts.command], { cwd: this.opts.cwd, env: this.opts.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
      let out = '';
      let err = '';
      const timer = setTimeout(() => {
        this.fail(`the statusLine command took longer than ${this.opts.timeoutMs} ms and was stopped`);
        kill();
      }, this.opts.timeoutMs);
      timer.unref();
      const kill = (): void => {
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      };
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        if (out.length < MAX_OUTPUT) out += d;
      });
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        err = (err + d).slice(-MAX_OUTPUT);
      });
      child.stdin.on('error', () => {});
      child.stdin.end(JSON.stringify(input));
      child.on('error', (e) => {
        clearTimeout(timer);
        this.fail(`the statusLine command could not start: ${e.message}`);
        done();
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) {
          const first = (out.split('\n').find((l) => l.trim() !== '') ?? '').trimEnd();
          if (first !== this.line && !this.closed) {
            this.line = first;
            this.opts.onLine(first);
          }
        } else if (signal === null) {
          const said = err.replace(/\s+/g, ' ').trim();
          const tail = said.length > STDERR_SHOWN ? `…${said.slice(-STDERR_SHOWN)}` : said;
          this.fail(`the statusLine command exited with code ${code}${tail ? `; its stderr said: ${tail}` : ' and wrote nothing on stderr'}`);
        }
        done();
      });
    });
  }

  private fail(message: string): void {
    if (this.reported) return;
    this.reported = true;
    this.opts.onError?.(message);
  }
}
