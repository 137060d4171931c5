import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProvider } from '../../src/llm/factory.js';
import { startFakeServer, type FakeServer } from '../fake-server/server.js';
import { toAnthropicParams } from '../../src/llm/anthropic.js';
import { isOpenAIHost, messageBreakpoints, sendsPromptCacheKey, type CacheSettings } from '../../src/llm/cache.js';
import { toOpenAIParams } from '../../src/llm/openai.js';
import type { Block } from '../../src/llm/messages.js';
import { KEY, msg, READ_TOOL, request, run, text } from './helpers.js';

// Where the cache hints go: Anthropic breakpoints, OpenAI's prompt_cache_key.

const ON: CacheSettings = { enabled: true, ttl: '5m', promptCacheKey: 'auto' };
const use = (id: string): Block => ({ type: 'tool_use', id, name: 'Read', input: { path: id } });
const result = (id: string): Block => ({ type: 'tool_result', toolUseId: id, content: `contents of ${id}`, isError: false });

/** Positions (message index, block index) that carry cache_control. */
function marks(params: ReturnType<typeof toAnthropicParams>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  params.messages.forEach((m, i) => {
    if (typeof m.content === 'string') return;
    m.content.forEach((b, j) => {
      if ('cache_control' in b && b.cache_control) out.push([i, j]);
    });
  });
  return out;
}

describe('Anthropic breakpoints', () => {
  it('marks the system prompt, the newest message and where the previous request ended', () => {
    expect(messageBreakpoints(['user'])).toEqual([0]);
    expect(messageBreakpoints(['user', 'assistant', 'user'])).toEqual([0, 2]);
    expect(messageBreakpoints(['user', 'assistant', 'user', 'assistant', 'user'])).toEqual([2, 4]);
    const p = toAnthropicParams(
      {
        model: 'claude-x',
        system: 'You are an agent.',
        messages: [msg('user', [text('hi')]), msg('assistant', [text('Reading.'), use('a')]), msg('user', [result('a')])],
        tools: [READ_TOOL],
        maxTokens: 100,
      },
      ON,
    );
    expect(p.system).toEqual([{ type: 'text', text: 'You are an agent.', cache_control: { type: 'ephemeral' } }]);
    expect(p.tools).toEqual([{ name: 'Read', description: READ_TOOL.description, input_schema: READ_TOOL.inputSchema }]);
    expect(marks(p)).toEqual([
      [0, 0],
      [2, 0],
    ]);
    expect(marks(p).length + 1).toBeLessThanOrEqual(4);
  });

  it('reaches back over a reply with many parallel tool calls (more blocks than the 20-block lookback)', () => {
    const ids = Array.from({ length: 15 }, (_, i) => `t${i}`);
    const p = toAnthropicParams(
      {
        model: 'claude-x',
        system: 'sys',
        messages: [msg('user', [text('read everything')]), msg('assistant', ids.map(use)), msg('user', ids.map(result))],
        tools: [READ_TOOL],
        maxTokens: 100,
      },
      ON,
    );
    // the first user message is where the previous request ended: 30 blocks before the newest breakpoint
    expect(marks(p)).toEqual([
      [0, 0],
      [2, 14],
    ]);
  });

  it('puts the 1h TTL on every breakpoint, the tools take it when there is no system prompt, and nothing is marked when caching is off', () => {
    const req = { model: 'claude-x', system: '', messages: [msg('user', [text('hi')])], tools: [READ_TOOL], maxTokens: 100 };
    const p = toAnthropicParams(req, { ...ON, ttl: '1h' });
    expect(p.tools?.[0]).toMatchObject({ cache_control: { type: 'ephemeral', ttl: '1h' } });
    expect(p).not.toHaveProperty('system');
    expect(JSON.stringify(p.messages)).toContain('"ttl":"1h"');
    expect(JSON.stringify(toAnthropicParams(req, { ...ON, enabled: false }))).not.toContain('cache_control');
  });
});

describe('OpenAI prompt_cache_key', () => {
  it('goes only to OpenAI itself unless configured, never when caching is off', () => {
    expect(isOpenAIHost(undefined)).toBe(true);
    expect(isOpenAIHost('https://api.openai.com/v1')).toBe(true);
    expect(isOpenAIHost('http://localhost:11434/v1')).toBe(false);
    expect(sendsPromptCacheKey(ON, 'https://api.openai.com/v1')).toBe(true);
    expect(sendsPromptCacheKey(ON, 'http://127.0.0.1:8080/v1')).toBe(false);
    expect(sendsPromptCacheKey({ ...ON, promptCacheKey: true }, 'https://gateway.example/v1')).toBe(true);
    expect(sendsPromptCacheKey({ ...ON, promptCacheKey: false }, 'https://api.openai.com/v1')).toBe(false);
    expect(sendsPromptCacheKey({ ...ON, enabled: false, promptCacheKey: true }, 'https://api.openai.com/v1')).toBe(false);
    const req = { model: 'gpt-x', system: 's', messages: [msg('user', [text('hi')])], tools: [], maxTokens: 10 };
    expect(toOpenAIParams(req, 'max_tokens', 's_123')).toMatchObject({ prompt_cache_key: 's_123' });
    expect(toOpenAIParams(req, 'max_tokens')).not.toHaveProperty('prompt_cache_key');
  });
});

describe('through the real SDKs against the fake caches', () => {
  let server: FakeServer;
  beforeAll(async () => {
    server = await startFakeServer();
  });
  afterAll(() => server.close());

  it('Anthropic: the request after a reply with 15 parallel tool calls reads what the previous one wrote', async () => {
    const provider = createProvider({ provider: 'anthropic', apiKey: KEY, baseURL: server.anthropicBaseURL, idleTimeoutMs: 2_000 });
    const system = `You are an agent. ${'Follow the house rules carefully. '.repeat(200)}`;
    const first = [msg('user', [text('read everything')])];
    server.enqueue({ text: 'ok' }, { text: 'done' });
    await run(provider, { ...request(), system, messages: first });
    const ids = Array.from({ length: 15 }, (_, i) => `t${i}`);
    const second = [...first, msg('assistant', ids.map(use)), msg('user', ids.map(result))];
    const r = await run(provider, { ...request(), system, messages: second });
    const wrote = server.requests[0]!.usage!;
    expect(wrote.cacheWriteTokens).toBe(server.requests[0]!.view!.promptTokens);
    expect(r.done!.usage.cacheReadTokens).toBe(server.requests[0]!.view!.promptTokens);
    expect(r.done!.usage.inputTokens + r.done!.usage.cacheReadTokens + r.done!.usage.cacheWriteTokens).toBe(server.requests[1]!.view!.promptTokens);
  });

  it('OpenAI: a strict OpenAI-compatible server keeps working (no prompt_cache_key), OpenAI itself or a configured proxy gets it', async () => {
    Object.assign(server.settings, { overflow: 'vllm', rejectUnknownFields: true });
    try {
      const local = createProvider({ provider: 'openai', apiKey: KEY, baseURL: server.openaiBaseURL, idleTimeoutMs: 2_000 });
      server.enqueue({ text: 'fine' });
      const r = await run(local, { ...request(), model: 'gpt-4o', cacheKey: 's_local' });
      expect(r.done?.blocks).toEqual([{ type: 'text', text: 'fine' }]);
      expect(server.lastRequest()!.body).not.toHaveProperty('prompt_cache_key');
      server.settings.overflow = 'openai';
      const proxy = createProvider({
        provider: 'openai',
        apiKey: KEY,
        baseURL: server.openaiBaseURL,
        idleTimeoutMs: 2_000,
        cache: { ...ON, promptCacheKey: true },
      });
      server.enqueue({ text: 'fine' });
      await run(proxy, { ...request(), model: 'gpt-4o', cacheKey: 's_proxy' });
      expect(server.lastRequest()!.body).toMatchObject({ prompt_cache_key: 's_proxy' });
    } finally {
      Object.assign(server.settings, { overflow: 'openai', rejectUnknownFields: false });
    }
  });
});
