import { describe, expect, it } from 'vitest';
import type { Block, WebSearchBlock } from '../../src/llm/messages.js';
import { DEFAULT_SEARCH_RESULTS } from '../fake-server/websearch.js';
import { runAgent, useFakeServer, workspace, type ProviderKind } from './inprocess.js';
import { describeFor } from './regime.js';

// Web search through the provider, end to end: the built CLI against the fake, which runs the
// search server-side as the APIs do (Anthropic server_tool_use + web_search_tool_result + cited
// text; OpenAI Responses web_search_call + url_citation) and refuses a conversation that carries
// them back dropped or altered (results and citations are sealed: only what it issued reads back).

const server = useFakeServer();

const setups: Array<{ name: string; provider: ProviderKind; rc: Record<string, unknown>; model?: string; tool: Record<string, unknown> }> = [
  {
    name: 'Anthropic',
    provider: 'anthropic',
    rc: { webSearch: { enabled: true, maxUses: 3, allowedDomains: ['docs.example.org', 'blog.example.org'] } },
    tool: { type: 'web_search_20250305', name: 'web_search', max_uses: 3, allowed_domains: ['docs.example.org', 'blog.example.org'] },
  },
  {
    name: 'OpenAI Responses',
    provider: 'openai',
    rc: { api: 'responses', webSearch: { enabled: true, allowedDomains: ['docs.example.org', 'blog.example.org'] } },
    tool: { type: 'web_search', filters: { allowed_domains: ['docs.example.org', 'blog.example.org'] } },
  },
  {
    name: 'OpenAI Responses, a reasoning model',
    provider: 'openai',
    model: 'gpt-5',
    rc: { api: 'responses', webSearch: { enabled: true } },
    tool: { type: 'web_search' },
  },
];

const searchesIn = (n: number): WebSearchBlock[] =>
  (server.requests[n - 1]?.view?.messages ?? []).flatMap((m) => m.blocks.filter((b: Block): b is WebSearchBlock => b.type === 'web_search'));

for (const { name, provider, rc, model, tool } of setups) {
  describeFor(provider)(`web search ('${name}')`, () => {
    const modelArgs = model ? ['--model', model] : [];
    it('offers the tool, prints the cited answer, and carries the search back in the loop and after --continue', async () => {
      const ws = workspace(rc);
      server.enqueue(
        { search: { query: 'vitest 4 release notes' }, text: 'Vitest 4 is out.', toolCalls: [{ name: 'Glob', input: { pattern: '*.md' } }] },
        { text: 'Nothing local mentions it.' },
      );
      const r = await runAgent(['-p', 'what is new in vitest?', '--output-format', 'stream-json', '--verbose', ...modelArgs], { ws, server, provider });
      expect(r.code, r.stderr).toBe(0);
      // mutation: leaving the tool out of the request (or the settings off it) fails this
      expect(server.requests[0]!.view!.webSearchTool).toEqual(tool);
      expect(r.stdout).toContain('Vitest 4 is out.');
      // the stream shows the search as Claude Code's does: the call and the results' titles and URLs
      expect(r.stdout).toContain('"type":"server_tool_use"');
      expect(r.stdout).toContain(DEFAULT_SEARCH_RESULTS[0]!.url);
      // mutation: dropping the search from the history (or altering its blocks: the fake refuses them) fails these
      expect(server.requests[1]!.response?.status).toBe(200);
      const [carried] = searchesIn(2);
      expect(carried).toMatchObject({ provider, query: 'vitest 4 release notes' });
      expect(carried!.results.map((x) => x.url)).toEqual(DEFAULT_SEARCH_RESULTS.map((x) => x.url));
      if (provider === 'anthropic') {
        // mutation: sending the text without its citations fails this
        const cited = server.requests[1]!.view!.messages.flatMap((m) => m.blocks).find((b) => b.type === 'text' && b.citations);
        expect(cited).toMatchObject({ text: 'Vitest 4 is out.', citations: [{ url: DEFAULT_SEARCH_RESULTS[0]!.url }] });
      }

      server.enqueue({ text: 'Still 4.' });
      const again = await runAgent(['-p', 'and now?', '--continue', ...modelArgs], { ws, server, provider });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain('Still 4.');
      // mutation: a codec that stores no web_search block (or alters its provider blocks) fails these
      expect(searchesIn(3)).toEqual(searchesIn(2));
      expect(server.requests[2]!.response?.status).toBe(200);
    });

    it('sends no search tool when the switch is off', async () => {
      const { webSearch: _off, ...plain } = rc;
      const ws = workspace(plain);
      server.enqueue({ search: { query: 'anything' }, text: 'From memory.' });
      const r = await runAgent(['-p', 'what is new in vitest?', ...modelArgs], { ws, server, provider });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('From memory.');
      // mutation: offering the tool by default fails this
      expect(server.requests[0]!.view!.webSearchTool).toBeUndefined();
      expect(JSON.stringify(server.requests[0]!.body)).not.toContain('web_search');
    });
  });
}

describe('web search (Anthropic): a turn the API pauses', () => {
  type WireBlock = { type: string; [k: string]: unknown };
  const wireMessages = (n: number) => (server.requests[n]!.body as { messages: Array<{ role: string; content: WireBlock[] }> }).messages;
  const bare = (b: WireBlock): WireBlock => {
    const { cache_control: _c, ...rest } = b;
    return rest;
  };

  it('continues the paused turn with the paused reply last, as it came, prints both parts, and --continue replays the whole turn', async () => {
    const ws = workspace(setups[0]!.rc);
    server.enqueue({ search: { query: 'vitest 4 release notes' }, text: 'Let me look that up.', pause: true }, { text: 'Vitest 4 is out.' });
    const r = await runAgent(['-p', 'what is new in vitest?'], { ws, server, provider: 'anthropic' });
    expect(r.code, r.stderr).toBe(0);
    // mutation: ending the turn at pause_turn (the old 'other') fails these: one request, the answer cut off
    expect(server.requests).toHaveLength(2);
    // both parts, each a paragraph (mutation: joining the two replies' text without a break fails this)
    expect(r.stdout).toContain('Let me look that up.\n\nVitest 4 is out.');
    expect(r.stdout).not.toMatch(/stopped|paused/i);
    // the continuation request ends with the paused reply verbatim: no user message after it, the search call still open
    const sent = wireMessages(1);
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant']);
    const paused = sent[1]!.content.map(bare);
    const thought = paused[0]?.type === 'thinking' ? [paused[0]] : [];
    // mutation: dropping the open server_tool_use, or adding anything to the paused reply, fails this (the fake also refuses it altered)
    expect(paused).toEqual([
      ...thought,
      { type: 'text', text: 'Let me look that up.' },
      { type: 'server_tool_use', id: 'srvtoolu_fake_1', name: 'web_search', input: { query: 'vitest 4 release notes' } },
    ]);
    expect(server.requests[1]!.response?.status).toBe(200);

    server.enqueue({ text: 'Still 4.' });
    const again = await runAgent(['-p', 'and now?', '--continue'], { ws, server, provider: 'anthropic' });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Still 4.');
    // mutation: storing the continuation's result without its query, or sending the two replies apart, fails these
    expect(server.requests[2]!.response?.status).toBe(200);
    const replayed = wireMessages(2);
    expect(replayed.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(replayed[1]!.content.map((b) => b.type)).toEqual([...thought.map(() => 'thinking'), 'text', 'server_tool_use', 'web_search_tool_result', 'text']);
    expect(searchesIn(3)).toEqual([expect.objectContaining({ provider: 'anthropic', query: 'vitest 4 release notes' })]);
  });
});

describe('web search settings', () => {
  it('on Chat Completions the switch says it does nothing there, naming the field', async () => {
    const ws = workspace({ webSearch: { enabled: true } });
    server.enqueue({ text: 'ok' });
    const r = await runAgent(['-p', 'hi'], { ws, server, provider: 'openai' });
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests[0]!.path).toContain('/chat/completions');
    // mutation: sending a web search tool to a Chat Completions server, or saying nothing, fails these
    expect(JSON.stringify(server.requests[0]!.body)).not.toContain('web_search');
    expect(r.stderr).toContain('webSearch.enabled');
  });

  it('a bad setting is a clear error naming the field', async () => {
    const ws = workspace({ webSearch: { enabled: true, maxUses: 0 } });
    const r = await runAgent(['-p', 'hi'], { ws, server });
    // mutation: a schema that takes any number fails this
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/webSearch\.maxUses/);
    const both = workspace({ webSearch: { allowedDomains: ['a.org'], blockedDomains: ['b.org'] } });
    const r2 = await runAgent(['-p', 'hi'], { ws: both, server });
    expect(r2.code).not.toBe(0);
    expect(r2.stderr).toMatch(/webSearch.*allowedDomains or blockedDomains/);
  });
});
