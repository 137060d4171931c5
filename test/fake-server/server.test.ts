import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lastToolResults, lastUserText, startFakeServer, type FakeServer } from './server.js';

// The fake server checked against the real SDKs, used directly (no adapter in between).

let server: FakeServer;
let anthropic: Anthropic;
let openai: OpenAI;

beforeAll(async () => {
  server = await startFakeServer();
  anthropic = new Anthropic({ apiKey: 'sk-ant-test', baseURL: server.anthropicBaseURL, maxRetries: 0 });
  openai = new OpenAI({ apiKey: 'sk-test', baseURL: server.openaiBaseURL, maxRetries: 0 });
});
afterAll(() => server.close());
afterEach(() => {
  server.clear();
  server.respondWith(undefined);
  Object.assign(server.settings, { contextWindow: 1_000_000, overflow: 'openai', tokenMultiplier: 1, anthropicCountsMaxTokens: false });
});

const user = (content: string) => ({ role: 'user' as const, content });

async function anthropicError(p: Promise<unknown>): Promise<{ status: number | undefined; message: string; type: string | null }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof Anthropic.APIError) return { status: e.status, message: (e.error as { error: { message: string } }).error.message, type: e.type };
    throw e;
  }
  throw new Error('expected an error');
}

async function openaiError(p: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await p;
  } catch (e) {
    if (e instanceof OpenAI.APIError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

describe('Anthropic route with the real SDK', () => {
  it('streams text and tool calls that the SDK assembles into a Message', async () => {
    server.enqueue({ text: "I'll check the weather in Paris.", toolCalls: [{ name: 'get_weather', input: { location: 'Paris' } }], pings: true });
    const stream = anthropic.messages.stream({
      model: 'claude-opus-4-8',
      max_tokens: 1024,
      messages: [user('Weather?')],
      tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { location: { type: 'string' } } } }],
    });
    const deltas: string[] = [];
    stream.on('text', (t) => deltas.push(t));
    const msg = await stream.finalMessage();
    expect(msg.content).toEqual([
      { type: 'text', text: "I'll check the weather in Paris." },
      { type: 'tool_use', id: 'toolu_fake_1_0', name: 'get_weather', input: { location: 'Paris' } },
    ]);
    expect(deltas.length).toBeGreaterThan(2);
    expect(msg.stop_reason).toBe('tool_use');
    expect(msg.usage.input_tokens).toBe(server.requests[0]!.view!.promptTokens);
    expect(server.requests[0]!.headers['anthropic-version']).toBeTruthy();
    expect(server.requests[0]!.response).toEqual({ status: 200, kind: 'stream' });
  });

  it('answers a cache warm-up (16 output tokens beyond any thinking budget) without taking the reply queued for a turn', async () => {
    server.enqueue({ text: 'the turn' });
    const warm = (max_tokens: number, thinking?: { type: 'enabled'; budget_tokens: number }) =>
      anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens, messages: [user('hi')], ...(thinking ? { thinking } : {}) });
    // src/session/compactionEngine.ts's warm-up: 16 tokens, or the thinking budget plus 16 (max_tokens must exceed budget_tokens)
    expect((await warm(16)).content).toEqual([{ type: 'text', text: 'ok' }]);
    const thinking = await warm(2_048 + 16, { type: 'enabled', budget_tokens: 2_048 });
    expect(thinking.content.filter((b) => b.type === 'text')).toEqual([expect.objectContaining({ text: 'ok' })]);
    const turn = await warm(4_096, { type: 'enabled', budget_tokens: 2_048 });
    expect(turn.content.filter((b) => b.type === 'text')).toEqual([expect.objectContaining({ text: 'the turn' })]);
    // (checked: recognising a warm-up by max_tokens === 16 alone gives the thinking warm-up 'the turn')
  });

  it('answers non-streaming requests and count_tokens', async () => {
    server.enqueue({ text: 'plain', stop: 'max_tokens', usage: { outputTokens: 42, cacheReadTokens: 7 } });
    const msg = await anthropic.messages.create({ model: 'claude-haiku-4-5', max_tokens: 50, messages: [user('hello there')] });
    expect(msg.content).toEqual([{ type: 'text', text: 'plain' }]);
    expect(msg.stop_reason).toBe('max_tokens');
    expect(msg.usage.output_tokens).toBe(42);
    expect(msg.usage.cache_read_input_tokens).toBe(7);
    expect(msg._request_id).toBe('req_fake_1');
    const count = await anthropic.messages.countTokens({ model: 'claude-haiku-4-5', messages: [user('hello there')], system: 'be brief' });
    expect(count.input_tokens).toBe(server.requests[1]!.view!.promptTokens);
    expect(count.input_tokens).toBeGreaterThan(msg.usage.input_tokens + msg.usage.cache_read_input_tokens!);
  });

  it('accepts x-api-key as well as Bearer, and refuses a wrong key when one is configured', async () => {
    const ok = await fetch(`${server.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [user('hi')] }),
    });
    expect(ok.status).toBe(200);
    const strict = await startFakeServer({ apiKey: 'right' });
    try {
      const client = new Anthropic({ apiKey: 'wrong', baseURL: strict.anthropicBaseURL, maxRetries: 0 });
      const err = await anthropicError(client.messages.create({ model: 'm', max_tokens: 5, messages: [user('hi')] }));
      expect(err).toMatchObject({ status: 401, message: 'invalid x-api-key', type: 'authentication_error' });
    } finally {
      await strict.close();
    }
  });

  it('validates requests with the real texts', async () => {
    const send = (body: Record<string, unknown>) => anthropicError(anthropic.messages.create(body as never));
    expect((await send({ model: 'm', messages: [user('x')] })).message).toBe('max_tokens: Field required');
    expect((await send({ max_tokens: 5, messages: [user('x')] })).message).toBe('model: Field required');
    expect((await send({ model: 'm', max_tokens: 5, messages: [user('')] })).message).toBe(
      'messages.0: all messages must have non-empty content except for the optional final assistant message',
    );
    expect((await send({ model: 'm', max_tokens: 5, messages: [{ role: 'assistant', content: 'x' }, user('y')] })).message).toBe(
      'messages: first message must use the "user" role',
    );
    expect((await send({ model: 'm', max_tokens: 5, messages: [user('a'), user('b')] })).message).toBe(
      'messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row',
    );
    const toolUse = { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 't', input: {} }] };
    expect((await send({ model: 'm', max_tokens: 5, messages: [user('a'), toolUse, user('no result')] })).message).toBe(
      'messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    );
    // a tool_result after a text block is not "immediately after"
    const late = {
      role: 'user',
      content: [
        { type: 'text', text: 'first' },
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'r' },
      ],
    };
    expect((await send({ model: 'm', max_tokens: 5, messages: [user('a'), toolUse, late] })).message).toContain(
      '`tool_use` ids were found without `tool_result`',
    );
    const orphan = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'r' }] };
    expect((await send({ model: 'm', max_tokens: 5, messages: [user('a'), { role: 'assistant', content: 'ok' }, orphan] })).message).toBe(
      'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    );
    expect((await send({ model: 'm', max_tokens: 5, messages: [user('a')], tools: [{ name: 't', input_schema: { type: 'array' } }] })).message).toBe(
      "tools.0.custom.input_schema.type: Input should be 'object'",
    );
    expect((await send({ model: 'claude-opus-4-8', max_tokens: 100_000, messages: [user('a')], stream: true })).message).toBe(
      'max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-opus-4-8',
    );
    // nothing was consumed from the queue by invalid requests
    expect(server.requests.every((r) => r.response?.status === 400)).toBe(true);
  });

  it('answers over-long prompts with "prompt is too long" and keeps the queued reply for the retry', async () => {
    server.settings.contextWindow = { 'claude-small': 50, '*': 1_000_000 };
    server.enqueue({ text: 'after compaction' });
    const long = 'lorem ipsum dolor sit amet '.repeat(40);
    const err = await anthropicError(anthropic.messages.create({ model: 'claude-small', max_tokens: 10, messages: [user(long)] }));
    const count = server.requests[0]!.view!.promptTokens;
    expect(err).toMatchObject({ status: 400, message: `prompt is too long: ${count} tokens > 50 maximum` });
    expect(server.pendingReplies()).toBe(1);
    const ok = await anthropic.messages.create({ model: 'claude-small', max_tokens: 10, messages: [user('short')] });
    expect(ok.content).toEqual([{ type: 'text', text: 'after compaction' }]);
  });

  it('with anthropicCountsMaxTokens, refuses prompt + max_tokens over the window', async () => {
    server.settings.contextWindow = 100;
    server.settings.anthropicCountsMaxTokens = true;
    const err = await anthropicError(anthropic.messages.create({ model: 'm', max_tokens: 95, messages: [user('a few words here')] }));
    const count = server.requests[0]!.view!.promptTokens;
    expect(err.message).toBe(
      `input length and \`max_tokens\` exceed context limit: ${count} + 95 > 100, decrease input length or \`max_tokens\` and try again`,
    );
  });

  it('the token multiplier scales the count', async () => {
    server.enqueue({ text: 'a' }, { text: 'b' });
    const body = { model: 'm', max_tokens: 5, messages: [user('count these words please, all of them')] };
    await anthropic.messages.create(body);
    server.settings.tokenMultiplier = 2;
    await anthropic.messages.create(body);
    const [a, b] = server.requests.map((r) => r.view!.promptTokens);
    expect(b).toBe(Math.ceil(a! * 2));
  });

  it('sends an in-stream overloaded error, and drops the socket mid-stream', async () => {
    server.enqueue({ text: 'partial answer here', cut: { afterFrames: 3, how: 'error' } });
    const stream = anthropic.messages.stream({ model: 'm', max_tokens: 50, messages: [user('x')] });
    const err = await stream.finalMessage().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as InstanceType<typeof Anthropic.APIError>).status).toBeUndefined();
    expect((err as InstanceType<typeof Anthropic.APIError>).type).toBe('overloaded_error');

    server.enqueue({ text: 'partial answer here', cut: { afterFrames: 3, how: 'drop' } });
    const dropped = anthropic.messages.stream({ model: 'm', max_tokens: 50, messages: [user('x')] });
    await expect(dropped.finalMessage()).rejects.toThrow();
    expect(server.requests[1]!.response?.kind).toBe('dropped');
  });

  it('injects each scripted error with its status, type and headers', async () => {
    const cases = [
      [{ type: 'error', error: 'auth' }, 401, 'authentication_error'],
      [{ type: 'error', error: 'not_found' }, 404, 'not_found_error'],
      [{ type: 'error', error: 'rate_limit', retryAfterMs: 5 }, 429, 'rate_limit_error'],
      [{ type: 'error', error: 'server' }, 500, 'api_error'],
      [{ type: 'error', error: 'overloaded' }, 529, 'overloaded_error'],
      [{ type: 'error', error: 'request_too_large' }, 413, 'request_too_large'],
    ] as const;
    for (const [reply, status, type] of cases) {
      server.enqueue(reply);
      const err = await anthropicError(anthropic.messages.create({ model: 'm', max_tokens: 5, messages: [user('x')] }));
      expect(err.status).toBe(status);
      expect(err.type).toBe(type);
    }
    server.enqueue({ type: 'error', error: 'rate_limit' }, { type: 'error', error: 'rate_limit', retryAfterMs: 3, shouldRetry: false });
    const raw = () =>
      fetch(`${server.url}/v1/messages`, {
        method: 'POST',
        headers: { authorization: 'Bearer k', 'anthropic-version': '2026-10-21', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', max_tokens: 5, messages: [user('x')] }),
      });
    const first = await raw();
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('1');
    expect(first.headers.get('content-type')).toBe('application/json');
    const second = await raw();
    expect(second.headers.get('retry-after')).toBeNull();
    expect(second.headers.get('retry-after-ms')).toBe('3');
    expect(second.headers.get('x-should-retry')).toBe('false');
  });
});

describe('OpenAI route with the real SDK', () => {
  it('streams text and parallel tool calls that the SDK assembles', async () => {
    server.enqueue({
      text: 'Reading both.',
      toolCalls: [
        { name: 'read', input: { path: 'a' } },
        { name: 'read', input: { path: 'b' } },
      ],
    });
    const stream = openai.chat.completions.stream({ model: 'gpt-4o', messages: [user('go')], stream_options: { include_usage: true } });
    const done = await stream.finalChatCompletion();
    const msg = done.choices[0]!.message;
    expect(msg.content).toBe('Reading both.');
    expect(msg.tool_calls?.map((c) => (c.type === 'function' ? [c.id, c.function.arguments] : []))).toEqual([
      ['call_fake_1_0', '{"path":"a"}'],
      ['call_fake_1_1', '{"path":"b"}'],
    ]);
    expect(done.choices[0]!.finish_reason).toBe('tool_calls');
    expect(done.usage?.prompt_tokens).toBe(server.requests[0]!.view!.promptTokens);
  });

  it('sends the usage chunk only when include_usage is asked, and ends with [DONE]', async () => {
    const chunks = async (includeUsage: boolean) => {
      server.enqueue({ text: 'hello world' });
      const s = await openai.chat.completions.create({
        model: 'm',
        messages: [user('x')],
        stream: true,
        ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
      });
      const out = [];
      for await (const c of s) out.push(c);
      return out;
    };
    const withUsage = await chunks(true);
    const without = await chunks(false);
    expect(withUsage.filter((c) => c.usage).length).toBe(1);
    expect(withUsage[withUsage.length - 1]!.choices).toEqual([]);
    expect(without.filter((c) => c.usage).length).toBe(0);
    expect(server.requests[0]!.view!.includeUsage).toBe(true);
  });

  it('validates tool messages with the real texts', async () => {
    const call = {
      role: 'assistant' as const,
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function' as const, function: { name: 't', arguments: '{}' } }],
    };
    const missing = await openaiError(openai.chat.completions.create({ model: 'm', messages: [user('a'), call, user('b')] }));
    expect(missing.status).toBe(400);
    expect(missing.error).toMatchObject({
      message:
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1",
      type: 'invalid_request_error',
    });
    const orphan = await openaiError(
      openai.chat.completions.create({ model: 'm', messages: [user('a'), { role: 'tool', tool_call_id: 'call_1', content: 'r' }] }),
    );
    expect((orphan.error as { message: string }).message).toBe(
      "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    );
    const opts = await openaiError(openai.chat.completions.create({ model: 'm', messages: [user('a')], stream_options: { include_usage: true } }));
    expect((opts.error as { message: string }).message).toBe("The 'stream_options' parameter is only allowed when 'stream' is enabled.");
  });

  it('records max_tokens vs max_completion_tokens and the neutral view of tool messages', async () => {
    server.enqueue({ text: 'a' });
    const call = {
      role: 'assistant' as const,
      content: 'calling',
      tool_calls: [{ id: 'call_1', type: 'function' as const, function: { name: 't', arguments: '{"x":1}' } }],
    };
    await openai.chat.completions.create({
      model: 'm',
      max_completion_tokens: 77,
      messages: [{ role: 'system', content: 'sys' }, user('a'), call, { role: 'tool', tool_call_id: 'call_1', content: 'result!' }, user('next')],
    });
    const view = server.requests[0]!.view!;
    expect(view).toMatchObject({ system: 'sys', maxTokens: 77, maxTokensField: 'max_completion_tokens' });
    expect(view.messages[1]!.blocks).toEqual([
      { type: 'text', text: 'calling' },
      { type: 'tool_use', id: 'call_1', name: 't', input: { x: 1 } },
    ]);
    expect(lastToolResults(view)).toEqual([{ toolUseId: 'call_1', content: 'result!', isError: false }]);
    expect(lastUserText(view)).toBe('next');
  });

  it('answers overflow in every local-server flavor', async () => {
    server.settings.contextWindow = 20;
    const long = 'many words in this prompt '.repeat(10);
    const expectations: Record<string, (e: InstanceType<typeof OpenAI.APIError>, n: number) => void> = {
      openai: (e, n) => {
        expect(e.code).toBe('context_length_exceeded');
        expect((e.error as { message: string }).message).toContain(`However, your messages resulted in ${n} tokens`);
      },
      llamacpp: (e, n) => expect(e.error).toMatchObject({ type: 'exceed_context_size_error', n_prompt_tokens: n, n_ctx: 20 }),
      vllm: (e, n) => expect((e.error as { message: string }).message).toContain(`(parameter=input_tokens, value=${n})`),
      vllm_flat: (e) => expect(e.message).toBe('400 status code (no body)'),
      lmstudio: (e, n) => expect(e.error).toBe(`Cannot truncate prompt with n_keep (${n}) >= n_ctx (20)`),
      lmstudio_old: (e, n) => expect(String(e.error)).toContain(`Trying to keep the first ${n} tokens`),
      ollama_error: (e) => expect((e.error as { message: string }).message).toBe('the input length exceeds the context length'),
    };
    for (const [flavor, check] of Object.entries(expectations)) {
      server.settings.overflow = flavor as never;
      const err = await openaiError(openai.chat.completions.create({ model: 'local', messages: [user(long)] }));
      expect(err.status).toBe(400);
      check(err, server.lastRequest()!.view!.promptTokens);
    }
  });

  it('ollama_silent answers 200 with prompt_tokens capped at the window', async () => {
    server.settings.contextWindow = 20;
    server.settings.overflow = 'ollama_silent';
    server.enqueue({ text: 'I only saw the end', style: 'ollama' });
    const res = await openai.chat.completions.create({
      model: 'llama3',
      messages: [user('many words in this prompt '.repeat(10))],
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage;
    for await (const c of res) usage = c.usage ?? usage;
    expect(usage?.prompt_tokens).toBe(20);
    expect(server.requests[0]!.view!.truncated).toBe(true);
    expect(server.requests[0]!.view!.promptTokens).toBeGreaterThan(20);
  });

  it('sends Ollama-style whole tool calls with role on every delta', async () => {
    server.enqueue({
      toolCalls: [
        { name: 'a', input: { n: 1 } },
        { name: 'b', input: { n: 2 } },
      ],
      style: 'ollama',
    });
    const s = await openai.chat.completions.create({ model: 'm', messages: [user('x')], stream: true });
    const chunks = [];
    for await (const c of s) chunks.push(c);
    const withCalls = chunks.filter((c) => c.choices[0]?.delta.tool_calls);
    expect(withCalls).toHaveLength(1);
    expect(withCalls[0]!.choices[0]!.delta.tool_calls!.map((t) => t.function?.arguments)).toEqual(['{"n":1}', '{"n":2}']);
    expect(chunks.filter((c) => c.choices[0]).every((c) => c.choices[0]!.delta.role === 'assistant')).toBe(true);
  });

  it('404s unknown paths the way OpenAI does (a base URL without /v1)', async () => {
    const client = new OpenAI({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const err = await openaiError(client.chat.completions.create({ model: 'm', messages: [user('x')] }));
    expect(err.status).toBe(404);
    expect((err.error as { message: string }).message).toBe('Invalid URL (POST /chat/completions)');
  });
});

describe('scripting', () => {
  it('the responder answers first, then the queue, then the fallback error', async () => {
    server.respondWith((req) => (req.view.system.includes('Summarize') ? { text: 'SUMMARY' } : undefined));
    server.enqueue({ text: 'queued' });
    const ask = (system: string) =>
      anthropic.messages.create({ model: 'm', max_tokens: 5, system, messages: [user('x')] }).then((m) => (m.content[0] as { text: string }).text);
    expect(await ask('Summarize the conversation')).toBe('SUMMARY');
    expect(await ask('You are an agent')).toBe('queued');
    const err = await anthropicError(ask('You are an agent'));
    expect(err.message).toBe('fake server: no reply scripted for request #3');
  });

  it('refuses bodies over maxBodyBytes with 413', async () => {
    const small = await startFakeServer({ maxBodyBytes: 1_000 });
    try {
      const client = new Anthropic({ apiKey: 'k', baseURL: small.anthropicBaseURL, maxRetries: 0 });
      const err = await anthropicError(client.messages.create({ model: 'm', max_tokens: 5, messages: [user('x'.repeat(5_000))] }));
      expect(err).toMatchObject({ status: 413, type: 'request_too_large' });
    } finally {
      await small.close();
    }
  });

  it('closes itself after idleShutdownMs without requests', async () => {
    const idle = await startFakeServer({ idleShutdownMs: 50 });
    await new Promise((r) => setTimeout(r, 150));
    await expect(fetch(`${idle.url}/health`)).rejects.toThrow();
  });

  it('ends a stalled stream after maxStallMs', async () => {
    const stalling = await startFakeServer({ maxStallMs: 100 });
    try {
      stalling.enqueue({ text: 'never finished', cut: { afterFrames: 2, how: 'stall' } });
      const client = new Anthropic({ apiKey: 'k', baseURL: stalling.anthropicBaseURL, maxRetries: 0 });
      await expect(client.messages.stream({ model: 'm', max_tokens: 5, messages: [user('x')] }).finalMessage()).rejects.toThrow();
    } finally {
      await stalling.close();
    }
  });
});
