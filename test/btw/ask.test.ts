import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asideMessages, askAside } from '../../src/btw/ask.js';
import { btw } from '../../src/btw/capability.js';
import type { CapabilityContext, CommandSession } from '../../src/capability/context.js';
import type { Config } from '../../src/config/config.js';
import { createProvider } from '../../src/llm/factory.js';
import type { Message, Usage } from '../../src/llm/messages.js';
import type { Provider } from '../../src/llm/provider.js';
import { startFakeServer, type FakeServer } from '../fake-server/server.js';
import { KEY } from '../llm/helpers.js';

const user = (id: string, text: string): Message => ({ id, role: 'user', blocks: [{ type: 'text', text }], kind: 'normal', createdAt: 1 });
const assistant = (id: string, text: string): Message => ({ id, role: 'assistant', blocks: [{ type: 'text', text }], kind: 'normal', createdAt: 2 });

describe('asideMessages', () => {
  it('after a reply, the question is a new message of the person, last; the history is left as it was', () => {
    const history = [user('u1', 'read a.ts'), assistant('a1', 'It exports f.')];
    const out = asideMessages(history, 'what does f return?');
    expect(out.slice(0, 2)).toEqual(history);
    expect(out).toHaveLength(3);
    expect(out[2]!.role).toBe('user');
    const text = out[2]!.blocks[0]!.type === 'text' ? out[2]!.blocks[0]!.text : '';
    expect(text).toContain('<side-question>');
    expect(text).toContain('what does f return?');
    expect(history).toHaveLength(2);
  });

  it("after a message of the person's, the question joins it as a last block, so roles still alternate", () => {
    const history = [user('u1', 'read a.ts')];
    const out = asideMessages(history, 'why?');
    expect(out).toHaveLength(1);
    expect(out[0]!.id).toBe('u1');
    expect(out[0]!.blocks).toHaveLength(2);
    expect(out[0]!.blocks[0]).toEqual({ type: 'text', text: 'read a.ts' });
    expect(history[0]!.blocks).toHaveLength(1);
    // the messages before it stay as they were, in order
    const longer = [user('u1', 'read a.ts'), assistant('a1', 'It exports f.'), user('u2', 'and g?')];
    const joined = asideMessages(longer, 'why?');
    expect(joined.map((m) => [m.id, m.blocks.length])).toEqual([
      ['u1', 1],
      ['a1', 1],
      ['u2', 2],
    ]);
  });
});

describe('askAside over the real SDK and the fake provider', () => {
  let server: FakeServer;
  let provider: Provider;
  beforeAll(async () => {
    server = await startFakeServer();
    provider = createProvider({ provider: 'anthropic', apiKey: KEY, baseURL: server.anthropicBaseURL });
  });
  afterAll(() => server.close());

  function session(bills: Array<{ model: string; usage: Usage }>, maxOutputTokens = 64_000): CommandSession {
    const config = { model: { name: 'claude-sonnet-5-5', maxOutputTokens } } as unknown as Config;
    return {
      id: 's1',
      busy: false,
      currentConfig: config,
      messages: () => [user('u1', 'read a.ts'), assistant('a1', 'It exports f.')],
      frame: () => ({ config, provider, system: 'the system prompt' }),
      bill: (model, usage) => void bills.push({ model, usage }),
    };
  }

  it('sends the system prompt and history with the question, no tools, a short answer; bills the usage; returns the text trimmed', async () => {
    const bills: Array<{ model: string; usage: Usage }> = [];
    server.enqueue({ text: '  f returns 42.  ' });
    const answer = await askAside(session(bills), 'what does f return?', new AbortController().signal);
    expect(answer).toBe('f returns 42.');
    const v = server.requests.at(-1)!.view!;
    expect(v.system).toContain('the system prompt');
    expect(v.toolNames).toEqual([]);
    expect(v.maxTokens).toBe(2_048);
    expect(v.messages).toHaveLength(3);
    expect(bills).toHaveLength(1);
    expect(bills[0]!.usage.outputTokens).toBeGreaterThan(0);
  });

  it("the answer's limit is the model's own when smaller; an empty answer says so", async () => {
    server.enqueue({ text: '' });
    expect(await askAside(session([], 1_000), 'q', new AbortController().signal)).toBe('(the model gave no answer)');
    expect(server.requests.at(-1)!.view!.maxTokens).toBe(1_000);
  });

  it('/btw without a question is refused with its usage, and sends nothing', async () => {
    const cap = await btw({} as CapabilityContext);
    const command = cap?.commands?.find((c) => c.name === 'btw');
    expect(command).toBeDefined();
    const before = server.requests.length;
    await expect(command!.run(session([]), '   ', new AbortController().signal)).rejects.toThrow('usage: /btw <question>');
    expect(server.requests.length).toBe(before);
    // with one, the command's output is the answer's text, the question trimmed
    server.enqueue({ text: 'It returns 42.' });
    expect(await command!.run(session([]), '  what does f return? ', new AbortController().signal)).toEqual({ kind: 'text', text: 'It returns 42.' });
    const asked = server.requests.at(-1)!.view!.messages.at(-1) as unknown as { blocks: Array<{ text?: string }> };
    expect(asked.blocks.at(-1)?.text).toContain('\n\nwhat does f return?\n</side-question>');
  });
});

// Mutations checked: the question appended after a last message of the person's (two user
// messages in a row) fails the second test; the limit taken as MAX_ANSWER_TOKENS alone fails the
// fourth; the bill left out fails the third; the trim left out fails the third.
