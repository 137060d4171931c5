// Per-request plumbing under the SDKs: a fetch wrapper handed to the SDK client that
// (1) keeps the raw body of error responses, which the OpenAI SDK drops when it has no
// `error` member (old vLLM), and (2) times each stage of the request on its own: connecting,
// waiting for the response to begin, and the silence between chunks of the stream (the SDKs'
// own timeout covers the whole wait for headers, and they swallow ping frames, so only the
// bytes tell whether the server is still there).
import { createFetch, type HttpRequestInit, type HttpResponse } from './httpFetch.js';

export type TimeoutStage = 'connect' | 'first_byte' | 'idle';

export interface TapTimeouts {
  /** Connecting (TCP, TLS) until the request is sent. Absent: covered by the first-byte timeout. */
  connectTimeoutMs?: number | undefined;
  /** From sending the request until the response begins. Absent: no limit here (the SDK's). */
  firstByteTimeoutMs?: number | undefined;
  /** Silence between chunks of the response body. */
  idleTimeoutMs: number;
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

  constructor(timeouts: TapTimeouts | number, userSignal: AbortSignal | undefined) {
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

  private readonly http = createFetch({
    // connected, TLS done, request written: the connect stage is over
    sent: () => this.stage('first_byte', this.timeouts.firstByteTimeoutMs),
    data: () => this.touch(),
  });

  /** The fetch handed to the SDK client: every stage timed, the body of an error response kept. */
  readonly fetch = async (input: string | URL | { url: string }, init?: HttpRequestInit): Promise<HttpResponse> => {
    const { connectTimeoutMs, firstByteTimeoutMs } = this.timeouts;
    if (connectTimeoutMs !== undefined) this.stage('connect', connectTimeoutMs);
    else this.stage('first_byte', firstByteTimeoutMs);
    let res: HttpResponse;
    try {
      res = await this.http(input, init);
    } finally {
      this.stage('first_byte', undefined);
    }
    if (!res.ok) this.errorBody = await res.text().catch(() => undefined);
    return res;
  };
}
