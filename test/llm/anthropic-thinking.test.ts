import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProvider } from '../../src/llm/factory.js';
import type { Block, Message } from '../../src/llm/messages.js';
import type { ModelRequest, Provider } from '../../src/llm/provider.js';
import { replayableHistory } from '../../src/llm/thinkingReplay.js';
import { startFakeServer, type FakeServer } from '../fake-server/server.js';
import { failure, KEY, msg, READ_TOOL, request, run, text } from './helpers.js';

// Thinking on the Anthropic wire: the adapter against the fake server's simulation of the 5
// family (thinks by default, signed blocks bound to their prefix) and of 4.5-era models.

let server: FakeServer;
let provider: Provider;
const FIVE = 'claude-sonnet-5-5';

beforeAll(async () => {
  server = await startFakeServer();
  provider = createProvider({ provider: 'anthropic', apiKey: KEY, baseURL: server.anthropicBaseURL, idleTimeoutMs: 5_000 });
});
afterAll(() => server.close());
afterEach(() => {
  server.clear();
  server.respondWith(undefined);
});

/** One step of a tool loop: send, store the reply with its prefix hash, answer its tool call. */
async function step(history: Message[], over: Partial<ModelRequest> = {}): Promise<Message> {
  const r = await run(provider, request({ model: FIVE, messages: history, ...over }));
  if (r.error) throw r.error;
  const reply: Message = { ...msg('assistant', r.done!.blocks), ...(r.done!.prefixHash ? { prefixHash: r.done!.prefixHash } : {}) };
  history.push(reply);
  const uses = r.done!.blocks.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
  if (uses.length > 0)
    history.push(
      msg(
        'user',
        uses.map((id): Block => ({ type: 'tool_result', toolUseId: id, content: `output of ${id}`, isError: false })),
      ),
    );
  return reply;
}

describe('the 5 family thinks by default', () => {
  it('streams a signed thinking block first, kept verbatim, with its tokens in usage', async () => {
    server.enqueue({ thinking: 'Weigh the two options first.', text: 'Option B.' });
    const r = await run(provider, request({ model: FIVE, thinking: { mode: 'adaptive', display: 'summarized', effort: 'low' } }));
    const thought = r.events.flatMap((e) => (e.type === 'thinking_delta' ? [e.text] : [])).join('');
    expect(thought).toBe('Weigh the two options first.');
    const [first, second] = r.done!.blocks;
    expect(first).toMatchObject({ type: 'thinking', thinking: 'Weigh the two options first.' });
    expect((first as { signature: string }).signature.length).toBeGreaterThan(20);
    expect(second).toEqual({ type: 'text', text: 'Option B.' });
    expect(r.done!.usage.thinkingTokens).toBeGreaterThan(0);
    expect(r.done!.usage.outputTokens).toBeGreaterThan(r.done!.usage.thinkingTokens!);
    expect(server.requests[0]!.body).toMatchObject({ thinking: { type: 'adaptive', display: 'summarized' }, output_config: { effort: 'low' } });
  });

  it('omits the thinking text when display is not asked for, and still signs the block', async () => {
    server.enqueue({ text: 'Done.' });
    const r = await run(provider, request({ model: FIVE }));
    expect(r.done!.blocks[0]).toMatchObject({ type: 'thinking', thinking: '' });
    expect(r.events[0]).toEqual({ type: 'thinking_delta', text: '' });
  });

  it('never sends a sampling parameter (refused under anthropic-version 2026-10-21)', async () => {
    server.enqueue({ text: 'ok' });
    const r = await run(provider, request({ model: FIVE, temperature: 0.2 }));
    expect(r.error).toBeUndefined();
    expect(server.requests[0]!.body).not.toHaveProperty('temperature');
    expect(server.requests[0]!.headers['anthropic-version']).toBe('2026-10-21');
  });
});

describe('a tool loop carries its thinking', () => {
  it('sends each thinking block back unchanged, in order, and the server accepts it', async () => {
    server.enqueue({ toolCalls: [{ name: 'Read', input: { path: 'a' } }] }, { toolCalls: [{ name: 'Read', input: { path: 'b' } }] }, { text: 'Both read.' });
    const history = [msg('user', [text('Read a and b')])];
    await step(history);
    await step(history);
    await step(history);
    expect(server.requests.map((r) => r.response?.status)).toEqual([200, 200, 200]);
    const sent = server.requests[2]!.view!.messages.filter((m) => m.role === 'assistant').map((m) => m.blocks[0]!.type);
    expect(sent).toEqual(['thinking', 'thinking']);
  });

  it('the server refuses a tool loop sent back without its thinking', async () => {
    server.enqueue({ toolCalls: [{ name: 'Read', input: { path: 'a' } }] }, { text: 'never' });
    const history = [msg('user', [text('Read a')])];
    const reply = await step(history);
    reply.blocks = reply.blocks.filter((b) => b.type !== 'thinking');
    const err = await failure(provider, request({ model: FIVE, messages: history }));
    expect(err.message).toContain('Expected `thinking` or `redacted_thinking`, but found `tool_use`');
  });

  it('the server refuses thinking replayed after its prefix changed, unless the rule leaves it out', async () => {
    server.enqueue({ toolCalls: [{ name: 'Read', input: { path: 'a' } }] }, { text: 'Read it.' }, { text: 'Next.' }, { text: 'Again.' });
    const history = [msg('user', [text('Read a')])];
    await step(history);
    await step(history);
    history.push(msg('user', [text('and now?')]));
    // a micro clearing rewrites the old tool output: every thinking block after it is bound to the old text
    const cleared = history[2]!;
    cleared.blocks = [{ type: 'tool_result', toolUseId: (cleared.blocks[0] as { toolUseId: string }).toolUseId, content: '[cleared]', isError: false }];
    const r = await run(provider, request({ model: FIVE, messages: history }));
    expect(r.error).toBeUndefined();
    const assistants = server.lastRequest()!.view!.messages.filter((m) => m.role === 'assistant');
    // the first reply came before the change and keeps its thinking; the second one's is left out
    expect(assistants.map((m) => m.blocks.some((b) => b.type === 'thinking'))).toEqual([true, false]);
    expect(history[3]!.blocks[0]!.type).toBe('thinking');

    // what the rule prevents: the same request with the stale block is refused
    const stale = await failure(
      provider,
      request({
        model: FIVE,
        messages: history.map((m) => ({
          ...m,
          prefixHash: replayableHistory(FIVE, 'You are a coding agent.', [READ_TOOL], history.slice(0, history.indexOf(m))).prefixHash,
        })),
      }),
    );
    expect(stale.message).toContain('bound to a different conversation');
  });
});

describe('a stored reply without a prefix hash (an older session)', () => {
  it('loses its thinking once the history before it changed (issue 30 pin)', () => {
    // no hash, no proof its signature still fits: a changed prefix must leave its thinking out.
    // Kills the mutant that treats a missing hash as valid (m.prefixHash === undefined || …).
    const old: Message = msg('assistant', [{ type: 'thinking', thinking: 'weighed it', signature: 'sig-old' }, text('Done.')]);
    const history = [msg('user', [text('Read a (its output since cleared)')]), old, msg('user', [text('and now?')])];
    const r = replayableHistory(FIVE, 'You are a coding agent.', [READ_TOOL], history);
    expect(r.dropped).toBe(1);
    expect(r.messages[1]!.blocks.map((b) => b.type)).toEqual(['text']);
    // the same reply with the hash of its prefix keeps it
    const hashed = { ...old, prefixHash: replayableHistory(FIVE, 'You are a coding agent.', [READ_TOOL], history.slice(0, 1)).prefixHash };
    const kept = replayableHistory(FIVE, 'You are a coding agent.', [READ_TOOL], [history[0]!, hashed, history[2]!]);
    expect(kept.dropped).toBe(0);
  });
});

describe('settings the model refuses', () => {
  it('enabled and disabled on the 5 family; enabled needs a budget of 1,024 and under max_tokens on 4.5', async () => {
    expect((await failure(provider, request({ model: FIVE, maxTokens: 8_000, thinking: { mode: 'enabled', budgetTokens: 2_000 } }))).message).toContain(
      '"thinking.type.enabled" is not supported',
    );
    expect((await failure(provider, request({ model: FIVE, thinking: { mode: 'off' } }))).message).toContain('"thinking.type.disabled" is not supported');
    expect((await failure(provider, request({ model: 'claude-sonnet-4-5', thinking: { mode: 'adaptive' } }))).message).toContain(
      '"thinking.type.adaptive" is not supported',
    );
    expect((await failure(provider, request({ model: 'claude-sonnet-4-5', thinking: { mode: 'enabled', budgetTokens: 500 } }))).message).toContain(
      'greater than or equal to 1024',
    );
    // a budget not below max_tokens (a window that shrank mid-session) follows max_tokens down instead of meeting the 400
    server.enqueue({ text: 'ok' });
    expect(
      (await run(provider, request({ model: 'claude-sonnet-4-5', maxTokens: 4_000, thinking: { mode: 'enabled', budgetTokens: 4_000 } }))).error,
    ).toBeUndefined();
    expect(server.lastRequest()!.body).toMatchObject({ max_tokens: 4_000, thinking: { type: 'enabled', budget_tokens: 3_999 } });
  });

  it('4.5 with enabled thinking and a budget thinks, and its tool loop carries it', async () => {
    server.enqueue({ thinking: 'plan', toolCalls: [{ name: 'Read', input: { path: 'a' } }] }, { text: 'done' });
    const history = [msg('user', [text('Read a')])];
    const over = { model: 'claude-sonnet-4-5', maxTokens: 8_000, thinking: { mode: 'enabled' as const, budgetTokens: 4_000 } };
    const first = await step(history, over);
    expect(first.blocks[0]).toMatchObject({ type: 'thinking', thinking: 'plan' });
    await step(history, over);
    expect(server.requests.map((r) => r.response?.status)).toEqual([200, 200]);
    expect(server.requests[0]!.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 4_000 } });
  });

  // A tool loop whose thinking cannot be replayed (another model made the call; an interrupted call
  // whose result the next prompt joined): that request goes without thinking where the model can
  // turn it off, and thinks where the loop still has its thinking. Mutations: withoutReplay always
  // keeping thinking (the fake refuses the first), or turning it off without looking at the loop
  // (the second sends disabled), or ignoring canTurnOff (the 5 family's adaptive-only request sends disabled: a 400).
  it('a tool loop without its thinking goes without thinking, where the model can turn it off', async () => {
    server.enqueue({ toolCalls: [{ name: 'Read', input: { path: 'a' } }] }, { text: 'read' });
    const history = [msg('user', [text('Read a')])];
    await step(history);
    history.push(msg('user', [text('and then?')]));
    const sixAdaptive = { model: 'claude-opus-4-6', thinking: { mode: 'adaptive' as const, display: 'summarized' as const, canTurnOff: true } };
    const r = await run(provider, request({ ...sixAdaptive, messages: history }));
    expect(r.error).toBeUndefined();
    expect(server.lastRequest()!.body).toMatchObject({ thinking: { type: 'disabled' } });

    const own = [msg('user', [text('Read a')])];
    server.enqueue({ toolCalls: [{ name: 'Read', input: { path: 'a' } }] }, { text: 'kept' });
    await step(own, sixAdaptive);
    await step(own, sixAdaptive);
    expect(server.requests.at(-1)!.body).toMatchObject({ thinking: { type: 'adaptive' } });
    expect(server.requests.at(-1)!.response?.status).toBe(200);

    // the 5 family cannot turn thinking off: the interrupted call and its result go as a note in
    // the person's turn (mutation: closeLostLoops off, and the fake refuses the open loop)
    const five = { model: 'claude-opus-5', thinking: { mode: 'adaptive' as const } };
    server.enqueue({ text: 'noted' });
    const r5 = await run(provider, request({ ...five, messages: history }));
    expect(r5.error).toBeUndefined();
    expect(server.lastRequest()!.body).toMatchObject({ thinking: { type: 'adaptive' } });
    const sent = server.lastRequest()!.view!.messages;
    expect(sent.map((m) => m.role)).toEqual(['user']);
    expect(JSON.stringify(sent)).toContain('Read {\\"path\\":\\"a\\"}: output of');
  });
});

describe('replayed thinking in the input count', () => {
  const LONG_THOUGHT = 'Consider each file in turn and weigh what the person asked for against it. '.repeat(20);
  const dropThinking = (m: Message): Message => ({ ...m, blocks: m.blocks.filter((b) => b.type !== 'thinking') });
  const promptOf = async (over: Partial<ModelRequest>, messages: Message[]): Promise<number> => {
    const r = await run(provider, request({ ...over, messages }));
    expect(r.error).toBeUndefined();
    return server.lastRequest()!.view!.promptTokens;
  };

  /** The fake's input count of a finished turn sent back with its thinking, less without it. */
  async function finishedTurnThinking(over: Partial<ModelRequest>): Promise<number> {
    server.enqueue({ thinking: LONG_THOUGHT, text: 'A.' }, { text: 'B.' }, { text: 'B.' });
    const history = [msg('user', [text('First question')])];
    await step(history, over);
    history.push(msg('user', [text('Second question')]));
    return (await promptOf(over, history)) - (await promptOf(over, history.map(dropThinking)));
  }

  it('counts a finished turn’s thinking on the 5 family (kept in context) and not on 4.5 (stripped by the API)', async () => {
    expect(await finishedTurnThinking({ model: FIVE, maxTokens: 8_000, thinking: { mode: 'adaptive', display: 'summarized' } })).toBeGreaterThan(200);
    expect(
      await finishedTurnThinking({ model: 'claude-sonnet-4-5', maxTokens: 8_000, thinking: { mode: 'enabled', budgetTokens: 4_000, display: 'summarized' } }),
    ).toBe(0);
  });

  it('counts the open tool loop’s thinking on 4.5', async () => {
    const over = { model: 'claude-sonnet-4-5', maxTokens: 8_000, thinking: { mode: 'enabled' as const, budgetTokens: 4_000, display: 'summarized' as const } };
    server.enqueue({ thinking: LONG_THOUGHT, toolCalls: [{ name: 'Read', input: { path: 'a' } }] }, { text: 'C.' }, { text: 'C.' });
    const history = [msg('user', [text('Read a')])];
    await step(history, over);
    const withIt = await promptOf(over, history);
    // without thinking asked for, the loop may go back without its thinking
    const { thinking: _t, ...plain } = over;
    const without = await promptOf(
      plain,
      history.map((m, i) => (i === 1 ? dropThinking(m) : m)),
    );
    expect(withIt - without).toBeGreaterThan(200);
  });
});
