import { ProviderError, type OverflowInfo, type ProviderErrorKind } from './errors.js';
import { parseOverflow } from './overflow.js';
import type { ProviderName } from './provider.js';
import type { RequestTap, TimeoutStage } from './transport.js';

// Maps what went wrong in an SDK call to a ProviderError. The adapters classify the SDK
// error with instanceof (they import the SDK) into an SdkFailure; everything here is pure.

export interface HeadersLike {
  get(name: string): string | null;
}

/** An SDK error, described without SDK types. */
export type SdkFailure =
  /** APIUserAbortError or an AbortError. */
  | { category: 'abort' }
  /** APIConnectionTimeoutError. */
  | { category: 'timeout' }
  /** APIConnectionError: no response. `cause` is the underlying network error. */
  | { category: 'connection'; message: string; cause?: unknown }
  /**
   * APIError with or without a status (without: an error event inside a 200 stream).
   * body: the SDK's `err.error` (Anthropic: the whole JSON body; OpenAI: its `error` member).
   */
  | { category: 'api'; status: number | undefined; headers: HeadersLike | undefined; body: unknown; message: string }
  /** Anything else (a socket torn mid-body, a malformed stream, a bug). */
  | { category: 'other'; error: unknown };

export interface FailureContext {
  provider: ProviderName;
  model: string;
  /** Removed from every message. */
  apiKey: string;
  /** Environment variable named in auth errors. */
  apiKeyEnv: string;
  /** Base URL in use, named in connection and not-found errors. */
  baseURL: string;
  /** The user's signal: aborted means the user cancelled. */
  signal?: AbortSignal | undefined;
  /** The response had begun streaming when the failure happened. */
  streamStarted: boolean;
  /** Set when the adapter itself gave up on a silent stream. */
  stalledAfterMs?: number;
  /** Which wait it gave up on (default: the stream's silence). */
  stalledStage?: TimeoutStage;
  /** The raw body of an error response, captured below the SDK (it drops bodies it cannot read). */
  rawBody?: string | undefined;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/** The provider's own error fields, wherever the SDK or the server put them. */
export interface ErrorFields {
  message?: string;
  type?: string;
  code?: string;
  /** llama.cpp's n_prompt_tokens / n_ctx. */
  promptTokens?: number;
  contextSize?: number;
  requestId?: string;
}

/** Reads message/type/code from an error body: Anthropic {type:'error', error:{type,message}}, OpenAI {message,type,code}, LM Studio "text", vLLM flat {object:'error', message}. */
export function errorFields(body: unknown, rawBody?: string): ErrorFields {
  const out: ErrorFields = {};
  const take = (o: Record<string, unknown>): void => {
    out.message ??= str(o.message);
    const type = str(o.type);
    if (type && type !== 'error') out.type ??= type;
    if (typeof o.code === 'string') out.code ??= o.code;
    if (typeof o.n_prompt_tokens === 'number') out.promptTokens ??= o.n_prompt_tokens;
    if (typeof o.n_ctx === 'number') out.contextSize ??= o.n_ctx;
    out.requestId ??= str(o.request_id);
  };
  const visit = (b: unknown): void => {
    if (typeof b === 'string') {
      out.message ??= str(b.trim());
      return;
    }
    if (!isObj(b)) return;
    if (isObj(b.error)) take(b.error);
    else if (typeof b.error === 'string') out.message ??= str(b.error);
    take(b);
  };
  visit(body);
  if (out.message === undefined && rawBody !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawBody);
    } catch {
      parsed = undefined;
    }
    if (parsed !== undefined) visit(parsed);
    else out.message = plainText(rawBody);
  }
  return out;
}

/** A non-JSON body (an HTML error page from a proxy...) reduced to a short line. */
function plainText(raw: string): string | undefined {
  const text = raw
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) return undefined;
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** Server-requested delay: retry-after-ms, else retry-after (seconds or an HTTP date); undefined when absent or unusable. */
export function parseRetryAfter(headers: HeadersLike | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return Math.round(n);
  }
  const ra = headers.get('retry-after');
  if (ra !== null && ra.trim() !== '') {
    const secs = Number(ra);
    if (Number.isFinite(secs)) return secs >= 0 ? Math.round(secs * 1000) : undefined;
    const date = Date.parse(ra);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  return undefined;
}

/** OpenAI's rate-limit texts say "Please try again in 1.574s" / "in 120ms". */
export function retryHintFromText(text: string): number | undefined {
  const m = /try again in\s*(\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  return Math.round(m[2]!.toLowerCase() === 'ms' ? n : n * 1000);
}

/** Replaces the API key (and any bearer header echoing it) with a marker. */
export function redactKey(text: string, apiKey: string): string {
  let out = text;
  if (apiKey.length >= 4) out = out.split(apiKey).join('[redacted]');
  return out.replace(/(Bearer\s+)[A-Za-z0-9._-]{12,}/g, '$1[redacted]');
}

const host = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

function networkReason(e: unknown): string | undefined {
  // undici wraps the socket error: TypeError('fetch failed', { cause: Error('connect ECONNREFUSED ...') })
  let cur: unknown = e;
  for (let depth = 0; depth < 4 && cur; depth++) {
    if (isObj(cur) || cur instanceof Error) {
      const rec = cur as { code?: unknown; message?: unknown; cause?: unknown };
      if (typeof rec.code === 'string' && typeof rec.message === 'string' && rec.message.length > 0) return rec.message;
      cur = rec.cause;
    } else break;
  }
  return undefined;
}

/** Socket errors of a connection that was made and then dropped by the other side (not refused, not unresolved). */
const DROPPED_CODES = new Set(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']);

/** The server was reached and closed the connection before answering ("socket hang up", "other side closed"). */
function droppedAfterConnect(e: unknown): boolean {
  let cur: unknown = e;
  for (let depth = 0; depth < 4 && (isObj(cur) || cur instanceof Error); depth++) {
    const rec = cur as { code?: unknown; cause?: unknown };
    if (typeof rec.code === 'string' && DROPPED_CODES.has(rec.code)) return true;
    cur = rec.cause;
  }
  return false;
}

const authHint = (ctx: FailureContext): string => `check ${ctx.apiKeyEnv} (the API key for ${ctx.provider})`;

/** Turns an SDK failure into the ProviderError the rest of the program understands. */
type ErrorClass = abstract new (...args: never[]) => Error;

/** The error classes every Stainless SDK exports (the Anthropic and OpenAI ones are distinct classes). */
export interface SdkErrorClasses {
  APIUserAbortError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIConnectionError: ErrorClass;
  APIError: ErrorClass;
}

/** Sorts an error thrown by an SDK into an SdkFailure, using that SDK's own classes. */
export function describeSdkError(err: unknown, sdk: SdkErrorClasses): SdkFailure {
  if (err instanceof sdk.APIUserAbortError) return { category: 'abort' };
  if (err instanceof sdk.APIConnectionTimeoutError) return { category: 'timeout' };
  if (err instanceof sdk.APIConnectionError) return { category: 'connection', message: err.message, cause: err.cause };
  if (err instanceof sdk.APIError) {
    const api = err as Error & { status?: number; headers?: HeadersLike; error?: unknown };
    return { category: 'api', status: api.status, headers: api.headers, body: api.error, message: api.message };
  }
  if (err instanceof Error && err.name === 'AbortError') return { category: 'abort' };
  return { category: 'other', error: err };
}

/**
 * What an adapter throws when a request fails: a ProviderError raised inside passes through;
 * anything else is described with the adapter's SDK classes and the tap's evidence (a stalled
 * stream, the raw error body).
 */
export function requestFailure(
  e: unknown,
  describe: (e: unknown) => SdkFailure,
  ctx: Omit<FailureContext, 'stalledAfterMs' | 'stalledStage' | 'rawBody'>,
  tap: Pick<RequestTap, 'stalledAfterMs' | 'errorBody'> & { stalledStage?: TimeoutStage | undefined },
): ProviderError {
  if (e instanceof ProviderError) return e;
  return toProviderError(describe(e), {
    ...ctx,
    ...(tap.stalledAfterMs !== undefined ? { stalledAfterMs: tap.stalledAfterMs } : {}),
    ...(tap.stalledStage !== undefined ? { stalledStage: tap.stalledStage } : {}),
    rawBody: tap.errorBody,
  });
}

export function toProviderError(failure: SdkFailure, ctx: FailureContext): ProviderError {
  const make = (
    kind: ProviderErrorKind,
    message: string,
    extra: { status?: number | undefined; retryAfterMs?: number | undefined; overflow?: OverflowInfo; requestId?: string | undefined; cause?: unknown } = {},
  ): ProviderError =>
    new ProviderError({
      kind,
      provider: ctx.provider,
      message: redactKey(message, ctx.apiKey),
      ...(extra.status !== undefined ? { status: extra.status } : {}),
      ...(extra.retryAfterMs !== undefined ? { retryAfterMs: extra.retryAfterMs } : {}),
      ...(extra.overflow !== undefined ? { overflow: extra.overflow } : {}),
      ...(extra.requestId !== undefined ? { requestId: extra.requestId } : {}),
      ...(extra.cause !== undefined ? { cause: extra.cause } : {}),
    });

  if (ctx.signal?.aborted) return make('aborted', 'the request was cancelled');
  if (ctx.stalledAfterMs !== undefined) {
    const secs = `${Math.round(ctx.stalledAfterMs / 100) / 10} s`;
    if (ctx.stalledStage === 'connect') return make('connection', `could not connect to ${host(ctx.baseURL)} within ${secs} (timeouts.connectMs)`);
    if (ctx.stalledStage === 'first_byte')
      return make('connection', `no response from ${host(ctx.baseURL)} within ${secs} of sending the request (timeouts.firstByteMs)`);
    return make('stream_cut', `the response stream stalled: no data for ${secs} (timeouts.idleMs)`);
  }

  switch (failure.category) {
    case 'abort':
      return make('aborted', 'the request was cancelled');
    case 'timeout':
      return make('connection', `the request to ${host(ctx.baseURL)} timed out`);
    case 'connection': {
      const reason = networkReason(failure.cause);
      if (ctx.streamStarted) return make('stream_cut', `the response stream broke off${reason ? `: ${reason}` : ''}`, { cause: failure.cause });
      // reached, then dropped before it answered: a cut, not a connection that could not be made
      if (droppedAfterConnect(failure.cause))
        return make('stream_cut', `${host(ctx.baseURL)} closed the connection before its response began${reason ? ` (${reason})` : ''}`, {
          cause: failure.cause,
        });
      return make('connection', `could not reach ${host(ctx.baseURL)}${reason ? `: ${reason}` : ` (${failure.message})`}`, { cause: failure.cause });
    }
    case 'other': {
      const e = failure.error;
      const reason = networkReason(e) ?? (e instanceof Error ? e.message : String(e));
      if (ctx.streamStarted) return make('stream_cut', `the response stream broke off: ${reason}`, { cause: e });
      if (droppedAfterConnect(e)) return make('stream_cut', `${host(ctx.baseURL)} closed the connection before its response began (${reason})`, { cause: e });
      if (networkReason(e) !== undefined || (e instanceof TypeError && /fetch failed|terminated|socket/i.test(e.message)))
        return make('connection', `could not reach ${host(ctx.baseURL)}: ${reason}`, { cause: e });
      return make('bad_request', reason, { cause: e });
    }
    case 'api':
      return apiError(failure, ctx, make);
  }
}

function apiError(
  failure: Extract<SdkFailure, { category: 'api' }>,
  ctx: FailureContext,
  make: (
    kind: ProviderErrorKind,
    message: string,
    extra?: { status?: number | undefined; retryAfterMs?: number | undefined; overflow?: OverflowInfo; requestId?: string | undefined },
  ) => ProviderError,
): ProviderError {
  const { status } = failure;
  const f = errorFields(failure.body, ctx.rawBody);
  const text = f.message ?? (status !== undefined ? `HTTP ${status}` : failure.message);
  const requestId = failure.headers?.get('request-id') ?? failure.headers?.get('x-request-id') ?? f.requestId ?? undefined;
  const base = { status, requestId };

  // context overflow, whatever the status (LM Studio can send it inside a 200 stream)
  const overflow = overflowOf(text, f, status);
  if (overflow) return make('context_overflow', text, { ...base, overflow });

  if (status === undefined) {
    // an error event inside a stream that had started fine
    if (f.type === 'overloaded_error' || /overloaded/i.test(text)) return make('overloaded', text, base);
    if (f.type === 'rate_limit_error' || f.code === 'rate_limit_exceeded') return make('rate_limit', text, base);
    return make('server', text, base);
  }
  if (status === 401 || status === 403) return make('auth', `${text} (${authHint(ctx)})`, base);
  if (status === 404) {
    const where = /^https?:\/\/api\.(openai|anthropic)\.com/.test(ctx.baseURL) ? '' : ` at ${ctx.baseURL}`;
    return make('not_found', `${text} (model "${ctx.model}"${where})`, base);
  }
  if (
    status === 402 ||
    f.code === 'insufficient_quota' ||
    f.type === 'insufficient_quota' ||
    f.type === 'billing_error' ||
    /credit balance is too low/i.test(text)
  )
    return make('quota', text, base);
  if (status === 429) {
    return make('rate_limit', text, { ...base, retryAfterMs: parseRetryAfter(failure.headers) ?? retryHintFromText(text) });
  }
  if (status === 529 || f.type === 'overloaded_error' || (status === 503 && /overloaded/i.test(text)))
    return make('overloaded', text, { ...base, retryAfterMs: parseRetryAfter(failure.headers) });
  if (status >= 500 || status === 408 || status === 409) return make('server', text, { ...base, retryAfterMs: parseRetryAfter(failure.headers) });
  return make('bad_request', text, base);
}

function overflowOf(text: string, f: ErrorFields, status: number | undefined): OverflowInfo | undefined {
  if (status !== undefined && status !== 400 && status !== 413 && status !== 422 && status < 500) return undefined;
  const parsed = parseOverflow(text);
  const flagged = f.code === 'context_length_exceeded' || f.type === 'exceed_context_size_error' || f.type === 'request_too_large' || status === 413;
  if (!parsed && !flagged) return undefined;
  const info: OverflowInfo = { ...(parsed ?? {}) };
  // llama.cpp sends exact figures beside its text
  if (f.promptTokens !== undefined) info.promptTokens = f.promptTokens;
  if (f.contextSize !== undefined) info.limit = f.contextSize;
  return info;
}
