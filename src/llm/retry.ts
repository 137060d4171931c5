import type { ProviderError } from './errors.js';

export interface RetryPolicy {
  /** Attempts per model call, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * Delay before retry number `attempt` (1 = the first retry). The server's retry-after wins
 * (capped by maxDelayMs so a bogus header cannot stall the session for an hour); otherwise
 * exponential backoff with up to 25% jitter downwards so that clients do not retry in step.
 */
function retryDelayMs(err: ProviderError, attempt: number, policy: RetryPolicy): number {
  if (err.retryAfterMs !== undefined && err.retryAfterMs >= 0) return Math.min(err.retryAfterMs, policy.maxDelayMs);
  const exp = Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
  return Math.round(exp * (1 - Math.random() * 0.25));
}

/**
 * The wait before retrying after `err` failed attempt number `attempt` (1-based), or undefined
 * when it is not retried: the error is not transient, or the attempts are spent.
 */
export function nextRetryDelayMs(err: ProviderError, attempt: number, policy: RetryPolicy): number | undefined {
  return err.retryable && attempt < policy.maxAttempts ? retryDelayMs(err, attempt, policy) : undefined;
}

/** Resolves after ms, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new Error('aborted'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
