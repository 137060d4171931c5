import { createServer } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import type { AgentEvent } from '../../src/protocol/events.js';
import type { LoopHost, LoopOptions } from '../../src/agent/host.js';
import { callModel } from '../../src/agent/modelCall.js';
import { createProvider } from '../../src/llm/factory.js';
import type { Provider } from '../../src/llm/provider.js';
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

/** One model call's options: no tools, every call allowed, one step, no output recovery; the patience the test needs. */
const callOptions = (provider: Provider, patience: LoopOptions['patience']): LoopOptions => ({
  provider,
  model: 'claude-sonnet-4-5',
  tools: [],
  gate: { authorize: async () => ({ ok: true as const }) },
  maxSteps: 1,
  patience,
  maxOutputRecoveries: 0,
  cwd: '/tmp',
  request: {},
});

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
    const opts = callOptions(provider, { retry: { maxAttempts: 2, baseDelayMs: 400, maxDelayMs: 400 }, waitNoticeMs: 25 });
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

describe('waiting for a reply that does not come', () => {
  it('tells the person every 5 s by default (waitNoticeMs unset), counting the silent seconds', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      // a provider that answers nothing until the call is given up
      const provider: Provider = {
        name: 'anthropic',
        async *stream(req) {
          await new Promise((r) => req.signal?.addEventListener('abort', r));
          yield* [];
        },
      };
      const opts = callOptions(provider, { retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
      const events: AgentEvent[] = [];
      const stop = new AbortController();
      const out = callModel(host([userMessage('hi')]), opts, [], 1, stop.signal, (e) => events.push(e), sleep);
      const waiting = () => events.filter((e): e is Extract<AgentEvent, { type: 'waiting' }> => e.type === 'waiting');
      await vi.advanceTimersByTimeAsync(4_999);
      expect(waiting()).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(waiting().map((w) => [w.seconds, w.stalled])).toEqual([[5, false]]);
      await vi.advanceTimersByTimeAsync(5_000);
      expect(waiting().map((w) => w.seconds)).toEqual([5, 10]);
      stop.abort();
      expect((await out).kind).toBe('aborted');
    } finally {
      vi.useRealTimers();
    }
  });
});
