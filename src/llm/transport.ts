// Per-request plumbing under the SDKs: a fetch wrapper handed to the SDK client that
// (1) keeps the raw body of error responses, which the OpenAI SDK drops when it has no
// `error` member (old vLLM), and (2) watches the response body, so a stream that goes
// silent can be abandoned (the SDKs' own timeout stops at the response headers, and they
// swallow ping frames, so only the bytes tell whether the server is still there).

type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export class RequestTap {
  /** Raw body of the last non-2xx response. */
  errorBody: string | undefined;
  /** Set when the idle watch fired. */
  stalledAfterMs: number | undefined;
  /** Abort signal for the SDK call: the user's signal or the idle watch. */
  readonly signal: AbortSignal;
  private readonly idle = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private armed = false;

  constructor(
    private readonly idleTimeoutMs: number,
    userSignal: AbortSignal | undefined,
    private readonly baseFetch: FetchFn = globalThis.fetch,
  ) {
    this.signal = userSignal ? AbortSignal.any([userSignal, this.idle.signal]) : this.idle.signal;
  }

  /** Start the idle watch (once the response has begun). */
  arm(): void {
    this.armed = true;
    this.touch();
  }

  /** Data arrived: restart the idle watch. */
  touch(): void {
    if (!this.armed || this.stalledAfterMs !== undefined) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.stalledAfterMs = this.idleTimeoutMs;
      this.idle.abort(new Error('stream idle timeout'));
    }, this.idleTimeoutMs);
    this.timer.unref?.();
  }

  dispose(): void {
    this.armed = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  readonly fetch: FetchFn = async (input, init) => {
    const res = await this.baseFetch(input, init);
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
    const watched = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          touch();
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(watched, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
