import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/protocol/events.js';
import type { LoopHost, LoopOptions } from '../../src/agent/host.js';
import { callModel } from '../../src/agent/modelCall.js';
import { createProvider } from '../../src/llm/factory.js';
import { userMessage, type Message } from '../../src/llm/messages.js';
import { sleep } from '../../src/llm/retry.js';
import { waitingText } from '../../src/ui/status-text.js';

// While the provider cannot be reached (connection refused), the waiting notices said "No
// response yet", as if a request were out. They say "cannot connect" and why.

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

const host = (history: Message[]): LoopHost => ({
  history: () => history,
  append: (m) => m,
  systemPrompt: () => 'system',
  maxOutputTokens: () => 100,
  beforeModelCall: async () => undefined,
  noteOverflow: () => undefined,
  recoverFromOverflow: async () => false,
  afterResponse: () => undefined,
});

describe('waiting while the provider cannot be reached', () => {
  it('says "cannot connect" with the reason, not "no response yet", between the attempts', async () => {
    const provider = createProvider({ provider: 'anthropic', apiKey: 'sk-ant-test-key-0000', baseURL: `http://127.0.0.1:${await closedPort()}` });
    const opts = {
      provider,
      model: 'claude-sonnet-4-5',
      tools: [],
      gate: { authorize: async () => ({ ok: true as const }) },
      maxSteps: 1,
      patience: { retry: { maxAttempts: 2, baseDelayMs: 400, maxDelayMs: 400 }, waitNoticeMs: 25 },
      maxOutputRecoveries: 0,
      cwd: '/tmp',
      request: {},
    } satisfies LoopOptions;
    const events: AgentEvent[] = [];
    const out = await callModel(host([userMessage('hi')]), opts, [], 1, new AbortController().signal, (e) => events.push(e), sleep);
    expect(out.kind).toBe('failed');
    const firstRetry = events.findIndex((e) => e.type === 'retry');
    expect(firstRetry).toBeGreaterThanOrEqual(0);
    const after = events.slice(firstRetry).filter((e): e is Extract<AgentEvent, { type: 'waiting' }> => e.type === 'waiting');
    expect(after.length).toBeGreaterThan(0);
    for (const w of after) expect(w.cannotConnect).toMatch(/127\.0\.0\.1.*(refused|ECONNREFUSED)/i);
    expect(waitingText(after[0]!)).toMatch(/^Cannot connect \(.*\), \d+ s/);
  });
});
