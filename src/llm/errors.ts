import type { ProviderName } from './providerName.js';

/**
 * context_overflow: the prompt does not fit the model's window (reactive compaction).
 * rate_limit / overloaded / server / connection / stream_cut: transient, retried with backoff.
 * quota: out of credit (429 insufficient_quota) — not retried.
 * auth, bad_request, not_found: the request or setup is wrong — not retried.
 * aborted: the user cancelled.
 */
export type ProviderErrorKind =
  | 'context_overflow'
  | 'rate_limit'
  | 'overloaded'
  | 'server'
  | 'connection'
  | 'stream_cut'
  | 'quota'
  | 'auth'
  | 'bad_request'
  | 'not_found'
  | 'aborted';

/** Figures parsed from an overflow message, where the provider gave them. */
export interface OverflowInfo {
  /** Tokens the prompt (or prompt + requested output) came to. */
  promptTokens?: number;
  /** The limit it exceeded. */
  limit?: number;
  /** Output tokens the request asked for, when the provider counted them in promptTokens. */
  requestedOutputTokens?: number;
}

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly kind: ProviderErrorKind;
  readonly provider: ProviderName;
  readonly status?: number;
  /** Server-requested delay before retrying (retry-after-ms / retry-after). */
  readonly retryAfterMs?: number;
  readonly overflow?: OverflowInfo;
  readonly requestId?: string;

  constructor(opts: {
    kind: ProviderErrorKind;
    provider: ProviderName;
    message: string;
    status?: number;
    retryAfterMs?: number;
    overflow?: OverflowInfo;
    requestId?: string;
    cause?: unknown;
  }) {
    super(opts.message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.kind = opts.kind;
    this.provider = opts.provider;
    if (opts.status !== undefined) this.status = opts.status;
    if (opts.retryAfterMs !== undefined) this.retryAfterMs = opts.retryAfterMs;
    if (opts.overflow !== undefined) this.overflow = opts.overflow;
    if (opts.requestId !== undefined) this.requestId = opts.requestId;
  }

  get retryable(): boolean {
    return RETRYABLE.has(this.kind);
  }
}

const RETRYABLE = new Set<ProviderErrorKind>(['rate_limit', 'overloaded', 'server', 'connection', 'stream_cut']);

export const isProviderError = (e: unknown): e is ProviderError => e instanceof ProviderError;
