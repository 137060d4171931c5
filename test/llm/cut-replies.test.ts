import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUT_REPLY_NOTE, withCutNotes } from '../../src/llm/cutReplies.js';
import { createProvider } from '../../src/llm/factory.js';
import type { Message } from '../../src/llm/messages.js';
import type { Provider } from '../../src/llm/provider.js';
import { startFakeServer, type FakeServer } from '../fake-server/server.js';
import { KEY, msg, request, run, text } from './helpers.js';

// A reply the person cut short (Esc) goes back to the model with a note at its end, through every
// adapter and the real SDKs over HTTP: sent bare, the model reads "I'd start by readi" as a reply it
// chose to end there and carries on as if the person had seen it finished.

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(() => server.close());

const cut: Message = { ...msg('assistant', [text('I would start by readi')]), interrupted: true };
const noReply: Message = { ...msg('assistant', [text('[No reply: the turn for the message above ended before the model answered.]')]), interrupted: true };
const history = (): Message[] => [
  msg('user', [text('Fix the parser.')]),
  cut,
  msg('user', [text('No, look at the lexer first.')]),
  msg('assistant', [text('Looking at the lexer.')]),
  msg('user', [text('Hello?')]),
  noReply,
  msg('user', [text('Go on.')]),
];

/** The assistant texts of the last request, as the provider received them. */
async function sentReplies(provider: Provider, model: string, pick: (body: Record<string, unknown>) => string[]): Promise<string[]> {
  server.clear();
  server.enqueue({ text: 'ok' });
  const r = await run(provider, request({ model, messages: history() }));
  expect(r.error).toBeUndefined();
  return pick(server.requests.at(-1)!.body as Record<string, unknown>);
}

type Wire = { role?: string; type?: string; content?: unknown };
const textsOf = (content: unknown): string => (typeof content === 'string' ? content : (content as Array<{ text?: string }>).map((c) => c.text ?? '').join(''));

describe('an interrupted reply as sent', () => {
  const expected = [
    `I would start by readi\n\n${CUT_REPLY_NOTE}`,
    'Looking at the lexer.',
    '[No reply: the turn for the message above ended before the model answered.]',
  ];

  it('Anthropic: the cut reply ends with the note; a whole reply and the "No reply" placeholder go as they are', async () => {
    const p = createProvider({ provider: 'anthropic', apiKey: KEY, baseURL: server.anthropicBaseURL });
    const replies = await sentReplies(p, 'claude-test', (b) => (b.messages as Wire[]).filter((m) => m.role === 'assistant').map((m) => textsOf(m.content)));
    expect(replies).toEqual(expected);
  });

  it('OpenAI Chat Completions: the same', async () => {
    const p = createProvider({ provider: 'openai', apiKey: KEY, baseURL: server.openaiBaseURL, api: 'chat' });
    const replies = await sentReplies(p, 'gpt-test', (b) => (b.messages as Wire[]).filter((m) => m.role === 'assistant').map((m) => textsOf(m.content)));
    expect(replies).toEqual(expected);
  });

  it('OpenAI Responses: the same', async () => {
    const p = createProvider({ provider: 'openai', apiKey: KEY, baseURL: server.openaiBaseURL, api: 'responses' });
    const replies = await sentReplies(p, 'gpt-5.4', (b) =>
      (b.input as Wire[]).filter((m) => m.type === 'message' && m.role === 'assistant').map((m) => textsOf(m.content)),
    );
    expect(replies).toEqual(expected);
  });
});

// Mutations checked: dropping withCutNotes from any one adapter fails its case (the cut reply goes
// bare); needsNote without the bracketed-note exception fails all three on the "No reply" placeholder.

describe('which replies get the note (withCutNotes)', () => {
  const noted = (m: Message): string[] => withCutNotes([msg('user', [text('Go.')]), m])[1]!.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : []));

  it('a cut reply that thought or called a tool before its text: the note ends its last text block only', () => {
    const thought: Message = {
      ...msg('assistant', [
        { type: 'thinking', thinking: 'hmm', signature: 'sig' },
        text('First part.'),
        { type: 'tool_use', id: 't1', name: 'Read', input: {} },
        text('Then I would'),
      ]),
      interrupted: true,
    };
    // mutations: `.some(` for `.every(` on either line of needsNote leaves a reply with other blocks bare
    expect(noted(thought)).toEqual(['First part.', `Then I would\n\n${CUT_REPLY_NOTE}`]);
  });

  it('a placeholder note ending in a newline needs none; a reply with no text, a whole reply, a cut user message: none', () => {
    const placeholder: Message = { ...msg('assistant', [text('[No reply: the turn ended before the model answered.]\n')]), interrupted: true };
    // mutation: the bracket test without trim() adds the note to it
    expect(noted(placeholder)).toEqual(['[No reply: the turn ended before the model answered.]\n']);
    const toolOnly: Message = { ...msg('assistant', [{ type: 'tool_use', id: 't1', name: 'Read', input: {} }]), interrupted: true };
    expect(withCutNotes([toolOnly])[0]).toBe(toolOnly);
    const whole = msg('assistant', [text('Done.')]);
    const cutUser: Message = { ...msg('user', [text('I was typ')]), interrupted: true };
    const untouched = [whole, cutUser];
    expect(withCutNotes(untouched)).toBe(untouched);
  });
});
