import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSilentServer, type SilentServer } from '../fake-server/silent.js';
import { createProvider } from '../../src/llm/factory.js';
import { KEY, request, run } from './helpers.js';

// Each stage of a request has its own timeout: connecting (a TLS handshake that never
// completes), the response beginning (a server that reads the request and says nothing).

let silent: SilentServer;
let port = 0;
beforeAll(async () => {
  silent = await startSilentServer();
  port = silent.port;
});
afterAll(() => silent.close());

describe.each(['anthropic', 'openai'] as const)('%s request stages', (provider) => {
  const base = (scheme: string): string => `${scheme}://127.0.0.1:${port}${provider === 'openai' ? '/v1' : ''}`;

  it('a connection that never completes fails on the connect timeout', async () => {
    const p = createProvider({ provider, apiKey: KEY, baseURL: base('https'), connectTimeoutMs: 300, firstByteTimeoutMs: 10_000, idleTimeoutMs: 10_000 });
    const started = Date.now();
    const e = (await run(p, request({ model: provider === 'openai' ? 'gpt-4o' : 'claude-test' }))).error;
    expect(e?.kind).toBe('connection');
    expect(e?.message).toBe(`could not connect to 127.0.0.1:${port} within 0.3 s (timeouts.connectMs)`);
    expect(e?.retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a server that never answers fails on the first-byte timeout, not the connect one', async () => {
    const p = createProvider({ provider, apiKey: KEY, baseURL: base('http'), connectTimeoutMs: 200, firstByteTimeoutMs: 600, idleTimeoutMs: 10_000 });
    const e = (await run(p, request({ model: provider === 'openai' ? 'gpt-4o' : 'claude-test' }))).error;
    expect(e?.kind).toBe('connection');
    expect(e?.message).toBe(`no response from 127.0.0.1:${port} within 0.6 s of sending the request (timeouts.firstByteMs)`);
  });
});
