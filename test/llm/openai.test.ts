import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProvider } from '../../src/llm/factory.js';
import type { Provider } from '../../src/llm/provider.js';
import { startFakeServer, type FakeServer } from '../fake-server/server.js';
import type { OverflowFlavor } from '../fake-server/types.js';
import { failure, KEY, msg, request, run, text, textOfEvents } from './helpers.js';

// The OpenAI adapter with the real SDK over HTTP against the fake server, standing in for
// api.openai.com and the OpenAI-compatible local servers.

let server: FakeServer;
let provider: Provider;

const oreq = (over: Parameters<typeof request>[0] = {}) => request({ model: 'gpt-test', ...over });

beforeAll(async () => {
  server = await startFakeServer();
  provider = createProvider({ provider: 'openai', apiKey: KEY, baseURL: server.openaiBaseURL, idleTimeoutMs: 2_000 });
});
afterAll(() => server.close());
afterEach(() => {
  server.clear();
  server.respondWith(undefined);
  Object.assign(server.settings, { contextWindow: 1_000_000, overflow: 'openai', tokenMultiplier: 1, rejectMaxTokensForReasoningModels: false });
});

describe('streaming', () => {
  it('streams text, asks for the usage chunk and maps usage with cached tokens', async () => {
    server.enqueue({ text: 'Hello from the chat API.', usage: { inputTokens: 40, cacheReadTokens: 1000, outputTokens: 9 } });
    const r = await run(provider, oreq());
    expect(r.events.filter((e) => e.type === 'text_delta').length).toBeGreaterThan(2);
    expect(r.done).toMatchObject({
      blocks: [text('Hello from the chat API.')],
      stopReason: 'end_turn',
      model: 'gpt-test',
      usage: { inputTokens: 40, cacheReadTokens: 1000, cacheWriteTokens: 0, outputTokens: 9 },
    });
    const view = server.requests[0]!.view!;
    expect(view).toMatchObject({ includeUsage: true, stream: true, system: 'You are a coding agent.', toolNames: ['Read'] });
    expect(server.requests[0]!.headers['authorization']).toBe(`Bearer ${KEY}`);
  });

  it("reports the server's prompt count as input tokens", async () => {
    server.enqueue({ text: 'ok' });
    const r = await run(provider, oreq());
    expect(r.done!.usage.inputTokens).toBe(server.requests[0]!.view!.promptTokens);
  });

  it('streams fragmented and parallel tool calls', async () => {
    server.enqueue({
      text: 'Both.',
      toolCalls: [
        { id: 'call_a', name: 'Read', input: { path: 'a.ts' } },
        { id: 'call_b', name: 'Read', input: { path: 'b.ts' } },
      ],
      jsonChunkSize: 2,
    });
    const r = await run(provider, oreq());
    expect(r.events.filter((e) => e.type === 'tool_use_start')).toEqual([
      { type: 'tool_use_start', id: 'call_a', name: 'Read' },
      { type: 'tool_use_start', id: 'call_b', name: 'Read' },
    ]);
    const fragmentsA = r.events.flatMap((e) => (e.type === 'tool_input_delta' && e.id === 'call_a' ? [e.partialJson] : []));
    expect(fragmentsA.length).toBeGreaterThan(3);
    expect(fragmentsA.join('')).toBe('{"path":"a.ts"}');
    expect(r.done!.blocks).toEqual([
      text('Both.'),
      { type: 'tool_use', id: 'call_a', name: 'Read', input: { path: 'a.ts' } },
      { type: 'tool_use', id: 'call_b', name: 'Read', input: { path: 'b.ts' } },
    ]);
    expect(r.done!.stopReason).toBe('tool_use');
  });

  it("handles Ollama's stream: role on every delta, whole tool calls in one chunk", async () => {
    server.enqueue({
      text: 'Sure.',
      toolCalls: [
        { name: 'Read', input: { path: 'x' } },
        { name: 'Read', input: { path: 'y' } },
      ],
      style: 'ollama',
    });
    const r = await run(provider, oreq());
    expect(r.done!.blocks.filter((b) => b.type === 'tool_use').map((b) => (b.type === 'tool_use' ? b.input : null))).toEqual([{ path: 'x' }, { path: 'y' }]);
    expect(textOfEvents(r.events)).toBe('Sure.');
  });

  it('generates distinct ids when the server sends none', async () => {
    server.enqueue({
      toolCalls: [
        { name: 'Read', input: { path: 'x' } },
        { name: 'Read', input: { path: 'y' } },
      ],
      omitToolCallIds: true,
    });
    const r = await run(provider, oreq());
    const ids = r.done!.blocks.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toMatch(/^call_/);
    // ids announced in the stream are the ones in the final blocks
    expect(r.events.flatMap((e) => (e.type === 'tool_use_start' ? [e.id] : []))).toEqual(ids);
  });

  it('older Ollama builds send each whole call at index 0: they stay separate calls, with or without ids', async () => {
    const calls = [
      { name: 'Read', input: { path: 'x' } },
      { name: 'Read', input: { path: 'y' } },
    ];
    server.enqueue({ toolCalls: calls, style: 'ollama_legacy' }, { toolCalls: calls, style: 'ollama_legacy', omitToolCallIds: true });
    for (let i = 0; i < 2; i++) {
      const r = await run(provider, oreq());
      expect(r.done!.blocks.flatMap((b) => (b.type === 'tool_use' ? [b.input] : []))).toEqual([{ path: 'x' }, { path: 'y' }]);
      expect(new Set(r.done!.blocks.map((b) => (b.type === 'tool_use' ? b.id : ''))).size).toBe(2);
    }
  });

  it('maps finish reasons; a "stop" with tool calls is tool_use; a call cut by length is dropped', async () => {
    server.enqueue(
      { text: 'cut', stop: 'max_tokens' },
      { text: 'filtered', stop: 'refusal' },
      { toolCalls: [{ name: 'Read', input: { path: 'a' } }], finishReason: 'stop' },
    );
    expect((await run(provider, oreq())).done!.stopReason).toBe('max_tokens');
    expect((await run(provider, oreq())).done!.stopReason).toBe('refusal');
    const stopWithCalls = await run(provider, oreq());
    expect(stopWithCalls.done!.stopReason).toBe('tool_use');
    server.enqueue({ text: 'reading', toolCalls: [{ name: 'Read', json: '{"path": "a' }], stop: 'max_tokens' });
    const cut = await run(provider, oreq());
    expect(cut.done!.blocks).toEqual([text('reading')]);
    expect(cut.done!.stopReason).toBe('max_tokens');
  });

  it('a refusal is shown as text and stops as refusal', async () => {
    server.enqueue({ refusal: "I can't help with that." });
    const r = await run(provider, oreq());
    expect(textOfEvents(r.events)).toBe("I can't help with that.");
    expect(r.done).toMatchObject({ blocks: [text("I can't help with that.")], stopReason: 'refusal' });
  });

  it('a server that ignores include_usage gives zero usage rather than failing', async () => {
    server.enqueue({ text: 'no usage', omitUsage: true });
    const r = await run(provider, oreq());
    expect(r.done!.usage).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });
});

describe('requests', () => {
  it('sends max_tokens to a custom base URL, max_completion_tokens when told to and for reasoning models', async () => {
    server.enqueue({ text: 'a' }, { text: 'b' }, { text: 'c' });
    await run(provider, oreq({ maxTokens: 321 }));
    expect(server.requests[0]!.view).toMatchObject({ maxTokens: 321, maxTokensField: 'max_tokens' });
    server.settings.rejectMaxTokensForReasoningModels = true;
    const official = createProvider({ provider: 'openai', apiKey: KEY, baseURL: server.openaiBaseURL, tokenField: 'max_completion_tokens' });
    const r = await run(official, oreq({ model: 'gpt-5', maxTokens: 321 }));
    expect(r.done).toBeDefined();
    expect(server.requests[1]!.view).toMatchObject({ maxTokens: 321, maxTokensField: 'max_completion_tokens' });
    // a reasoning model through a custom base URL gets max_completion_tokens too (issue 30)
    expect((await run(provider, oreq({ model: 'gpt-5.4', maxTokens: 99 }))).done).toBeDefined();
    expect(server.requests[2]!.view).toMatchObject({ maxTokens: 99, maxTokensField: 'max_completion_tokens' });
    // the same model with max_tokens is refused as OpenAI does
    const forced = createProvider({ provider: 'openai', apiKey: KEY, baseURL: server.openaiBaseURL, tokenField: 'max_tokens' });
    const e = await failure(forced, oreq({ model: 'gpt-5' }));
    expect(e.kind).toBe('bad_request');
    expect(e.message).toContain("Use 'max_completion_tokens' instead");
  });

  it("sends tool results as tool messages followed by the user's text, merging user messages", async () => {
    server.enqueue({ text: 'ok' });
    const messages = [
      msg('user', [text('## Checkpoint')], 'checkpoint'),
      msg('user', [text('fix it')]),
      msg('assistant', [{ type: 'tool_use', id: 'call_1', name: 'Read', input: { path: 'a' } }]),
      msg('user', [{ type: 'tool_result', toolUseId: 'call_1', content: 'file a', isError: false }, text('also b')]),
    ];
    const r = await run(provider, oreq({ messages }));
    expect(r.done).toBeDefined();
    const body = server.requests[0]!.body as { messages: unknown[] };
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: '## Checkpoint\n\nfix it' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'Read', arguments: '{"path":"a"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'file a' },
      { role: 'user', content: 'also b' },
    ]);
  });

  it("an unanswered tool call comes back as bad_request with OpenAI's text", async () => {
    const messages = [
      msg('user', [text('x')]),
      msg('assistant', [{ type: 'tool_use', id: 'call_9', name: 'Read', input: {} }]),
      msg('user', [text('no result')]),
    ];
    const e = await failure(provider, oreq({ messages }));
    expect(e.kind).toBe('bad_request');
    expect(e.message).toBe(
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_9",
    );
  });

  it('uses OPENAI_BASE_URL when no baseURL is given', async () => {
    const saved = process.env.OPENAI_BASE_URL;
    process.env.OPENAI_BASE_URL = server.openaiBaseURL;
    try {
      const p = createProvider({ provider: 'openai', apiKey: KEY });
      server.enqueue({ text: 'via env' });
      expect(textOfEvents((await run(p, oreq())).events)).toBe('via env');
      // a local server from the environment gets max_tokens
      expect(server.requests[0]!.view!.maxTokensField).toBe('max_tokens');
    } finally {
      if (saved === undefined) delete process.env.OPENAI_BASE_URL;
      else process.env.OPENAI_BASE_URL = saved;
    }
  });
});

describe('errors', () => {
  it('context_length_exceeded in both wordings', async () => {
    server.settings.contextWindow = 30;
    const long = [msg('user', [text('several words here '.repeat(20))])];
    const a = await failure(provider, oreq({ messages: long }));
    expect(a).toMatchObject({ kind: 'context_overflow', status: 400, overflow: { promptTokens: server.requests[0]!.view!.promptTokens, limit: 30 } });
    expect(a.message).toContain('However, your messages resulted in');

    server.settings.contextWindow = 1_000;
    const b = await failure(provider, oreq({ maxTokens: 990 }));
    const p = server.requests[1]!.view!.promptTokens;
    expect(b.overflow).toEqual({ promptTokens: p + 990, limit: 1_000, requestedOutputTokens: 990 });
    expect(b.message).toContain(`(${p} in the messages, 990 in the completion)`);
  });

  it("every local server's overflow is context_overflow with its figures", async () => {
    server.settings.contextWindow = 25;
    const long = [msg('user', [text('more and more words '.repeat(15))])];
    const flavors: OverflowFlavor[] = ['llamacpp', 'vllm', 'vllm_flat', 'lmstudio', 'lmstudio_old', 'ollama_error'];
    for (const flavor of flavors) {
      server.settings.overflow = flavor;
      const e = await failure(provider, oreq({ messages: long }));
      const count = server.lastRequest()!.view!.promptTokens;
      expect(e.kind, flavor).toBe('context_overflow');
      expect(e.message, flavor).not.toMatch(/^\{|status code \(no body\)/);
      if (flavor === 'ollama_error') expect(e.overflow).toEqual({});
      else if (flavor === 'vllm' || flavor === 'vllm_flat')
        expect(e.overflow, flavor).toEqual({ promptTokens: count + 1000, limit: 25, requestedOutputTokens: 1000 });
      else expect(e.overflow, flavor).toEqual({ promptTokens: count, limit: 25 });
    }
  });

  it('the old flat vLLM body keeps its text although the SDK loses it', async () => {
    server.settings.contextWindow = 25;
    server.settings.overflow = 'vllm_flat';
    const e = await failure(provider, oreq({ messages: [msg('user', [text('more and more words '.repeat(15))])] }));
    expect(e.message).toMatch(/^This model's maximum context length is 25 tokens\. However, you requested \d+ tokens/);
  });

  it('rate limit and quota are told apart; the "try again in" hint is read', async () => {
    server.enqueue({ type: 'error', error: 'rate_limit' }, { type: 'error', error: 'rate_limit', retryAfterMs: 20 }, { type: 'error', error: 'quota' });
    const rl = await failure(provider, oreq());
    expect(rl).toMatchObject({ kind: 'rate_limit', status: 429, retryAfterMs: 1574 });
    expect(rl.message).toMatch(/^Rate limit reached for gpt-test/);
    expect((await failure(provider, oreq())).retryAfterMs).toBe(20);
    const quota = await failure(provider, oreq());
    expect(quota).toMatchObject({ kind: 'quota', status: 429 });
    expect(quota.retryable).toBe(false);
    expect(server.requests).toHaveLength(3);
  });

  it('401 is auth naming OPENAI_API_KEY (and the configured variable), never the key', async () => {
    const strict = await startFakeServer({ apiKey: 'the-right-key' });
    try {
      const p = createProvider({ provider: 'openai', apiKey: KEY, baseURL: strict.openaiBaseURL });
      const e = await failure(p, oreq());
      expect(e.kind).toBe('auth');
      expect(e.message).toContain('Incorrect API key provided');
      expect(e.message).toContain('OPENAI_API_KEY');
      const named = createProvider({ provider: 'openai', apiKey: KEY, baseURL: strict.openaiBaseURL, apiKeyEnv: 'LOCAL_LLM_KEY' });
      expect((await failure(named, oreq())).message).toContain('LOCAL_LLM_KEY');
    } finally {
      await strict.close();
    }
  });

  it('404 names the model and the base URL; 500 is server; 503 overloaded', async () => {
    server.enqueue({ type: 'error', error: 'not_found' }, { type: 'error', error: 'server' }, { type: 'error', error: 'overloaded' });
    const nf = await failure(provider, oreq({ model: 'gpt-nope' }));
    expect(nf.kind).toBe('not_found');
    expect(nf.message).toContain('The model `gpt-nope` does not exist');
    expect(nf.message).toContain(server.openaiBaseURL);
    expect(await failure(provider, oreq())).toMatchObject({ kind: 'server', status: 500, requestId: 'req_fake_2' });
    expect((await failure(provider, oreq())).kind).toBe('overloaded');
  });

  it('an error chunk mid-stream is a server error', async () => {
    server.enqueue({ text: 'partial reply', cut: { afterFrames: 3, how: 'error' } });
    const r = await run(provider, oreq());
    expect(r.error).toMatchObject({ kind: 'server', message: 'The server had an error while processing your request. Sorry about that!' });
    expect(r.error!.retryable).toBe(true);
  });

  it('a dropped connection or an early end is stream_cut; a stall too, after the idle timeout', async () => {
    server.enqueue({ text: 'to be cut', cut: { afterFrames: 3, how: 'drop' } }, { text: 'ends early', cut: { afterFrames: 3, how: 'end' } });
    const dropped = await run(provider, oreq());
    expect(dropped.error?.kind).toBe('stream_cut');
    expect(textOfEvents(dropped.events).length).toBeGreaterThan(0);
    const early = await run(provider, oreq());
    expect(early.error?.kind).toBe('stream_cut');
    const p = createProvider({ provider: 'openai', apiKey: KEY, baseURL: server.openaiBaseURL, idleTimeoutMs: 150 });
    server.enqueue({ text: 'stalls', cut: { afterFrames: 2, how: 'stall' } });
    const stalled = await run(p, oreq());
    expect(stalled.error?.kind).toBe('stream_cut');
    expect(stalled.error?.message).toContain('stalled');
  });

  it("the user's abort mid-stream is aborted", async () => {
    const ac = new AbortController();
    server.enqueue({ text: 'an answer that goes on and on', chunkSize: 2, frameDelayMs: 5 });
    let error: unknown;
    let seen = 0;
    try {
      for await (const ev of provider.stream(oreq({ signal: ac.signal }))) {
        if (ev.type === 'text_delta' && ++seen === 2) ac.abort();
      }
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ kind: 'aborted' });
  });
});
