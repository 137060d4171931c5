// Per-request plumbing under the SDKs: a fetch wrapper handed to the SDK client that
// (1) keeps the raw body of error responses, which the OpenAI SDK drops when it has no
// `error` member (old vLLM), and (2) times each stage of the request on its own: connecting,
// waiting for the response to begin, and the silence between chunks of the stream (the SDKs'
// own timeout covers the whole wait for headers, and they swallow ping frames, so only the
// bytes tell whether the server is still there).
import { subscribe } from 'node:diagnostics_channel';

type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export type TimeoutStage = 'connect' | 'first_byte' | 'idle';

export interface TapTimeouts {
  /** Connecting (TCP, TLS) until the request is sent. Absent: covered by the first-byte timeout. */
  connectTimeoutMs?: number | undefined;
  /** From sending the request until the response begins. Absent: no limit here (the SDK's). */
  firstByteTimeoutMs?: number | undefined;
  /** Silence between chunks of the response body. */
  idleTimeoutMs: number;
}

// Node's fetch (undici) reports on this channel when it has connected and written a request's
// headers: the end of the connect stage. Requests waiting for it, per origin, oldest first.
const sending = new Map<string, Array<() => void>>();
let listening = false;

function listenForSentRequests(): void {
  if (listening) return;
  listening = true;
  subscribe('undici:client:sendHeaders', (message) => {
    const origin = (message as { request?: { origin?: unknown } }).request?.origin;
    if (typeof origin !== 'string') return;
    sending.get(origin)?.shift()?.();
  });
}

function originOf(input: string | URL | Request): string | undefined {
  try {
    return new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url).origin;
  } catch {
    return undefined;
  }
}

export class RequestTap {
  /** Raw body of the last non-2xx response. */
  errorBody: string | undefined;
  /** Set when a timeout fired: how long the stage had waited... */
  stalledAfterMs: number | undefined;
  /** ...and which stage it was. */
  stalledStage: TimeoutStage | undefined;
  /** Abort signal for the SDK call: the user's signal or a timeout. */
  readonly signal: AbortSignal;
  private readonly watch = new AbortController();
  private readonly timeouts: TapTimeouts;
  private timer: NodeJS.Timeout | undefined;
  private armed = false;

  constructor(
    timeouts: TapTimeouts | number,
    userSignal: AbortSignal | undefined,
    private readonly baseFetch: FetchFn = globalThis.fetch,
  ) {
    this.timeouts = typeof timeouts === 'number' ? { idleTimeoutMs: timeouts } : timeouts;
    this.signal = userSignal ? AbortSignal.any([userSignal, this.watch.signal]) : this.watch.signal;
  }

  /** Start the idle watch (once the response has begun). */
  arm(): void {
    this.armed = true;
    this.touch();
  }

  /** Data arrived: restart the idle watch. */
  touch(): void {
    if (!this.armed) return;
    this.stage('idle', this.timeouts.idleTimeoutMs);
  }

  /** Gives the current stage `ms` before the request is abandoned (undefined: no limit). */
  private stage(stage: TimeoutStage, ms: number | undefined): void {
    if (this.stalledAfterMs !== undefined) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (ms === undefined) return;
    this.timer = setTimeout(() => {
      this.stalledAfterMs = ms;
      this.stalledStage = stage;
      this.watch.abort(new Error(`${stage} timeout`));
    }, ms);
    this.timer.unref?.();
  }

  dispose(): void {
    this.armed = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  readonly fetch: FetchFn = async (input, init) => {
    const { connectTimeoutMs, firstByteTimeoutMs } = this.timeouts;
    // the connect stage can only be told apart with Node's own fetch (see the channel above)
    const origin = connectTimeoutMs !== undefined && this.baseFetch === globalThis.fetch ? originOf(input) : undefined;
    let sent: (() => void) | undefined;
    if (origin) {
      listenForSentRequests();
      sent = () => this.stage('first_byte', firstByteTimeoutMs);
      const queue = sending.get(origin) ?? [];
      queue.push(sent);
      sending.set(origin, queue);
      this.stage('connect', connectTimeoutMs);
    } else {
      this.stage('first_byte', firstByteTimeoutMs === undefined ? undefined : firstByteTimeoutMs + (connectTimeoutMs ?? 0));
    }
    let res: Response;
    try {
      res = await this.baseFetch(input, init);
    } finally {
      if (origin && sent) {
        const queue = sending.get(origin);
        const i = queue?.indexOf(sent) ?? -1;
        if (queue && i >= 0) queue.splice(i, 1);
        if (queue?.length === 0) sending.delete(origin);
      }
      this.stage('first_byte', undefined);
    }
    if (!res.ok) {
      try {
        this.errorBody = await res.clone().text();
      } catch {
        this.errorBody = undefined;
      }
      return res;
    }
    if (!res.body) return res;
    const touch = (): void => this.touch();
    // a plain pull source, not pipeThrough(): piping releases its reader when the body ends, and
    // Node builds that "released" error lazily in a new vm context, ~7 ms on every first request
    const reader = res.body.getReader();
    const watched = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        touch();
        controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(watched, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
