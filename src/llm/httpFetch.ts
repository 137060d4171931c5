// The fetch both SDK clients are given: one HTTP(S) request over node:http and node:https.
//
// Why not Node's own fetch: its first use loads undici (~20 ms of JavaScript) and compiles its
// HTTP parser (WebAssembly) in the background, which the process then waits for when it exits:
// ~40 ms more on every `agent -p`. Keep-alive connections are reused across the requests of a
// session, as Node's fetch does.
//
// What the SDKs use of a Response is what this one has: ok, status, statusText, url, headers,
// body (an async iterable of byte chunks, which the SDKs read and cancel like a stream), text(),
// json() and arrayBuffer(). Redirects are followed; gzip, deflate and br bodies are decoded.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import type { Agent as HttpsAgentType } from 'node:https';
import { HttpHeaders, type HeadersInit } from './httpHeaders.js';

export interface FetchHooks {
  /** The request is on the wire (connected, TLS done, headers and body written). */
  sent?(): void;
  /** A chunk of the response body arrived. */
  data?(): void;
}

export interface HttpRequestInit {
  method?: string | undefined;
  headers?: HeadersInit | undefined;
  body?: unknown;
  signal?: AbortSignal | null | undefined;
}

const MAX_REDIRECTS = 10;

/**
 * How long an idle kept-alive connection is kept for reuse (Node's fetch keeps one 4 s). Longer
 * risks reusing one a server or a NAT has dropped without a word: the next request would then
 * wait out its first-byte timeout instead of connecting again.
 */
export const IDLE_SOCKET_MS = 4_000;

/** Keep-alive connection pools, one per protocol, shared by every fetch with the same idle time. */
class Pools {
  private http: HttpAgent | undefined;
  private https: HttpsAgentType | undefined;
  constructor(private readonly idleMs: number) {}

  /** node:https (and TLS with it) is loaded on the first https request, not before. */
  async for(url: URL): Promise<{ request: typeof httpRequest; agent: HttpAgent }> {
    // `timeout` closes a pooled connection once it has been idle that long (an active one is only told)
    if (url.protocol === 'http:') return { request: httpRequest, agent: (this.http ??= new HttpAgent({ keepAlive: true, timeout: this.idleMs })) };
    if (url.protocol !== 'https:') throw new TypeError(`fetch failed: unsupported protocol "${url.protocol}" in ${url.href}`);
    httpsModule ??= await import('node:https');
    return { request: httpsModule.request, agent: (this.https ??= new httpsModule.Agent({ keepAlive: true, timeout: this.idleMs })) };
  }
}

let httpsModule: typeof import('node:https') | undefined;
const sharedPools = new Pools(IDLE_SOCKET_MS);

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return new DOMException('This operation was aborted', 'AbortError');
}

/** The request body as bytes or a string; streamed bodies are written chunk by chunk. */
type Body = string | Uint8Array | AsyncIterable<Uint8Array | string> | undefined;

function toBody(body: unknown): Body {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (typeof body === 'object' && Symbol.asyncIterator in body) return body as AsyncIterable<Uint8Array | string>;
  throw new TypeError('fetch: the request body must be a string, bytes or an async iterable of chunks');
}

async function writeBody(req: ClientRequest, body: Body): Promise<void> {
  if (body === undefined || typeof body === 'string' || body instanceof Uint8Array) {
    req.end(body);
    return;
  }
  for await (const chunk of body) {
    if (!req.write(chunk)) await new Promise<void>((resolve) => req.once('drain', () => resolve()));
  }
  req.end();
}

/** Fetch over node:http(s), reporting the request's stages to `hooks`. `idleSocketMs` (tests) gives it pools of its own. */
export function createFetch(hooks: FetchHooks = {}, opts: { idleSocketMs?: number } = {}) {
  const pools = opts.idleSocketMs === undefined ? sharedPools : new Pools(opts.idleSocketMs);
  return async function fetch(input: string | URL | { url: string }, init: HttpRequestInit = {}): Promise<HttpResponse> {
    let url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    let method = (init.method ?? 'GET').toUpperCase();
    let body = toBody(init.body);
    const headers = new HttpHeaders(init.headers);
    const signal = init.signal ?? undefined;
    for (let hop = 0; ; hop++) {
      const res = await send(pools, url, method, headers, body, signal, hooks);
      const location = res.headers.get('location');
      if (!isRedirect(res.status) || location === null) {
        res.redirected = hop > 0;
        return res;
      }
      res.discard();
      if (hop >= MAX_REDIRECTS) throw new TypeError(`fetch failed: more than ${MAX_REDIRECTS} redirects from ${url.href}`);
      if (typeof body === 'object' && !(body instanceof Uint8Array))
        throw new TypeError(`fetch failed: a streamed request body cannot follow the redirect from ${url.href}`);
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = method === 'HEAD' ? 'HEAD' : 'GET';
        body = undefined;
        headers.delete('content-type');
        headers.delete('content-length');
      }
      const next = new URL(location, url);
      if (next.origin !== url.origin) headers.delete('authorization');
      url = next;
    }
  };
}

const isRedirect = (status: number): boolean => status === 301 || status === 302 || status === 303 || status === 307 || status === 308;

async function send(
  pools: Pools,
  url: URL,
  method: string,
  headers: HttpHeaders,
  body: Body,
  signal: AbortSignal | undefined,
  hooks: FetchHooks,
): Promise<HttpResponse> {
  if (signal?.aborted) throw abortError(signal);
  const { request, agent } = await pools.for(url);
  const outgoing: RequestOptions['headers'] = {};
  headers.forEach((value, name) => (outgoing[name] = value));
  if (typeof body === 'string') outgoing['content-length'] ??= String(Buffer.byteLength(body));
  else if (body instanceof Uint8Array) outgoing['content-length'] ??= String(body.byteLength);
  return new Promise<HttpResponse>((resolve, reject) => {
    const req = request(url, { method, headers: outgoing, agent });
    let response: HttpResponse | undefined;
    const onAbort = (): void => {
      const e = abortError(signal!);
      req.destroy(e);
      response?.fail(e);
      reject(e);
    };
    const release = (): void => signal?.removeEventListener('abort', onAbort);
    signal?.addEventListener('abort', onAbort, { once: true });
    req.once('finish', () => {
      if (!response) hooks.sent?.();
    });
    // `on`, not `once`: a request destroyed twice (an abort after a failure) emits twice
    req.on('error', (e) => {
      release();
      // as Node's fetch does: the network error is the cause of a "fetch failed"
      reject(new TypeError('fetch failed', { cause: e }));
    });
    req.once('response', (res) => {
      response = new HttpResponse(url, res, hooks, release);
      resolve(response);
    });
    writeBody(req, body).catch((e: unknown) => req.destroy(e instanceof Error ? e : new Error(String(e))));
  });
}

/** The decoded body stream of a response (content-encoding undone). */
async function decoded(res: IncomingMessage): Promise<AsyncIterable<Buffer>> {
  const encoding = (res.headers['content-encoding'] ?? '').toLowerCase().trim();
  if (encoding === '' || encoding === 'identity') return res;
  const zlib = await import('node:zlib');
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : encoding === 'br'
          ? zlib.createBrotliDecompress()
          : undefined;
  if (!decoder) return res;
  res.on('error', (e) => decoder.destroy(e));
  return res.pipe(decoder);
}

/**
 * An event stream's chunks cut after every 16th event (views, no copy). The OpenAI SDK's reader
 * (openai 6) copies what it holds past each event it takes from a chunk, so a chunk of k events cost
 * it k times the chunk: a 1 MB stream of 5,000 events read in ~64 KB chunks took 72 ms to parse,
 * 49 ms cut. Not one event a piece: the Anthropic SDK's reader (linear already) pays a little for each.
 */
const EVENTS_A_PIECE = 16;
class EventCuts {
  /** The last two bytes of the chunks before (-1: none): a blank line may end across two chunks. */
  private last = -1;
  private beforeLast = -1;
  private events = 0;

  *cut(chunk: Buffer): Generator<Buffer> {
    let start = 0;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) {
      const b1 = i >= 1 ? chunk[i - 1] : this.last;
      const b2 = i >= 2 ? chunk[i - 2] : i === 1 ? this.last : this.beforeLast;
      // "\n\n" or "\r\n\r\n" ends an event
      if ((b1 === 10 || (b1 === 13 && b2 === 10)) && ++this.events % EVENTS_A_PIECE === 0) {
        yield chunk.subarray(start, i + 1);
        start = i + 1;
      }
    }
    if (start < chunk.length) yield chunk.subarray(start);
    if (chunk.length >= 2) this.beforeLast = chunk[chunk.length - 2]!;
    else if (chunk.length === 1) this.beforeLast = this.last;
    if (chunk.length >= 1) this.last = chunk[chunk.length - 1]!;
  }
}

export class HttpResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly url: string;
  readonly headers: HttpHeaders;
  /** Set when redirects were followed to reach this response. */
  redirected = false;
  /** The body's chunks, each reported to hooks.data. */
  readonly body: AsyncGenerator<Uint8Array, void, undefined>;
  private used = false;
  private failure: Error | undefined;
  /** The whole body, once read by arrayBuffer(), text() or json(): they may be called again. */
  private bytes: Promise<ArrayBuffer> | undefined;

  constructor(
    url: URL,
    private readonly res: IncomingMessage,
    hooks: FetchHooks,
    release: () => void,
  ) {
    this.status = res.statusCode ?? 0;
    this.ok = this.status >= 200 && this.status < 300;
    this.statusText = res.statusMessage ?? '';
    this.url = url.href;
    this.headers = new HttpHeaders();
    const raw = res.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) this.headers.append(raw[i]!, raw[i + 1]!);
    this.body = this.chunks(hooks, release);
  }

  get bodyUsed(): boolean {
    return this.used;
  }

  /** The abort signal fired: the body ends with this error. */
  fail(e: Error): void {
    this.failure = e;
    this.res.destroy(e);
  }

  /** Drops the body and frees the connection (a redirect). */
  discard(): void {
    this.res.resume();
  }

  private async *chunks(hooks: FetchHooks, release: () => void): AsyncGenerator<Uint8Array, void, undefined> {
    this.used = true;
    const events = /^\s*text\/event-stream/i.test(this.headers.get('content-type') ?? '') ? new EventCuts() : undefined;
    try {
      for await (const chunk of await decoded(this.res)) {
        hooks.data?.();
        if (events) yield* events.cut(chunk);
        else yield chunk;
      }
      if (this.failure) throw this.failure;
    } catch (e) {
      throw this.failure ?? e;
    } finally {
      release();
      // stopped early (the SDK cancelled the stream): close the connection instead of reading on
      if (!this.res.complete) this.res.destroy();
    }
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    if (this.bytes) return this.bytes;
    if (this.used) return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
    this.bytes = (async () => {
      const parts: Uint8Array[] = [];
      for await (const chunk of this.body) parts.push(chunk);
      const all = Buffer.concat(parts);
      return all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer;
    })();
    return this.bytes;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.arrayBuffer());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
}
