// The interactive app's bridge from the session to the person (interactive.ts): approvals out
// as 'approval' events and the decision back, and the providers' warnings as notices.
import type { ApprovalDecision, ApprovalRequest, Approver } from './tools/permissions.js';
import type { Event } from './protocol/events.js';

/**
 * Lets the session reach the person: an 'approval' event out and the decision back, and the
 * providers' warnings as notices while a controller shows them.
 */
export class ApprovalBridge {
  emit: (e: Event) => void = () => {};
  private shown: ((message: string) => void) | undefined;
  /** Warnings that came before a controller showed them (a late model description during start-up). */
  private early: string[] = [];
  get notices(): ((message: string) => void) | undefined {
    return this.shown;
  }
  set notices(show: ((message: string) => void) | undefined) {
    this.shown = show;
    if (show) for (const m of this.early.splice(0)) show(m);
  }
  readonly onProviderWarning = (message: string): void => {
    if (this.shown) this.shown(message);
    else this.early.push(message);
  };
  readonly approver: Approver = (request: ApprovalRequest, signal: AbortSignal) =>
    new Promise<ApprovalDecision>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason ?? new Error('interrupted'));
        return;
      }
      let settled = false;
      const onAbort = (): void => {
        if (settled) return;
        settled = true;
        reject(signal.reason ?? new Error('interrupted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.emit({
        type: 'approval',
        request,
        respond: (d) => {
          if (settled) return;
          settled = true;
          signal.removeEventListener('abort', onAbort);
          resolve(d);
        },
      });
    });
}
