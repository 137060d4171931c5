import { join } from 'node:path';
import { expect } from 'vitest';
import { ProviderError } from '../../src/llm/errors.js';
import type { Block, Message } from '../../src/llm/messages.js';
import type { DoneEvent, ModelRequest, Provider, StreamEvent, ToolSpec } from '../../src/llm/provider.js';

export const KEY = 'sk-test-SECRET-KEY-0123456789abcdef';

/** A run's environment in its own home against the fake provider's Anthropic route (a unit test building a real runtime). */
export const fakeProviderEnv = (home: string, anthropicBaseURL: string): NodeJS.ProcessEnv => ({
  PATH: process.env['PATH'],
  HOME: home,
  AGENT_DB: join(home, 'data', 'agent.db'),
  ANTHROPIC_API_KEY: KEY,
  ANTHROPIC_BASE_URL: anthropicBaseURL,
});

let n = 0;
export const msg = (role: 'user' | 'assistant', blocks: Block[], kind: Message['kind'] = 'normal'): Message => ({
  id: `m${++n}`,
  role,
  blocks,
  kind,
  createdAt: 0,
});
export const text = (t: string): Block => ({ type: 'text', text: t });

export const READ_TOOL: ToolSpec = {
  name: 'Read',
  description: 'Reads a file',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

export const request = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'claude-test',
  system: 'You are a coding agent.',
  messages: [msg('user', [text('Hello')])],
  tools: [READ_TOOL],
  maxTokens: 1000,
  ...over,
});

export interface Run {
  events: StreamEvent[];
  done?: DoneEvent;
  error?: ProviderError;
}

/** Drains a stream; a ProviderError is captured (and checked to be free of the key), anything else rethrown. */
export async function run(provider: Provider, req: ModelRequest): Promise<Run> {
  const events: StreamEvent[] = [];
  try {
    for await (const ev of provider.stream(req)) events.push(ev);
  } catch (e) {
    if (!(e instanceof ProviderError)) throw e;
    expect(e.message).not.toContain(KEY);
    expect(JSON.stringify(e)).not.toContain(KEY);
    return { events, error: e };
  }
  const done = events[events.length - 1];
  expect(done?.type).toBe('done');
  return { events, done: done as DoneEvent };
}

export async function failure(provider: Provider, req: ModelRequest): Promise<ProviderError> {
  const r = await run(provider, req);
  if (!r.error) throw new Error(`expected a ProviderError, got ${JSON.stringify(r.done)}`);
  return r.error;
}

export const textOfEvents = (events: StreamEvent[]): string => events.map((e) => (e.type === 'text_delta' ? e.text : '')).join('');
