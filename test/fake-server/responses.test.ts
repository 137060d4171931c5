import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sealReasoning } from './responses-wire.js';
import { startFakeServer, type FakeServer } from './server.js';

// The fake's /v1/responses over plain HTTP: what it refuses as OpenAI does, and what it reports.

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer({ fallback: { text: 'ok' } });
});
afterAll(() => server.close());
afterEach(() => {
  server.clear();
  server.settings.contextWindow = 1_000_000;
});

const post = async (body: Record<string, unknown>, path = '/v1/responses') => {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
};
const user = (text: string) => ({ type: 'message', role: 'user', content: text });
const call = (id: string) => ({ type: 'function_call', call_id: id, name: 'Read', arguments: '{}' });
const output = (id: string) => ({ type: 'function_call_output', call_id: id, output: 'x' });
const reasoning = (id: string, enc?: string) => ({ type: 'reasoning', id, summary: [], ...(enc !== undefined ? { encrypted_content: enc } : {}) });
const base = { model: 'gpt-5.4', store: false };

describe('refusals', () => {
  it('a function_call_output without its call', async () => {
    const r = await post({ ...base, input: [user('a'), output('call_x')] });
    expect(r.status).toBe(400);
    expect(r.text).toContain('No tool call found for function call output with call_id call_x.');
  });

  it('a function_call without its output', async () => {
    const r = await post({ ...base, input: [user('a'), call('call_x'), user('b')] });
    expect(r.status).toBe(400);
    expect(r.text).toContain('No tool output found for function call call_x.');
  });

  it('a reasoning item without encrypted content under store: false', async () => {
    const r = await post({ ...base, input: [user('a'), reasoning('rs_1'), call('c'), output('c')] });
    expect(r.status).toBe(400);
    expect(r.text).toContain("Item with id 'rs_1' not found. Items are not persisted when `store` is set to false.");
  });

  it('encrypted content it did not issue for that item', async () => {
    const r = await post({ ...base, input: [user('a'), reasoning('rs_1', sealReasoning('rs_2', 'gpt-5.4')), call('c'), output('c')] });
    expect(r.status).toBe(400);
    expect(r.text).toContain('could not be verified');
  });

  it('a reasoning item with nothing of its reply after it', async () => {
    const r = await post({ ...base, input: [user('a'), reasoning('rs_1', sealReasoning('rs_1', 'gpt-5.4')), user('b')] });
    expect(r.status).toBe(400);
    expect(r.text).toContain("Item 'rs_1' of type 'reasoning' was provided without its required following item.");
  });

  it('include of encrypted reasoning on a non-reasoning model', async () => {
    const r = await post({ model: 'gpt-4.1', store: false, include: ['reasoning.encrypted_content'], input: 'hi' });
    expect(r.status).toBe(400);
    expect(r.text).toContain('Encrypted content is not supported with this model.');
  });

  it('accepts a valid replay', async () => {
    const r = await post({ ...base, input: [user('a'), reasoning('rs_1', sealReasoning('rs_1', 'gpt-5.4')), call('c'), output('c')] });
    expect(r.status).toBe(200);
  });
});

describe('over the window', () => {
  it('streaming: a 200 whose only event is an error with context_length_exceeded', async () => {
    server.settings.contextWindow = 5;
    const r = await post({ ...base, stream: true, input: 'a long enough prompt for five tokens' });
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/^event: error\n/);
    expect(r.text).toContain('"code":"context_length_exceeded"');
    expect(server.pendingReplies()).toBe(0);
  });

  it('not streaming: a 400 with context_length_exceeded on input', async () => {
    server.settings.contextWindow = 5;
    const r = await post({ ...base, input: 'a long enough prompt for five tokens' });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text)).toMatchObject({ error: { code: 'context_length_exceeded', param: 'input' } });
  });
});

describe('replies', () => {
  it('reports cached tokens for a repeated prefix with the same prompt_cache_key', async () => {
    const input = [user('x '.repeat(2_000))];
    await post({ ...base, prompt_cache_key: 's1', input });
    const second = JSON.parse(
      (await post({ ...base, prompt_cache_key: 's1', input: [...input, { type: 'message', role: 'assistant', content: 'ok' }, user('more')] })).text,
    );
    expect(second.usage.input_tokens_details.cached_tokens).toBeGreaterThan(1_900);
  });

  it('counts input tokens at /v1/responses/input_tokens', async () => {
    const r = await post({ ...base, input: 'hello there' }, '/v1/responses/input_tokens');
    expect(JSON.parse(r.text)).toEqual({ object: 'response.input_tokens', input_tokens: server.requests[0]!.view!.promptTokens });
  });
});
