import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/protocol/events.js';
import { MAX_PAUSES, runTurn, type LoopHost, type LoopOptions } from '../../src/agent/loop.js';
import { createProvider } from '../../src/llm/factory.js';
import { userMessage, type Message } from '../../src/llm/messages.js';
import type { Provider, ThinkingRequest } from '../../src/llm/provider.js';
import { historyProblems } from '../../src/llm/validate.js';
import { DEFAULT_SEARCH_RESULTS } from '../fake-server/websearch.js';
import { startFakeServer, type FakeServer } from '../fake-server/server.js';

// A turn the provider pauses (Anthropic pause_turn): the loop and the Anthropic adapter, with the
// real SDK over HTTP against the fake, which refuses a continuation that does not end with the
// paused reply as it came (and an open server_tool_use anywhere else).

let server: FakeServer;
let provider: Provider;
beforeAll(async () => {
  server = await startFakeServer();
  provider = createProvider({ provider: 'anthropic', apiKey: 'sk-ant-test', baseURL: server.anthropicBaseURL, idleTimeoutMs: 5_000 });
});
afterAll(() => server.close());
afterEach(() => {
  server.clear();
  server.respondWith(undefined);
});

class Host implements LoopHost {
  messages: Message[] = [];
  history = (): readonly Message[] => this.messages;
  append = (m: Message): Message => {
    this.messages.push(m);
    return m;
  };
  systemPrompt = (): string => 'system';
  maxOutputTokens = (): number => 4_000;
  beforeModelCall = async (): Promise<void> => {};
  noteOverflow = (): void => {};
  recoverFromOverflow = async (): Promise<boolean> => false;
  afterResponse = (): void => {};
}

const options = (extra: Partial<LoopOptions> = {}): LoopOptions => ({
  provider,
  model: 'claude-sonnet-4-5',
  tools: [],
  gate: { authorize: async () => ({ ok: true }) },
  maxSteps: 20,
  patience: { retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 5 }, sleep: async () => {} },
  maxOutputRecoveries: 3,
  cwd: '/tmp',
  request: { webSearch: {} },
  ...extra,
});

async function turn(host: Host, prompt: string, extra: Partial<LoopOptions> = {}, signal = new AbortController().signal) {
  const events: AgentEvent[] = [];
  const result = await runTurn(host, options(extra), userMessage(prompt), signal, (e) => events.push(e));
  return { result, events };
}

const wire = (n: number) => server.requests[n]!.body as { messages: Array<{ role: string; content: unknown[] }> };

describe('a turn the provider pauses', () => {
  it.each<[string, ThinkingRequest | undefined]>([
    ['without thinking', undefined],
    ['with thinking', { mode: 'enabled', budgetTokens: 1_024 }],
  ])('continues with the paused reply as the last message, as it came, and the whole turn goes back after (%s)', async (_name, thinking) => {
    const host = new Host();
    const extra = { request: { webSearch: {}, ...(thinking ? { thinking } : {}) } };
    server.enqueue({ search: { query: 'vitest 4' }, text: 'Let me look that up.', pause: true }, { text: 'Vitest 4 is out.' });
    const { result, events } = await turn(host, 'what is new in vitest?', extra);
    expect(result.reason, JSON.stringify(events.filter((e) => e.type === 'error'))).toBe('end_turn');
    // each call is a step; the answer has both parts, nothing in between
    expect(result.steps).toBe(2);
    expect(result.text).toBe('Let me look that up.\n\nVitest 4 is out.');
    // mutation: mapping pause_turn to 'other' (the turn ends after the first call) fails these
    expect(server.requests).toHaveLength(2);
    // the continuation request ends with the paused reply verbatim: no user message, the search call still open
    const sent = wire(1).messages;
    expect(sent).toHaveLength(2);
    expect(sent.at(-1)!.role).toBe('assistant');
    // mutation: dropping the open server_tool_use (the existing rule applied in the final position too) fails this
    expect(sent.at(-1)!.content.map((b) => (b as { type: string }).type)).toEqual([...(thinking ? ['thinking'] : []), 'text', 'server_tool_use']);
    expect(server.requests[1]!.response?.status).toBe(200);
    // stored: user, paused reply, continuation (a search split in two: call, then result with the query)
    expect(host.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'assistant']);
    const continuation = host.messages[2]!;
    expect(continuation.blocks[0]).toMatchObject({ type: 'web_search', query: 'vitest 4', results: DEFAULT_SEARCH_RESULTS });
    // two replies of one turn side by side are a valid history (compaction and /uncompact check it)
    // mutation: the old rule, no two assistant messages ever adjacent, fails this
    expect(historyProblems(host.messages)).toEqual([]);
    expect(historyProblems([...host.messages.slice(0, 1), { ...host.messages[1]!, interrupted: true }, host.messages[2]!])).toHaveLength(1);

    // the next turn sends both as one assistant message, the call before its result (the fake refuses it otherwise)
    server.enqueue({ text: 'Still 4.' });
    const next = await turn(host, 'and now?', extra);
    // mutation: sending the two stored replies as two assistant messages, or the result before its call, fails this
    expect(next.result.reason, JSON.stringify(next.events.filter((e) => e.type === 'error'))).toBe('end_turn');
    const merged = wire(2).messages[1]!.content.map((b) => (b as { type: string }).type);
    expect(merged).toEqual([...(thinking ? ['thinking'] : []), 'text', 'server_tool_use', 'web_search_tool_result', 'text']);
  });

  it('leaves an open search out once a user message follows (an aborted continuation), so the next turn is accepted', async () => {
    const host = new Host();
    const ctl = new AbortController();
    // the continuation never comes: the turn is aborted while it waits
    server.respondWith((rec) => {
      if (rec.seq === 1) return { search: { query: 'vitest 4' }, text: 'Let me look that up.', pause: true };
      ctl.abort();
      return { text: 'too late', frameDelayMs: 50 };
    });
    const aborted = await turn(host, 'what is new in vitest?', {}, ctl.signal);
    expect(aborted.result.reason).toBe('aborted');
    server.respondWith(undefined);
    server.enqueue({ text: 'From memory: 4.' });
    const next = await turn(host, 'just tell me');
    // mutation: sending an open server_tool_use outside the final position fails this (the fake refuses it)
    expect(next.result.reason, JSON.stringify(next.events.filter((e) => e.type === 'error'))).toBe('end_turn');
    const last = server.requests.at(-1)!.body as { messages: Array<{ content: Array<{ type: string }> }> };
    expect(last.messages.flatMap((m) => m.content.map((b) => b.type))).not.toContain('server_tool_use');
  });

  it('stops continuing after MAX_PAUSES pauses in a row, with an error naming it', async () => {
    const host = new Host();
    server.respondWith(() => ({ text: 'Still working.', pause: true }));
    const { result, events } = await turn(host, 'research this');
    // mutation: continuing without a bound runs to maxSteps (20) instead
    expect(result.reason).toBe('error');
    expect(result.steps).toBe(MAX_PAUSES + 1);
    expect(events.find((e) => e.type === 'error')).toMatchObject({ message: expect.stringContaining(`paused this turn ${MAX_PAUSES} times`) });
  });
});
