// What is known of one background command: saved with the session, listed by /tasks, told in notices.

export type ShellState = 'running' | 'exited' | 'stopped' | 'lost' | 'detached';

/** What is known of one background command (saved with the session). */
export interface ShellRecord {
  id: string;
  command: string;
  pid: number;
  startedAt: number;
  endedAt?: number;
  state: ShellState;
  /** Exit code (exited), or the signal that ended it. */
  code?: number | null;
  signal?: string | null;
  /** The archive file of its output. */
  file: string;
  /** Characters, bytes and newlines of the whole output (beyond the cap too). */
  chars: number;
  bytes: number;
  /** Characters kept in the file (at most the cap). */
  kept: number;
  /** The last line the model read with Recall. */
  lastRead: number;
}

/** "running", "exit code 0", "killed by SIGTERM", "stopped", "ended, exit status unknown", "left running" (detached at the program's end). */
export function describeState(r: ShellRecord): string {
  if (r.state === 'running') return 'running';
  if (r.state === 'lost') return 'ended, exit status unknown';
  if (r.state === 'stopped') return 'stopped';
  if (r.state === 'detached') return 'left running';
  if (r.signal) return `killed by ${r.signal}`;
  return `exit code ${r.code ?? 'unknown'}`;
}
