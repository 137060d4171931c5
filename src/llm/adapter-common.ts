// What both adapters share (no SDK imports here).

import type { CacheSettings } from './cache.js';
import type { ModelRequest, StreamEvent } from './provider.js';
import { requestFailure, type SdkFailure } from './sdk-errors.js';
import { RequestTap } from './transport.js';

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
  /** OpenAI Responses, reasoning models: reasoning.effort (default medium). */
  reasoningEffort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | undefined;
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
function sdkLogger(opts: Pick<AdapterOptions, 'onWarning' | 'apiKey'>): { error: LogFn; warn: LogFn; info: LogFn; debug: LogFn } {
  const forward: LogFn = (message) => {
    if (!opts.onWarning) return;
    const text = opts.apiKey.length >= 4 ? message.split(opts.apiKey).join('[redacted]') : message;
    opts.onWarning(text);
  };
  const drop: LogFn = () => undefined;
  return { error: forward, warn: forward, info: drop, debug: drop };
}

/** onWarning that passes each distinct SDK notice on once per provider, not on every request. */
function onceEach(onWarning: ((message: string) => void) | undefined): (message: string) => void {
  const warned = new Set<string>();
  return (message) => {
    if (warned.has(message)) return;
    warned.add(message);
    onWarning?.(message);
  };
}

/**
 * The options both SDK clients take, for one request: no SDK retries (retry.ts decides), the
 * request's own fetch wrapper, and the SDK's log lines routed to `warn`.
 */
function clientOptions(opts: AdapterOptions, tap: RequestTap, warn: (message: string) => void) {
  return {
    apiKey: opts.apiKey,
    ...(opts.baseURL !== undefined ? { baseURL: opts.baseURL } : {}),
    ...(opts.timeoutMs !== undefined ? { timeout: opts.timeoutMs } : {}),
    maxRetries: 0,
    // the SDKs read the part of a Response that HttpResponse has (see httpFetch.ts)
    fetch: tap.fetch as unknown as typeof fetch,
    logger: sdkLogger({ apiKey: opts.apiKey, onWarning: warn }),
  };
}

/** Runs `fn` with console.warn captured (the SDKs' deprecation notices), forwarding to onWarning. */
export async function withWarningsTo<T>(onWarning: (message: string) => void, fn: () => Promise<T>): Promise<T> {
  const original = console.warn;
  const captured: string[] = [];
  console.warn = (...args: unknown[]) => void captured.push(args.map(String).join(' '));
  let pending: Promise<T>;
  try {
    // create() warns synchronously before it returns its promise
    pending = fn();
  } finally {
    console.warn = original;
  }
  for (const w of captured) onWarning(w);
  return pending;
}

/** How an adapter plugs its SDK into runRequest. */
interface AdapterSpec<C extends { baseURL: string }> {
  provider: 'anthropic' | 'openai';
  /** The key variable named in authentication errors when the options name none. */
  keyEnv: string;
  /** One client per request, so that its fetch wrapper belongs to that request (constructing one costs under 0.1 ms). */
  client: (tap: RequestTap) => C;
  describe: (err: unknown) => SdkFailure;
  /** The SDK's abort error: thrown when the caller or the idle timer stopped the request. */
  aborted: () => Error;
}

/** An adapter's SDK as it plugs in: its client built from the options clientOptions derives. */
export type SdkFrame<C extends { baseURL: string }> = Omit<AdapterSpec<C>, 'client'> & { client: (options: ReturnType<typeof clientOptions>) => C };

export interface RequestContext<C> {
  client: C;
  /** For the SDK call: the caller's signal or a timeout of the tap. */
  signal: AbortSignal;
  /** The response began: from now the idle timer watches the stream. */
  begin(): void;
  /** After the stream ended: throws the SDK's abort error if it ended because it was stopped. */
  checkStopped(): void;
}

/**
 * The frame of one streamed request, the same for both adapters: a RequestTap and a client of
 * its own, an early abort, every failure turned into a ProviderError with the tap's timings and
 * raw error body, and the tap disposed at the end.
 */
async function* runRequest<C extends { baseURL: string }>(
  opts: AdapterOptions,
  req: ModelRequest,
  spec: AdapterSpec<C>,
  body: (ctx: RequestContext<C>) => AsyncGenerator<StreamEvent>,
): AsyncGenerator<StreamEvent> {
  const tap = new RequestTap(opts, req.signal);
  const client = spec.client(tap);
  let started = false;
  try {
    if (req.signal?.aborted) throw spec.aborted();
    yield* body({
      client,
      signal: tap.signal,
      begin: () => {
        started = true;
        tap.arm();
      },
      checkStopped: () => {
        if (tap.stalledAfterMs !== undefined || req.signal?.aborted) throw spec.aborted();
      },
    });
  } catch (e) {
    throw requestFailure(
      e,
      spec.describe,
      {
        provider: spec.provider,
        model: req.model,
        apiKey: opts.apiKey,
        apiKeyEnv: opts.apiKeyEnv ?? spec.keyEnv,
        baseURL: client.baseURL,
        signal: req.signal,
        streamStarted: started,
      },
      tap,
    );
  } finally {
    tap.dispose();
  }
}

/**
 * An SDK adapter: the provider's options, each distinct SDK notice passed on once (not on every
 * request), and every request run in runRequest's frame. Subclasses turn one request into events.
 */
export abstract class SdkAdapter<C extends { baseURL: string }> {
  protected readonly warn: (message: string) => void;
  private readonly spec: AdapterSpec<C>;

  constructor(
    protected readonly opts: AdapterOptions,
    sdk: SdkFrame<C>,
  ) {
    this.warn = onceEach(opts.onWarning);
    this.spec = { ...sdk, client: (tap) => sdk.client(clientOptions(opts, tap, this.warn)) };
  }

  stream(req: ModelRequest): AsyncGenerator<StreamEvent> {
    return runRequest(this.opts, req, this.spec, (ctx) => this.events(req, ctx));
  }

  /** One request that is not a streamed reply, in the same frame (timeouts, errors as ProviderError). */
  protected async once<T>(req: ModelRequest, call: (ctx: RequestContext<C>) => Promise<T>): Promise<T> {
    let out: { value: T } | undefined;
    for await (const _ of runRequest(this.opts, req, this.spec, async function* (ctx) {
      // no idle timer: the first-byte timeout covers the wait for a non-streamed answer
      out = { value: await call(ctx) };
    }));
    if (!out) throw new Error('the request ended without a result');
    return out.value;
  }

  protected abstract events(req: ModelRequest, ctx: RequestContext<C>): AsyncGenerator<StreamEvent>;

  /** One call that is not a streamed reply (a model lookup), in the same frame: timeouts, a ProviderError on failure. */
  protected async call<T>(model: string, fn: (client: C, signal: AbortSignal) => Promise<T>): Promise<T> {
    const box: { value?: T } = {};
    const req: ModelRequest = { model, system: '', messages: [], tools: [], maxTokens: 1 };
    const frame = runRequest(this.opts, req, this.spec, async function* (ctx): AsyncGenerator<StreamEvent> {
      box.value = await fn(ctx.client, ctx.signal);
    });
    for await (const _ of frame) {
      // a lookup yields no events
    }
    return box.value as T;
  }
}
