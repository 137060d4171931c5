import type { Store } from '../store/index.js';
import type { SessionLog } from './sessionLog.js';

/**
 * File snapshots for /rewind: before a file's first change in a turn, its prior bytes (or
 * their absence) are stored, keyed by the person's message that started the turn.
 */
export class TurnSnapshots {
  /** The user message that started the running turn. */
  private turnId: string | undefined;
  /** Files already snapshotted in the running turn. */
  private readonly taken = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly log: SessionLog,
  ) {}

  /** A new turn starts (its message not yet known). */
  reset(): void {
    this.taken.clear();
    this.turnId = undefined;
  }

  /** The message that started the running turn. */
  startedBy(turnId: string): void {
    this.turnId = turnId;
  }

  /** The user message that started the running turn (a child session links to it). */
  get turn(): string | undefined {
    return this.turnId;
  }

  /** Stores a file's prior state before its first change in the running turn. */
  async before(abs: string, prior: Buffer | undefined, mode: number | undefined): Promise<void> {
    const turnId = this.turnId;
    if (!turnId || this.taken.has(abs)) return;
    if (!this.log.flush()) throw new Error('the database cannot be written, so the change could not be snapshotted for /rewind');
    this.store.saveSnapshot(this.log.id, { turnId, path: abs, content: prior ?? null, mode: mode ?? null });
    this.taken.add(abs);
  }
}
