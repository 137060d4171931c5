import { describe, expect, it } from 'vitest';
import { errorFields, parseRetryAfter, redactKey, retryHintFromText, toProviderError, type FailureContext, type SdkFailure } from '../../src/llm/sdk-errors.js';

const headers = (h: Record<string, string>) => new Headers(h);

const ctx = (over: Partial<FailureContext> = {}): FailureContext => ({
  provider: 'anthropic',
  model: 'claude-x',
  apiKey: 'sk-ant-SECRET-0123456789',
  apiKeyEnv: 'ANTHROPIC_API_KEY',
  baseURL: 'https://api.anthropic.com',
  streamStarted: false,
  ...over,
});

const api = (status: number | undefined, body: unknown, h: Record<string, string> = {}): SdkFailure => ({
  category: 'api',
  status,
  headers: status === undefined && Object.keys(h).length === 0 ? undefined : headers(h),
  body,
  message: `${status} ${JSON.stringify(body)}`,
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('prefers retry-after-ms, then seconds, then an HTTP date', () => {
    expect(parseRetryAfter(headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(parseRetryAfter(headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(parseRetryAfter(headers({ 'retry-after': '1.5' }), now)).toBe(1500);
    expect(parseRetryAfter(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now)).toBe(30_000);
  });
  it('a past date is 0; garbage or nothing is undefined', () => {
    expect(parseRetryAfter(headers({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }), now)).toBe(0);
    expect(parseRetryAfter(headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(headers({}), now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
  it('reads OpenAI\'s "try again in" hint', () => {
    expect(retryHintFromText('Please try again in 1.574s. Visit')).toBe(1574);
    expect(retryHintFromText('Please try again in 120ms.')).toBe(120);
    expect(retryHintFromText('nothing here')).toBeUndefined();
  });
});

describe('errorFields', () => {
  it('reads every body shape', () => {
    expect(errorFields({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'req_1' })).toEqual({
      type: 'overloaded_error',
      message: 'Overloaded',
      requestId: 'req_1',
    });
    expect(errorFields({ message: 'm', type: 'invalid_request_error', code: 'context_length_exceeded', param: 'messages' })).toMatchObject({
      message: 'm',
      code: 'context_length_exceeded',
    });
    expect(errorFields('Cannot truncate prompt with n_keep (1) >= n_ctx (2)').message).toBe('Cannot truncate prompt with n_keep (1) >= n_ctx (2)');
    expect(errorFields(undefined, '{"object":"error","message":"flat text","type":"BadRequestError","code":400}')).toMatchObject({ message: 'flat text' });
    expect(errorFields(undefined, '<html><body><h1>502 Bad Gateway</h1></body></html>').message).toBe('502 Bad Gateway');
    expect(errorFields({ code: 400, message: 'request (9 tokens) exceeds', type: 'exceed_context_size_error', n_prompt_tokens: 9, n_ctx: 8 })).toMatchObject({
      promptTokens: 9,
      contextSize: 8,
    });
  });
});

describe('redactKey', () => {
  it('removes the key and bearer tokens', () => {
    expect(redactKey('bad key sk-ant-SECRET-0123456789 here', 'sk-ant-SECRET-0123456789')).toBe('bad key [redacted] here');
    expect(redactKey('Authorization: Bearer abcdefghijklmnop', 'zzzz')).toBe('Authorization: Bearer [redacted]');
  });
});

describe('toProviderError', () => {
  it('maps statuses to kinds', () => {
    const kinds = [
      [api(401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }), 'auth'],
      [api(403, { type: 'error', error: { type: 'permission_error', message: 'no' } }), 'auth'],
      [api(404, { type: 'error', error: { type: 'not_found_error', message: 'model: claude-x' } }), 'not_found'],
      [api(429, { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }), 'rate_limit'],
      [api(429, { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' }), 'quota'],
      [api(400, { type: 'error', error: { type: 'invalid_request_error', message: 'Your credit balance is too low to access the Anthropic API.' } }), 'quota'],
      [api(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }), 'overloaded'],
      [api(500, { type: 'error', error: { type: 'api_error', message: 'Internal server error' } }), 'server'],
      [api(503, { message: 'The engine is currently overloaded, please try again later', type: 'server_error' }), 'overloaded'],
      [api(400, { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } }), 'bad_request'],
      [api(413, { type: 'error', error: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' } }), 'context_overflow'],
      [api(undefined, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }), 'overloaded'],
      [api(undefined, { message: 'The server had an error', type: 'server_error' }), 'server'],
      [{ category: 'abort' }, 'aborted'],
      [{ category: 'timeout' }, 'connection'],
    ] as const;
    for (const [failure, kind] of kinds) expect(toProviderError(failure, ctx()).kind, JSON.stringify(failure)).toBe(kind);
  });

  it("uses the provider's own message, never the JSON dump", () => {
    const e = toProviderError(api(500, { type: 'error', error: { type: 'api_error', message: 'Internal server error' } }), ctx());
    expect(e.message).toBe('Internal server error');
    expect(e.status).toBe(500);
  });

  it('names the environment variable on auth errors and the model on 404', () => {
    const auth = toProviderError(
      api(401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }),
      ctx({ apiKeyEnv: 'MY_KEY' }),
    );
    expect(auth.message).toContain('invalid x-api-key');
    expect(auth.message).toContain('MY_KEY');
    const nf = toProviderError(
      api(404, { message: 'The model `gpt-x` does not exist', type: 'invalid_request_error' }),
      ctx({ provider: 'openai', model: 'gpt-x', baseURL: 'http://localhost:11434/v1' }),
    );
    expect(nf.message).toContain('"gpt-x"');
    expect(nf.message).toContain('http://localhost:11434/v1');
  });

  it("parses overflow figures, preferring llama.cpp's exact fields", () => {
    const a = toProviderError(
      api(400, { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } }),
      ctx(),
    );
    expect(a).toMatchObject({ kind: 'context_overflow', overflow: { promptTokens: 210000, limit: 200000 } });
    const l = toProviderError(
      api(400, {
        code: 400,
        message: 'request (9412 tokens) exceeds the available context size (8192 tokens), try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 9413,
        n_ctx: 8192,
      }),
      ctx({ provider: 'openai' }),
    );
    expect(l.overflow).toEqual({ promptTokens: 9413, limit: 8192 });
    const coded = toProviderError(
      api(400, { message: 'Context too long', type: 'invalid_request_error', code: 'context_length_exceeded' }),
      ctx({ provider: 'openai' }),
    );
    expect(coded).toMatchObject({ kind: 'context_overflow', overflow: {} });
  });

  it('takes retry-after on 429 and 529, and the text hint when headers say nothing', () => {
    expect(toProviderError(api(429, { type: 'error', error: { type: 'rate_limit_error', message: 'x' } }, { 'retry-after': '3' }), ctx()).retryAfterMs).toBe(
      3000,
    );
    expect(
      toProviderError(api(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, { 'retry-after-ms': '40' }), ctx()).retryAfterMs,
    ).toBe(40);
    expect(
      toProviderError(api(429, { message: 'Please try again in 1.574s.', type: 'tokens', code: 'rate_limit_exceeded' }), ctx({ provider: 'openai' }))
        .retryAfterMs,
    ).toBe(1574);
  });

  it('tells a connection failure before the response from a stream broken after it', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    const before = toProviderError({ category: 'connection', message: 'Connection error.', cause }, ctx({ baseURL: 'http://127.0.0.1:9' }));
    expect(before.kind).toBe('connection');
    expect(before.message).toBe('could not reach 127.0.0.1:9: connect ECONNREFUSED 127.0.0.1:9');
    const torn = toProviderError({ category: 'other', error: new TypeError('terminated') }, ctx({ streamStarted: true }));
    expect(torn.kind).toBe('stream_cut');
  });

  it('a connection reached then dropped (ECONNRESET, EPIPE, an undici socket error) is a stream_cut, its code found up to four causes deep', () => {
    const nested = (depth: number, code: string): unknown => {
      let e: unknown = Object.assign(new Error(`read ${code}`), { code });
      for (let i = 1; i < depth; i++) e = Object.assign(new Error('fetch failed'), { cause: e });
      return e;
    };
    const reset = toProviderError(
      { category: 'connection', message: 'Connection error.', cause: nested(1, 'ECONNRESET') },
      ctx({ baseURL: 'http://127.0.0.1:9' }),
    );
    expect(reset.kind).toBe('stream_cut');
    expect(reset.message).toBe('127.0.0.1:9 closed the connection before its response began (read ECONNRESET)');
    // mutation: the walk starting a level lower (depth = 1) misses the fourth cause
    expect(toProviderError({ category: 'connection', message: 'Connection error.', cause: nested(4, 'EPIPE') }, ctx()).kind).toBe('stream_cut');
    expect(toProviderError({ category: 'connection', message: 'Connection error.', cause: nested(5, 'EPIPE') }, ctx()).kind).toBe('connection');
    expect(toProviderError({ category: 'other', error: nested(2, 'UND_ERR_SOCKET') }, ctx()).kind).toBe('stream_cut');
    // a code that is not a drop, or none at all, is a connection that could not be made
    expect(toProviderError({ category: 'connection', message: 'Connection error.', cause: nested(1, 'ENOTFOUND') }, ctx()).kind).toBe('connection');
    expect(toProviderError({ category: 'connection', message: 'Connection error.', cause: { code: 42 } }, ctx()).kind).toBe('connection');
  });

  it("the user's abort wins over whatever error followed it; a stall is a stream_cut", () => {
    const ac = new AbortController();
    ac.abort();
    expect(toProviderError({ category: 'other', error: new Error('x') }, ctx({ signal: ac.signal, streamStarted: true })).kind).toBe('aborted');
    const stalled = toProviderError({ category: 'abort' }, ctx({ streamStarted: true, stalledAfterMs: 5000 }));
    expect(stalled.kind).toBe('stream_cut');
    expect(stalled.message).toContain('5 s');
  });

  it('never lets the key through', () => {
    const key = ctx().apiKey;
    const e = toProviderError(api(400, { type: 'error', error: { type: 'invalid_request_error', message: `bad header x-api-key: ${key}` } }), ctx());
    expect(e.message).not.toContain(key);
    expect(e.message).toContain('[redacted]');
  });
});
