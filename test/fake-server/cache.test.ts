import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam, TextBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from './server.js';

// The fake server's prompt caches, checked with the real SDKs against the documented rules.

let server: FakeServer;
let anthropic: Anthropic;
let openai: OpenAI;

beforeAll(async () => {
  server = await startFakeServer({ fallback: { text: 'ok' } });
  anthropic = new Anthropic({ apiKey: 'sk-ant-test', baseURL: server.anthropicBaseURL, maxRetries: 0 });
  openai = new OpenAI({ apiKey: 'sk-test', baseURL: server.openaiBaseURL, maxRetries: 0 });
});
afterAll(() => server.close());
afterEach(() => {
  server.clear();
  Object.assign(server.settings, { overflow: 'openai', rejectUnknownFields: false });
});

const words = (n: number, tag: string): string => Array.from({ length: n }, (_, i) => `${tag}${i % 10}`).join(' ');
const SYSTEM = words(1_500, 'sys');
const mark = { type: 'ephemeral' as const };
const text = (t: string, cached = false): TextBlockParam => ({ type: 'text', text: t, ...(cached ? { cache_control: mark } : {}) });

/** Alternating user/assistant messages, each one text block; `marked` indexes get a breakpoint. */
function conversation(n: number, marked: number[]): MessageParam[] {
  return Array.from({ length: n }, (_, i) => ({
    role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: [text(`message ${i} ${words(20, 'w')}`, marked.includes(i))],
  }));
}

async function usageOf(system: string | TextBlockParam[], messages: MessageParam[]) {
  const r = await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 100, system, messages });
  return r.usage;
}

describe('Anthropic prompt cache', () => {
  it('writes at a breakpoint, reads it back, and reports input + reads + writes = the prompt', async () => {
    const first = await usageOf([text(SYSTEM, true)], conversation(1, [0]));
    const total = server.requests[0]!.view!.promptTokens;
    expect(first.cache_read_input_tokens).toBe(0);
    expect(first.cache_creation_input_tokens).toBe(total);
    expect(first.input_tokens).toBe(0);
    expect(first.cache_creation).toEqual({ ephemeral_5m_input_tokens: total, ephemeral_1h_input_tokens: 0 });
    // the next turn: two messages appended, the newest marked
    const second = await usageOf([text(SYSTEM, true)], conversation(3, [0, 2]));
    expect(second.cache_read_input_tokens).toBe(total);
    expect(second.input_tokens + second.cache_read_input_tokens! + second.cache_creation_input_tokens!).toBe(server.requests[1]!.view!.promptTokens);
    expect(second.cache_creation_input_tokens).toBeGreaterThan(0);
    // unmarked tail tokens are plain input
    const third = await usageOf([text(SYSTEM, true)], conversation(5, [2]));
    expect(third.cache_read_input_tokens).toBe(server.requests[1]!.view!.promptTokens);
    expect(third.cache_creation_input_tokens).toBe(0);
    expect(third.input_tokens).toBeGreaterThan(0);
  });

  it('does not cache a prefix under 1,024 tokens, nor anything without a breakpoint', async () => {
    const small = await usageOf([text('short system', true)], conversation(1, [0]));
    expect(small.cache_creation_input_tokens).toBe(0);
    expect(small.input_tokens).toBe(server.requests[0]!.view!.promptTokens);
    await usageOf(SYSTEM, conversation(1, []));
    const again = await usageOf(SYSTEM, conversation(1, []));
    expect(again.cache_read_input_tokens).toBe(0);
    expect(again.cache_creation_input_tokens).toBe(0);
  });

  it('looks back 20 blocks from a breakpoint: a longer jump misses unless the old end is marked too', async () => {
    await usageOf([text(SYSTEM)], conversation(1, [0]));
    const before = server.requests[0]!.view!.promptTokens;
    const long = conversation(31, []);
    long[30] = { role: 'user', content: [text('the newest message', true)] };
    const missed = await usageOf([text(SYSTEM)], long);
    expect(missed.cache_read_input_tokens).toBe(0);
    server.promptCache.clear();
    await usageOf([text(SYSTEM)], conversation(1, [0]));
    long[0] = conversation(1, [0])[0]!;
    const hit = await usageOf([text(SYSTEM)], long);
    expect(hit.cache_read_input_tokens).toBe(before);
  });

  it('expires entries after their TTL (5m default, 1h when asked), a hit refreshing them', async () => {
    await usageOf([text(SYSTEM, true)], conversation(1, []));
    server.promptCache.advance(4 * 60_000);
    expect((await usageOf([text(SYSTEM, true)], conversation(1, []))).cache_read_input_tokens).toBeGreaterThan(0);
    server.promptCache.advance(4 * 60_000);
    expect((await usageOf([text(SYSTEM, true)], conversation(1, []))).cache_read_input_tokens).toBeGreaterThan(0);
    server.promptCache.advance(6 * 60_000);
    expect((await usageOf([text(SYSTEM, true)], conversation(1, []))).cache_read_input_tokens).toBe(0);
    const hour: TextBlockParam = { type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral', ttl: '1h' } };
    server.promptCache.clear();
    const written = await usageOf([hour], conversation(1, []));
    expect(written.cache_creation).toMatchObject({ ephemeral_1h_input_tokens: written.cache_creation_input_tokens });
    server.promptCache.advance(50 * 60_000);
    expect((await usageOf([hour], conversation(1, []))).cache_read_input_tokens).toBeGreaterThan(0);
  });

  it('refuses more than 4 breakpoints and a 1h breakpoint after a 5m one, with the API texts', async () => {
    const tooMany = anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 10,
      system: [text(SYSTEM, true)],
      messages: conversation(7, [0, 2, 4, 6]),
    });
    await expect(tooMany).rejects.toThrow(/A maximum of 4 blocks with cache_control may be provided. Found 5./);
    const order = anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 10,
      system: [text(SYSTEM, true)],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '1h' } }] }],
    });
    await expect(order).rejects.toThrow(/'ttl'='1h' cache_control block must not come after a 'ttl'='5m'/);
  });
});

describe('OpenAI prompt cache', () => {
  const chat = (messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[], extra: Record<string, unknown> = {}) =>
    openai.chat.completions.create({ model: 'gpt-4o', messages, ...extra });

  it('reuses the longest seen prefix in 128-token steps from 1,024 tokens', async () => {
    const base: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: 'first question' },
    ];
    const first = await chat(base);
    expect(first.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    const firstTotal = first.usage!.prompt_tokens;
    const second = await chat([...base, { role: 'assistant', content: 'an answer' }, { role: 'user', content: 'second question' }]);
    const cached = second.usage!.prompt_tokens_details!.cached_tokens!;
    expect(cached).toBeGreaterThanOrEqual(1_024);
    expect((cached - 1_024) % 128).toBe(0);
    expect(cached).toBeLessThanOrEqual(firstTotal);
    expect(firstTotal - cached).toBeLessThan(128);
    // a changed system prompt shares nothing
    const other = await chat([
      { role: 'system', content: `${SYSTEM} changed` },
      { role: 'user', content: 'first question' },
    ]);
    expect(other.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
  });

  it('caches nothing for OpenAI-compatible flavors, and a strict one refuses prompt_cache_key', async () => {
    server.settings.overflow = 'vllm';
    const base: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: 'q' },
    ];
    await chat(base);
    expect((await chat(base)).usage?.prompt_tokens_details?.cached_tokens ?? 0).toBe(0);
    server.settings.rejectUnknownFields = true;
    await expect(chat(base, { prompt_cache_key: 's_1' })).rejects.toThrow(/400/);
    expect(server.lastRequest()?.response?.status).toBe(400);
    server.settings.overflow = 'openai';
    await expect(chat(base, { prompt_cache_key: 's_1' })).resolves.toBeDefined();
  });
});
