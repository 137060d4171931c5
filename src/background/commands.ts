// Every session's background commands in this process (the main session's and its sub-agents'),
// for what sees them all: the limit on how many run at once, print mode stopping them after the
// result, the TUI's /tasks and footer, the exit question. One Shells per session (shells.ts).
import { join } from 'node:path';
import { type ShellRecord, Shells } from './shells.js';

export interface BackgroundSettings {
  /** Where the archive files go: one folder per session below it. */
  root: string;
  /** Most commands running at once in this process (bash.maxBackground). */
  maxRunning: number;
  /** Applied to every line before it is archived. */
  redact: (text: string) => string;
  /** After SIGTERM, how long a stopped command gets before SIGKILL (ms). */
  graceMs?: number;
}

export interface RunningCommand extends ShellRecord {
  sessionId: string;
}

export class BackgroundCommands {
  private readonly sessions = new Map<string, Shells>();
  private readonly listeners = new Set<() => void>();
  /** A top-level session's commands are left to the front end when it closes (the TUI asks at its exit). */
  keep = false;

  constructor(private readonly settings: BackgroundSettings) {}

  /** The session's commands (made on first use). */
  open(sessionId: string): Shells {
    let shells = this.sessions.get(sessionId);
    if (!shells) {
      shells = new Shells({
        dir: join(this.settings.root, sessionId),
        maxRunning: this.settings.maxRunning,
        countRunning: () => this.running().length,
        redact: this.settings.redact,
        ...(this.settings.graceMs !== undefined ? { graceMs: this.settings.graceMs } : {}),
        onChange: () => this.changed(),
        sessionId,
      });
      this.sessions.set(sessionId, shells);
    }
    return shells;
  }

  of(sessionId: string): Shells | undefined {
    return this.sessions.get(sessionId);
  }

  /**
   * A session closed. A sub-agent's (it has a parent): its running commands are stopped, or handed
   * to the parent when the Task call asked so (keep_background). A top-level one's (the program
   * ends): stopped, unless `keep` leaves them to the front end (the TUI's exit question, -p's
   * --keep-background).
   */
  async close(sessionId: string, parent?: { id: string; label: string; handBackground: boolean }): Promise<void> {
    const shells = this.sessions.get(sessionId);
    if (!shells) return;
    if (parent?.handBackground) shells.handTo(this.open(parent.id), parent.label);
    else if (parent || !this.keep) await shells.stopAll();
  }

  /** Every running command of every session, oldest first. */
  running(): RunningCommand[] {
    return this.list().filter((r) => r.state === 'running');
  }

  /** Every command of every session this process opened. */
  list(): RunningCommand[] {
    return [...this.sessions].flatMap(([sessionId, s]) => s.list().map((r) => ({ ...r, sessionId })));
  }

  /** Ctrl+B: moves the foreground command that runs (any session's) to the background; false when none runs. */
  moveForeground(): boolean {
    return [...this.sessions.values()].some((s) => s.moveForeground());
  }

  /** Leaves every running command running past this program's end; returns them. */
  detachAll(): RunningCommand[] {
    return [...this.sessions].flatMap(([sessionId, s]) => s.detachAll().map((r) => ({ ...r, sessionId })));
  }

  /** Stops every running command; resolves with how many there were once they are gone. */
  async stopAll(): Promise<number> {
    const counts = await Promise.all([...this.sessions.values()].map((s) => s.stopAll()));
    return counts.reduce((a, b) => a + b, 0);
  }

  /** Calls `fn` whenever a command starts or ends; returns the unsubscribe. */
  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /**
   * Calls `fn` once for each command that exits on its own, as it exits (not one stopped, left
   * running or lost: whoever stopped it said so): the TUI shows it while idle, not at the next prompt.
   */
  onExit(fn: (r: RunningCommand) => void): () => void {
    const key = (r: RunningCommand): string => `${r.sessionId}/${r.id}`;
    const told = new Set(
      this.list()
        .filter((r) => r.state === 'exited')
        .map(key),
    );
    return this.subscribe(() => {
      for (const r of this.list()) {
        if (r.state !== 'exited' || told.has(key(r))) continue;
        told.add(key(r));
        fn(r);
      }
    });
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }
}
