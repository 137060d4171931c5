import Anthropic from '@anthropic-ai/sdk';
import type { ContentBlockParam, MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import OpenAI from 'openai';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from './server.js';
import { DEFAULT_SEARCH_RESULTS } from './websearch.js';

// The fake's server-side web search through the real SDKs: a searching reply streams in shapes
// the SDKs' own accumulators read, the blocks go back accepted verbatim, and what the APIs refuse
// is refused: a result without its server_tool_use, a citation without its search, altered
// results or items, a server_tool_use left unanswered, an unknown tool type.

let server: FakeServer;
let anthropic: Anthropic;
let openai: OpenAI;
beforeAll(async () => {
  server = await startFakeServer();
  anthropic = new Anthropic({ apiKey: 'sk-ant-test', baseURL: server.anthropicBaseURL, maxRetries: 0 });
  openai = new OpenAI({ apiKey: 'sk-test', baseURL: server.openaiBaseURL, maxRetries: 0 });
});
afterAll(() => server.close());

const MODEL = 'claude-sonnet-4-5';
const TOOL = { type: 'web_search_20250305' as const, name: 'web_search' as const, max_uses: 2 };

async function errorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof Anthropic.APIError || e instanceof OpenAI.APIError) return `${e.status} ${e.message}`;
    throw e;
  }
  throw new Error('expected an error');
}

/** A searching reply, streamed, as the SDK's accumulator assembles it. */
async function searched(): Promise<ContentBlockParam[]> {
  server.enqueue({ search: { query: 'node 24 lts' }, text: 'Node 24 is LTS.' });
  const msg = await anthropic.messages
    .stream({ model: MODEL, max_tokens: 200, tools: [TOOL], messages: [{ role: 'user', content: 'is node 24 lts?' }] })
    .finalMessage();
  return msg.content as unknown as ContentBlockParam[];
}

const followUp = (assistant: ContentBlockParam[], tools: Anthropic.Messages.ToolUnion[] = [TOOL]) => {
  const messages: MessageParam[] = [
    { role: 'user', content: 'is node 24 lts?' },
    { role: 'assistant', content: assistant },
    { role: 'user', content: 'thanks' },
  ];
  return anthropic.messages.create({ model: MODEL, max_tokens: 100, tools, messages });
};

describe('web search at the fake Anthropic API', () => {
  it('streams server_tool_use, the results and cited text the SDK assembles, and takes them back verbatim', async () => {
    const content = await searched();
    // mutation: frames without the input_json_delta (or the citations_delta) leave these empty
    expect(content.map((b) => b.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text']);
    expect(content[0]).toMatchObject({ input: { query: 'node 24 lts' } });
    expect(content[2]).toMatchObject({ citations: [{ type: 'web_search_result_location', url: DEFAULT_SEARCH_RESULTS[0]!.url }] });
    server.enqueue({ text: 'welcome' });
    await followUp(content);
    const view = server.requests.at(-1)!.view!;
    expect(view.messages[1]!.blocks.map((b) => b.type)).toEqual(['web_search', 'text']);
  });

  it('refuses a result without its server_tool_use, a citation without its search, and altered results', async () => {
    const content = await searched();
    const [call, result, text] = content as [ContentBlockParam, Anthropic.Messages.WebSearchToolResultBlockParam, Anthropic.Messages.TextBlockParam];
    // mutation: a fake that takes any web_search_tool_result passes the first
    expect(await errorOf(followUp([result, text]))).toMatch(/^400 .*has no corresponding server_tool_use block before it/);
    // mutation: a fake that does not check citations passes this
    expect(await errorOf(followUp([text]))).toMatch(/^400 .*citations\.0: Could not find search result for citation index/);
    const results = result.content as Anthropic.Messages.WebSearchResultBlockParam[];
    const altered = { ...result, content: [{ ...results[0]!, encrypted_content: 'EqFforged' }] };
    // mutation: a fake that does not verify the encrypted content passes this
    expect(await errorOf(followUp([call, altered, text]))).toMatch(/encrypted_content: Invalid encrypted content/);
    // a server_tool_use left without its result
    expect(await errorOf(followUp([call, { type: 'text', text: 'hm' }]))).toMatch(/without a corresponding web_search_tool_result block/);
  });

  it('refuses an unknown tool type and both domain lists', async () => {
    const bogus = { type: 'web_browse_20990101', name: 'web_browse' } as unknown as Anthropic.Messages.ToolUnion;
    // mutation: a fake that takes any typed tool passes this
    expect(await errorOf(followUp([{ type: 'text', text: 'hi' }], [bogus]))).toMatch(/tools\.0: Input tag 'web_browse_20990101'/);
    const both = { ...TOOL, allowed_domains: ['a.org'], blocked_domains: ['b.org'] };
    expect(await errorOf(followUp([{ type: 'text', text: 'hi' }], [both]))).toMatch(/Cannot specify both allowed_domains and blocked_domains/);
  });

  it('does not search when the request offers no search tool', async () => {
    server.enqueue({ search: { query: 'x' }, text: 'plain' });
    const msg = await anthropic.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'q' }] });
    // mutation: searching whatever the request offers fails this
    expect(msg.content.map((b) => b.type)).toEqual(['text']);
  });
});

describe('a paused turn at the fake Anthropic API (pause_turn)', () => {
  const ask: MessageParam = { role: 'user', content: 'is node 24 lts?' };
  /** A searching reply the API pauses, streamed, as the SDK's accumulator assembles it. */
  async function paused(thinking?: Anthropic.Messages.ThinkingConfigParam): Promise<ContentBlockParam[]> {
    server.enqueue({ search: { query: 'node 24 lts' }, text: 'Let me look that up.', pause: true });
    const msg = await anthropic.messages
      .stream({ model: MODEL, max_tokens: 2_000, tools: [TOOL], messages: [ask], ...(thinking ? { thinking } : {}) })
      .finalMessage();
    expect(msg.stop_reason).toBe('pause_turn');
    return msg.content as unknown as ContentBlockParam[];
  }
  const goOn = (assistant: ContentBlockParam[], after: MessageParam[] = [], thinking?: Anthropic.Messages.ThinkingConfigParam) =>
    anthropic.messages.create({
      model: MODEL,
      max_tokens: 2_000,
      tools: [TOOL],
      messages: [ask, { role: 'assistant', content: assistant }, ...after],
      ...(thinking ? { thinking } : {}),
    });

  it('pauses with the search call open, and the reply sent back as-is gets the rest: the result, then the cited text', async () => {
    const content = await paused();
    // mutation: a paused reply that carries the result (or puts the call before the text) fails this
    expect(content.map((b) => b.type)).toEqual(['text', 'server_tool_use']);
    server.enqueue({ text: 'Node 24 is LTS.' });
    const rest = await goOn(content);
    // mutation: a continuation that does not run the open search first fails these
    expect(rest.content.map((b) => b.type)).toEqual(['web_search_tool_result', 'text']);
    expect(rest.content[0]).toMatchObject({ tool_use_id: (content[1] as { id: string }).id });
    expect(rest.content[1]).toMatchObject({ citations: [{ url: DEFAULT_SEARCH_RESULTS[0]!.url }] });
    expect(rest.stop_reason).toBe('end_turn');
    // the whole turn, paused reply and continuation as one assistant message, goes back accepted
    server.enqueue({ text: 'welcome' });
    await goOn([...content, ...(rest.content as unknown as ContentBlockParam[])], [{ role: 'user', content: 'thanks' }]);
    const view = server.requests.at(-1)!.view!;
    expect(view.messages[1]!.blocks.map((b) => b.type)).toEqual(['text', 'web_search', 'text']);
  });

  it('refuses the paused reply continued after a user message, altered, or without its thinking', async () => {
    const content = await paused();
    // mutation: a fake that takes an open server_tool_use anywhere passes this
    expect(await errorOf(goOn(content, [{ role: 'user', content: 'go on' }]))).toMatch(
      /^400 .*server_tool_use block with id srvtoolu_\w+ was found without a corresponding web_search_tool_result block/,
    );
    const altered = [{ type: 'text' as const, text: 'Let me look that up, please.' }, content[1]!];
    // mutation: a fake that does not remember what it paused passes this
    expect(await errorOf(goOn(altered))).toMatch(/^400 .*does not match the paused response/);
    const thinking = { type: 'enabled' as const, budget_tokens: 1_024 };
    const thought = await paused(thinking);
    expect(thought[0]!.type).toBe('thinking');
    // mutation: a fake without the final-assistant thinking rule passes this
    expect(await errorOf(goOn(thought.slice(1), [], thinking))).toMatch(/a final `assistant` message must start with a thinking block/);
    server.enqueue({ text: 'Node 24 is LTS.' });
    const rest = await goOn(thought, [], thinking);
    // a continuation goes on from the paused reply's thinking: it does not open with thinking of its own
    expect(rest.content.map((b) => b.type)).toEqual(['web_search_tool_result', 'text']);
  });
});

describe('web search at the fake Responses API', () => {
  const ask = async () => {
    server.enqueue({ search: { query: 'node 24 lts' }, text: 'Node 24 is LTS.' });
    const stream = await openai.responses.create({
      model: 'gpt-4o',
      store: false,
      stream: true,
      include: ['web_search_call.action.sources'],
      tools: [{ type: 'web_search' }],
      input: 'is node 24 lts?',
    });
    const types: string[] = [];
    let done: OpenAI.Responses.Response | undefined;
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === 'response.completed') done = ev.response;
    }
    return { types, output: done!.output };
  };
  const back = (items: ResponseInputItem[], tools: OpenAI.Responses.Tool[] = [{ type: 'web_search' }]) =>
    openai.responses.create({
      model: 'gpt-4o',
      store: false,
      tools,
      input: [{ role: 'user', content: 'is node 24 lts?' }, ...items, { role: 'user', content: 'thanks' }],
    });

  it('streams the search events and a web_search_call with its sources, cited text, and takes the call back verbatim', async () => {
    const { types, output } = await ask();
    // mutation: frames without the web_search_call events fail this
    expect(types).toEqual(
      expect.arrayContaining(['response.web_search_call.searching', 'response.web_search_call.completed', 'response.output_text.annotation.added']),
    );
    const call = output.find((o) => o.type === 'web_search_call')!;
    expect(call).toMatchObject({
      status: 'completed',
      action: { type: 'search', query: 'node 24 lts', sources: [{ url: DEFAULT_SEARCH_RESULTS[0]!.url }, { url: DEFAULT_SEARCH_RESULTS[1]!.url }] },
    });
    const msg = output.find((o) => o.type === 'message')!;
    expect(JSON.stringify(msg)).toContain('"type":"url_citation"');
    server.enqueue({ text: 'welcome' });
    await back([call as ResponseInputItem, { role: 'assistant', content: 'Node 24 is LTS.' }]);
    expect(server.requests.at(-1)!.view!.messages[1]!.blocks[0]).toMatchObject({ type: 'web_search', provider: 'openai', query: 'node 24 lts' });
  });

  it('refuses an altered web_search_call and an unknown tool type', async () => {
    const { output } = await ask();
    const call = output.find((o) => o.type === 'web_search_call') as OpenAI.Responses.ResponseFunctionWebSearch;
    const altered = { ...call, action: { type: 'search' as const, query: 'something else' } };
    // mutation: a fake that takes any web_search_call passes this
    expect(await errorOf(back([altered]))).toMatch(/Item with id 'ws_.*' not found/);
    const bogus = { type: 'web_browse' } as unknown as OpenAI.Responses.Tool;
    expect(await errorOf(back([], [bogus]))).toMatch(/Invalid value for 'tools\[0\]\.type'/);
  });
});
