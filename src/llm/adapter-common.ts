// What both adapters share (no SDK imports here).

import type { CacheSettings } from './cache.js';

export interface AdapterOptions {
  apiKey: string;
  /** Explicit base URL; when absent the SDK reads ANTHROPIC_BASE_URL / OPENAI_BASE_URL itself. */
  baseURL?: string | undefined;
  /** SDK timeout until the response headers arrive. Default: the SDK's (10 minutes). */
  timeoutMs?: number | undefined;
  /** A response stream silent for this long is abandoned (stream_cut). */
  idleTimeoutMs: number;
  /** Connecting to the server, per request (see transport.ts). */
  connectTimeoutMs?: number | undefined;
  /** From sending the request until the response begins. */
  firstByteTimeoutMs?: number | undefined;
  /** Variable named in authentication errors. */
  apiKeyEnv?: string | undefined;
  /** SDK warnings (deprecated model notices, log lines) that would otherwise go to the terminal. */
  onWarning?: ((message: string) => void) | undefined;
  /** OpenAI: force the output-limit field; default max_completion_tokens for api.openai.com, max_tokens elsewhere. */
  tokenField?: 'max_tokens' | 'max_completion_tokens' | undefined;
  /** Prompt caching (default: on, 5m TTL, prompt_cache_key only to api.openai.com). */
  cache?: CacheSettings | undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The input of a finished tool call from its streamed JSON. A call that may have been cut
 * off (max_tokens, or a block that never closed) and does not parse is dropped (undefined):
 * the half-written call must not reach the history. A complete call with unparseable
 * arguments (a local model's bad JSON) keeps an empty input, so the tool reports the
 * missing parameters to the model.
 */
export function finalToolInput(json: string, maybeTruncated: boolean): Record<string, unknown> | undefined {
  if (json.trim() === '') return maybeTruncated ? undefined : {};
  try {
    const parsed: unknown = JSON.parse(json);
    if (isRecord(parsed)) return parsed;
  } catch {
    // fall through
  }
  return maybeTruncated ? undefined : {};
}

type LogFn = (message: string, ...rest: unknown[]) => void;

/** An SDK logger that routes warnings and errors to onWarning and drops the rest. */
export function sdkLogger(opts: Pick<AdapterOptions, 'onWarning' | 'apiKey'>): { error: LogFn; warn: LogFn; info: LogFn; debug: LogFn } {
  const forward: LogFn = (message) => {
    if (!opts.onWarning) return;
    const text = opts.apiKey.length >= 4 ? message.split(opts.apiKey).join('[redacted]') : message;
    opts.onWarning(text);
  };
  const drop: LogFn = () => undefined;
  return { error: forward, warn: forward, info: drop, debug: drop };
}
