import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createProvider } from '../../src/llm/factory.js';
import type { Provider } from '../../src/llm/provider.js';
import { startFakeServer, type FakeServer } from '../fake-server/server.js';
import { failure, KEY, msg, READ_TOOL, request, run, text, textOfEvents } from './helpers.js';

// The Anthropic adapter with the real SDK over HTTP against the fake server.

let server: FakeServer;
let provider: Provider;

beforeAll(async () => {
  server = await startFakeServer();
  provider = createProvider({ provider: 'anthropic', apiKey: KEY, baseURL: server.anthropicBaseURL, idleTimeoutMs: 2_000 });
});
afterAll(() => server.close());
afterEach(() => {
  server.clear();
  server.respondWith(undefined);
  Object.assign(server.settings, { contextWindow: 1_000_000, tokenMultiplier: 1, anthropicCountsMaxTokens: false });
});

describe('streaming', () => {
  it('streams text in deltas and finishes with the whole message and usage', async () => {
    server.enqueue({ text: 'Hello there, how can I help?', chunkSize: 5 });
    const r = await run(provider, request());
    const deltas = r.events.filter((e) => e.type === 'text_delta');
    expect(deltas.length).toBeGreaterThan(3);
    expect(textOfEvents(r.events)).toBe('Hello there, how can I help?');
    expect(r.done).toMatchObject({
      blocks: [{ type: 'text', text: 'Hello there, how can I help?' }],
      stopReason: 'end_turn',
      model: 'claude-test',
      usage: { inputTokens: server.requests[0]!.view!.promptTokens, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(r.done!.usage.outputTokens).toBeGreaterThan(0);
    const view = server.requests[0]!.view!;
    expect(view).toMatchObject({ system: 'You are a coding agent.', toolNames: ['Read'], maxTokens: 1000, stream: true });
    expect(server.requests[0]!.headers['authorization']).toBe(`Bearer ${KEY}`);
  });

  it('streams a tool call whose JSON arrives in fragments', async () => {
    server.enqueue({ text: 'Reading.', toolCalls: [{ id: 'toolu_A', name: 'Read', input: { path: 'src/index.ts', lines: [1, 2, 3] } }], jsonChunkSize: 3 });
    const r = await run(provider, request());
    expect(r.events.find((e) => e.type === 'tool_use_start')).toEqual({ type: 'tool_use_start', id: 'toolu_A', name: 'Read' });
    const fragments = r.events.flatMap((e) => (e.type === 'tool_input_delta' ? [e.partialJson] : []));
    expect(fragments.length).toBeGreaterThan(5);
    expect(JSON.parse(fragments.join(''))).toEqual({ path: 'src/index.ts', lines: [1, 2, 3] });
    expect(r.done!.blocks).toEqual([
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id: 'toolu_A', name: 'Read', input: { path: 'src/index.ts', lines: [1, 2, 3] } },
    ]);
    expect(r.done!.stopReason).toBe('tool_use');
  });

  it('streams parallel tool calls in order', async () => {
    server.enqueue({
      toolCalls: [
        { name: 'Read', input: { path: 'a' } },
        { name: 'Read', input: { path: 'b' } },
        { name: 'Read', input: {} },
      ],
    });
    const r = await run(provider, request());
    expect(r.done!.blocks.map((b) => (b.type === 'tool_use' ? b.input : null))).toEqual([{ path: 'a' }, { path: 'b' }, {}]);
    expect(new Set(r.done!.blocks.map((b) => (b.type === 'tool_use' ? b.id : ''))).size).toBe(3);
  });

  it('maps usage with cache reads and writes', async () => {
    server.enqueue({ text: 'ok', usage: { inputTokens: 12, cacheReadTokens: 3000, cacheWriteTokens: 500, outputTokens: 77 } });
    const r = await run(provider, request());
    expect(r.done!.usage).toEqual({ inputTokens: 12, outputTokens: 77, cacheReadTokens: 3000, cacheWriteTokens: 500 });
  });

  it('maps stop reasons, including the context window filling up', async () => {
    const cases = [
      ['end_turn', 'end_turn'],
      ['max_tokens', 'max_tokens'],
      ['stop_sequence', 'stop_sequence'],
      ['refusal', 'refusal'],
      ['model_context_window_exceeded', 'context_window'],
      ['pause_turn', 'pause_turn'],
    ] as const;
    for (const [wire, neutral] of cases) {
      server.enqueue({ text: 'x', stop: wire });
      expect((await run(provider, request())).done!.stopReason).toBe(neutral);
    }
  });

  it('drops a tool call cut off by max_tokens, keeping the text', async () => {
    server.enqueue({ text: 'Let me read', toolCalls: [{ name: 'Read', json: '{"path": "src/ind' }], stop: 'max_tokens' });
    const r = await run(provider, request());
    expect(r.events.some((e) => e.type === 'tool_use_start')).toBe(true);
    expect(r.done!.blocks).toEqual([{ type: 'text', text: 'Let me read' }]);
    expect(r.done!.stopReason).toBe('max_tokens');
  });
});

describe('requests', () => {
  it('merges checkpoint, pinned and user messages into one user turn the API accepts', async () => {
    server.enqueue({ text: 'ok' });
    const messages = [msg('user', [text('## Checkpoint')], 'checkpoint'), msg('user', [text('pinned: use pnpm')]), msg('user', [text('next task')])];
    const r = await run(provider, request({ messages }));
    expect(r.done).toBeDefined();
    expect(server.requests[0]!.view!.messages).toEqual([{ role: 'user', blocks: [text('## Checkpoint'), text('pinned: use pnpm'), text('next task')] }]);
  });

  it('sends a full tool round trip the API validates', async () => {
    server.enqueue({ text: 'done' });
    const messages = [
      msg('user', [text('read a')]),
      msg('assistant', [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: 'a' } }]),
      msg('user', [{ type: 'tool_result', toolUseId: 'toolu_1', content: 'file a', isError: false }]),
      msg('user', [text('and summarize')]),
    ];
    const r = await run(provider, request({ messages }));
    expect(r.done).toBeDefined();
    expect(server.requests[0]!.view!.messages[2]).toEqual({
      role: 'user',
      blocks: [{ type: 'tool_result', toolUseId: 'toolu_1', content: 'file a', isError: false }, text('and summarize')],
    });
  });

  it("an invalid history comes back as bad_request with the API's own text", async () => {
    const messages = [
      msg('user', [text('x')]),
      msg('assistant', [{ type: 'tool_use', id: 'toolu_9', name: 'Read', input: {} }]),
      msg('user', [text('no result')]),
    ];
    const e = await failure(provider, request({ messages }));
    expect(e.kind).toBe('bad_request');
    expect(e.status).toBe(400);
    expect(e.message).toBe(
      'messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_9. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    );
  });

  it("routes the SDK's deprecated-model notice to onWarning instead of the terminal", async () => {
    const warnings: string[] = [];
    const spy = vi.spyOn(console, 'warn');
    const p = createProvider({ provider: 'anthropic', apiKey: KEY, baseURL: server.anthropicBaseURL, onWarning: (w) => warnings.push(w) });
    server.enqueue({ text: 'ok' }, { text: 'again' });
    await run(p, request({ model: 'claude-sonnet-4-5' }));
    await run(p, request({ model: 'claude-sonnet-4-5' }));
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("The model 'claude-sonnet-4-5' is deprecated");
  });

  it('uses ANTHROPIC_BASE_URL when no baseURL is given', async () => {
    const saved = process.env.ANTHROPIC_BASE_URL;
    process.env.ANTHROPIC_BASE_URL = server.anthropicBaseURL;
    try {
      const p = createProvider({ provider: 'anthropic', apiKey: KEY, baseURL: '' });
      server.enqueue({ text: 'via env' });
      const r = await run(p, request());
      expect(textOfEvents(r.events)).toBe('via env');
      expect(server.requests).toHaveLength(1);
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_BASE_URL;
      else process.env.ANTHROPIC_BASE_URL = saved;
    }
  });
});

describe('errors', () => {
  it('an over-long prompt is context_overflow with the figures the server counted', async () => {
    server.settings.contextWindow = 30;
    const e = await failure(provider, request({ messages: [msg('user', [text('some words '.repeat(30))])] }));
    expect(e.kind).toBe('context_overflow');
    expect(e.overflow).toEqual({ promptTokens: server.requests[0]!.view!.promptTokens, limit: 30 });
    expect(e.message).toMatch(/^prompt is too long: \d+ tokens > 30 maximum$/);
  });

  it('input + max_tokens over the window is context_overflow with the output counted', async () => {
    server.settings.contextWindow = 1_000;
    server.settings.anthropicCountsMaxTokens = true;
    const e = await failure(provider, request({ maxTokens: 990 }));
    const p = server.requests[0]!.view!.promptTokens;
    expect(e.overflow).toEqual({ promptTokens: p + 990, limit: 1_000, requestedOutputTokens: 990 });
  });

  it('maps each injected error to its kind, status and message', async () => {
    const cases = [
      [{ type: 'error', error: 'server' }, 'server', 500, 'Internal server error'],
      [{ type: 'error', error: 'overloaded' }, 'overloaded', 529, 'Overloaded'],
      [{ type: 'error', error: 'quota' }, 'quota', 400, 'Your credit balance is too low'],
      [{ type: 'error', error: 'request_too_large' }, 'context_overflow', 413, 'Request exceeds the maximum allowed number of bytes'],
      [{ type: 'error', error: 'permission' }, 'auth', 403, 'does not have permission'],
      [{ type: 'error', error: 'invalid_request', message: 'max_tokens: Field required' }, 'bad_request', 400, 'max_tokens: Field required'],
    ] as const;
    for (const [reply, kind, status, message] of cases) {
      server.enqueue(reply);
      const e = await failure(provider, request());
      expect(e.kind, reply.error).toBe(kind);
      expect(e.status).toBe(status);
      expect(e.message).toContain(message);
      expect(e.message).not.toContain('{');
      expect(e.requestId).toMatch(/^req_fake_\d+$/);
    }
  });

  it('401 is auth and names ANTHROPIC_API_KEY; 404 names the model', async () => {
    server.enqueue({ type: 'error', error: 'auth' }, { type: 'error', error: 'not_found' });
    const auth = await failure(provider, request());
    expect(auth.kind).toBe('auth');
    expect(auth.message).toContain('invalid x-api-key');
    expect(auth.message).toContain('ANTHROPIC_API_KEY');
    const nf = await failure(provider, request({ model: 'claude-nope' }));
    expect(nf.kind).toBe('not_found');
    expect(nf.message).toContain('model: claude-nope');
    expect(nf.message).toContain('"claude-nope"');
  });

  it('429 is rate_limit with retry-after-ms, or retry-after seconds', async () => {
    server.enqueue({ type: 'error', error: 'rate_limit', retryAfterMs: 250 }, { type: 'error', error: 'rate_limit', retryAfter: 7 });
    const a = await failure(provider, request());
    expect(a).toMatchObject({ kind: 'rate_limit', status: 429, retryAfterMs: 250 });
    expect(a.retryable).toBe(true);
    expect((await failure(provider, request())).retryAfterMs).toBe(7_000);
    expect(server.requests).toHaveLength(2); // the SDK did not retry on its own
  });

  it('an overloaded error inside the stream is overloaded', async () => {
    server.enqueue({ text: 'partial text here', cut: { afterFrames: 4, how: 'error' } });
    const r = await run(provider, request());
    expect(r.error?.kind).toBe('overloaded');
    expect(r.error?.message).toBe('Overloaded');
    expect(textOfEvents(r.events).length).toBeGreaterThan(0);
  });

  it('a connection dropped mid-stream is stream_cut, after the deltas already yielded', async () => {
    server.enqueue({ text: 'this will be cut off', cut: { afterFrames: 4, how: 'drop' } });
    const r = await run(provider, request());
    expect(r.error?.kind).toBe('stream_cut');
    expect(r.error?.retryable).toBe(true);
    expect(textOfEvents(r.events).length).toBeGreaterThan(0);
    expect(r.events.some((e) => e.type === 'done')).toBe(false);
  });

  it('a connection the server drops before its response begins is a cut (retried as one), not a connection that failed', async () => {
    server.enqueue({ text: 'never sent', cut: { afterFrames: 0, how: 'drop' } });
    const e = (await run(provider, request())).error;
    // mutation: classified as 'connection', it is announced as "Connection failed" / "could not reach"
    expect(e?.kind).toBe('stream_cut');
    expect(e?.message).toMatch(/^127\.0\.0\.1:\d+ closed the connection before its response began \(socket hang up\)$/);
    expect(e?.retryable).toBe(true);
  });

  it('a stream that ends cleanly before message_stop is stream_cut', async () => {
    server.enqueue({ text: 'short', cut: { afterFrames: 5, how: 'end' } });
    const e = (await run(provider, request())).error;
    expect(e?.kind).toBe('stream_cut');
    expect(e?.message).toBe('the response stream ended before the message was complete');
  });

  it('a stream that stalls is abandoned after the idle timeout as stream_cut', async () => {
    const p = createProvider({ provider: 'anthropic', apiKey: KEY, baseURL: server.anthropicBaseURL, idleTimeoutMs: 150 });
    server.enqueue({ text: 'never finished', cut: { afterFrames: 3, how: 'stall' } });
    const e = (await run(p, request())).error;
    expect(e?.kind).toBe('stream_cut');
    expect(e?.message).toContain('stalled');
  });

  it('pings (which the SDK swallows) keep a slow stream alive past the idle timeout', async () => {
    // content events arrive every 4 × 300 ms, well over the 900 ms timeout; the pings between them every 300 ms
    // (the margins leave 600 ms for a loaded machine's event-loop lag: 60 ms pings under a 150 ms timeout failed there)
    const p = createProvider({ provider: 'anthropic', apiKey: KEY, baseURL: server.anthropicBaseURL, idleTimeoutMs: 900 });
    server.enqueue({ text: 'slow but steady', chunkSize: 8, pings: 3, frameDelayMs: 300 });
    const r = await run(p, request());
    expect(textOfEvents(r.events)).toBe('slow but steady');
  });

  it("the user's abort is aborted, before the request and mid-stream", async () => {
    const before = new AbortController();
    before.abort();
    expect((await failure(provider, request({ signal: before.signal }))).kind).toBe('aborted');
    expect(server.requests).toHaveLength(0);

    const mid = new AbortController();
    server.enqueue({ text: 'a long answer that is interrupted', chunkSize: 2, frameDelayMs: 5 });
    const events = [];
    let error: unknown;
    try {
      for await (const ev of provider.stream(request({ signal: mid.signal }))) {
        events.push(ev);
        if (events.length === 3) mid.abort();
      }
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ kind: 'aborted' });
  });

  it('a refused connection is connection, naming the host', async () => {
    const closed = await startFakeServer();
    const url = closed.anthropicBaseURL;
    await closed.close();
    const p = createProvider({ provider: 'anthropic', apiKey: KEY, baseURL: url });
    const e = await failure(p, request());
    expect(e.kind).toBe('connection');
    expect(e.message).toContain(new URL(url).host);
    expect(e.message).toContain('ECONNREFUSED');
  });

  it('never puts the key in a message, even when the server echoes it', async () => {
    server.enqueue({ type: 'error', error: 'invalid_request', message: `header x-api-key: ${KEY} is malformed` });
    const e = await failure(provider, request());
    expect(e.message).toBe('header x-api-key: [redacted] is malformed');
  });

  it("a tool result for an unknown tool_use is refused with the API's text", async () => {
    const messages = [
      msg('user', [text('x')]),
      msg('assistant', [text('ok')]),
      msg('user', [{ type: 'tool_result', toolUseId: 'toolu_zz', content: 'r', isError: false }]),
    ];
    const e = await failure(provider, request({ messages, tools: [READ_TOOL] }));
    expect(e.message).toContain('unexpected `tool_use_id` found in `tool_result` blocks: toolu_zz');
  });
});
