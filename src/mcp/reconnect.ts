// When a server that went away is tried again. A server that was up and is lost (its stdio
// process ended, an HTTP server restarted or stopped answering) is reconnected by itself: soon at
// first — a crashed process restarts in a fraction of a second, a restarted HTTP server is found
// again within 5 s of coming back — then every 30 s, never given up while the session runs. Its
// tools stay listed meanwhile (the prompt cache keeps its prefix, and the model is not left
// without a tool it was using), and a call to it tries at once instead of waiting for the timer.
// A server that never came up at start is not retried by itself: its entry is likely wrong (a
// mistyped path, a wrong URL), the person is told, and /mcp reconnect tries again.

/** The first attempt, right after the loss (a process that crashed is started again at once). */
export const FIRST_DELAY_MS = 250;
/** The longest wait while the server has been down for less than FAST_PHASE_MS. */
export const FAST_CAP_MS = 5_000;
export const FAST_PHASE_MS = 60_000;
/** The wait between attempts after that. */
export const SLOW_DELAY_MS = 30_000;

/** How long to wait before attempt `attempt` (0-based) of a server down for `downMs`. */
export function reconnectDelay(attempt: number, downMs: number): number {
  if (downMs >= FAST_PHASE_MS) return SLOW_DELAY_MS;
  return Math.min(FIRST_DELAY_MS * 2 ** attempt, FAST_CAP_MS);
}

/** The request did not reach the server (refused, or the session is gone): it was not handled, and may be sent again once reconnected. */
export class McpUnreachedError extends Error {
  override readonly name = 'McpUnreachedError';
}
