// Every session's goal in this run, by session id: the capability opens one per session (never a
// sub-agent's), the front ends find the one of the session they drive and hear when it changes
// (the footer, the event streams). As background/commands.ts is for background commands.
import type { GoalView } from '../protocol/views.js';
import { type CheckRunner, SessionGoal } from './sessionGoal.js';

export class Goals {
  private readonly bySession = new Map<string, SessionGoal>();
  private readonly listeners = new Set<(sessionId: string, goal: GoalView | undefined) => void>();

  constructor(private readonly runCheck: CheckRunner) {}

  /** The goal of a session that opens (a resumed one's is restored by its state slice). */
  open(sessionId: string): SessionGoal {
    const goal = new SessionGoal(this.runCheck, (view) => {
      for (const l of this.listeners) l(sessionId, view);
    });
    this.bySession.set(sessionId, goal);
    return goal;
  }

  /** The goal of a session this run opened; undefined for another (a sub-agent's). */
  of(sessionId: string): SessionGoal | undefined {
    return this.bySession.get(sessionId);
  }

  /** The message of a session's next goal turn (SessionGoal.next), or undefined; a signal stops its check with every process group. */
  next(sessionId: string, planMode: boolean): Promise<string | undefined> {
    return this.of(sessionId)?.next({ planMode, signal: new AbortController().signal }) ?? Promise.resolve(undefined);
  }

  /** Hears every change of every session's goal; returns what stops it. */
  subscribe(listener: (sessionId: string, goal: GoalView | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
