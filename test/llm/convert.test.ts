import { describe, expect, it } from 'vitest';
import { finalToolInput } from '../../src/llm/adapter-common.js';
import { mapAnthropicStop, toAnthropicMessages, toAnthropicParams } from '../../src/llm/anthropic.js';
import type { Block, Message } from '../../src/llm/messages.js';
import { mapFinishReason, tokenFieldFor, toOpenAIMessages, toOpenAIParams } from '../../src/llm/openai.js';

let n = 0;
const msg = (role: 'user' | 'assistant', blocks: Block[], kind: Message['kind'] = 'normal'): Message => ({ id: `m${++n}`, role, blocks, kind, createdAt: 0 });
const text = (t: string): Block => ({ type: 'text', text: t });
const use = (id: string, input: Record<string, unknown> = {}): Block => ({ type: 'tool_use', id, name: 'Read', input });
const result = (id: string, content: string, isError = false): Block => ({ type: 'tool_result', toolUseId: id, content, isError });

// checkpoint + pinned + user turn, then a tool round trip whose results came with a text
const history: Message[] = [
  msg('user', [text('## Checkpoint\nEarlier work summarized.')], 'checkpoint'),
  msg('user', [text('Always run tests.')]),
  msg('user', [text('Fix the bug.')]),
  msg('assistant', [text('Looking.'), use('t1', { path: 'a.ts' }), use('t2', { path: 'b.ts' })]),
  msg('user', [text('(also check c.ts)'), result('t1', 'contents of a'), result('t2', 'ENOENT', true)]),
  msg('assistant', [text('Done.')]),
  msg('user', [text('Continue from where you stopped.')], 'meta'),
];

describe('Anthropic conversion', () => {
  it('merges consecutive user messages and puts tool results first', () => {
    const out = toAnthropicMessages(history);
    expect(out.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(out[0]!.content).toEqual([
      { type: 'text', text: '## Checkpoint\nEarlier work summarized.' },
      { type: 'text', text: 'Always run tests.' },
      { type: 'text', text: 'Fix the bug.' },
    ]);
    expect(out[2]!.content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: 'contents of a' },
      { type: 'tool_result', tool_use_id: 't2', content: 'ENOENT', is_error: true },
      { type: 'text', text: '(also check c.ts)' },
    ]);
    expect(out[4]!.content).toEqual([{ type: 'text', text: 'Continue from where you stopped.' }]);
  });

  it('drops blank text, fills an emptied message, converts images', () => {
    const out = toAnthropicMessages([
      msg('user', [text('  '), { type: 'image', mediaType: 'image/png', data: 'AAAA' }, { type: 'image', mediaType: 'image/bmp', data: 'BBBB' }]),
      msg('assistant', [text('')]),
      msg('user', [result('x', '')]),
    ]);
    expect(out[0]!.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
      { type: 'text', text: '[image omitted: image/bmp is not a supported image type]' },
    ]);
    expect(out[1]!.content).toEqual([{ type: 'text', text: '(no content)' }]);
    expect(out[2]!.content).toEqual([{ type: 'tool_result', tool_use_id: 'x' }]);
  });

  it('builds the params with system, tools and max_tokens', () => {
    const p = toAnthropicParams(
      {
        model: 'claude-x',
        system: 'You are an agent.',
        messages: [msg('user', [text('hi')])],
        tools: [{ name: 'Read', description: 'reads', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }],
        maxTokens: 123,
      },
      { enabled: false, ttl: '5m', promptCacheKey: 'auto' },
    );
    expect(p).toMatchObject({ model: 'claude-x', max_tokens: 123, stream: true, system: 'You are an agent.' });
    expect(p.tools).toEqual([{ name: 'Read', description: 'reads', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }]);
    expect(toAnthropicParams({ model: 'm', system: '', messages: [msg('user', [text('x')])], tools: [], maxTokens: 1 })).not.toHaveProperty('system');
  });

  it('maps stop reasons', () => {
    expect(mapAnthropicStop('model_context_window_exceeded')).toBe('context_window');
    expect(mapAnthropicStop('max_tokens')).toBe('max_tokens');
    expect(mapAnthropicStop('refusal')).toBe('refusal');
    // mutation: mapping pause_turn to 'other' (the turn ends, the answer cut off) fails this
    expect(mapAnthropicStop('pause_turn')).toBe('pause_turn');
    expect(mapAnthropicStop(null)).toBe('other');
  });

  it("sends a paused reply's open search call only while it is the final message, and its continuation merged after it", () => {
    const call = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } };
    const res = { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] };
    const search = { type: 'web_search' as const, provider: 'anthropic' as const, id: 'srvtoolu_1', query: 'q', results: [] };
    const paused = msg('assistant', [text('Looking.'), { ...search, wire: [call] }]);
    const continued = msg('assistant', [{ ...search, wire: [res] }, text('Found it.')]);
    const ask = msg('user', [text('what?')]);
    const types = (ms: Message[]) => toAnthropicMessages(ms).map((m) => `${m.role}: ${m.content.map((b) => b.type).join(' ')}`);
    expect(types([ask, paused])).toEqual(['user: text', 'assistant: text server_tool_use']);
    // mutation: not merging consecutive assistant messages, or dropping a call whose result is in the next stored message, fails this
    expect(types([ask, paused, continued, msg('user', [text('thanks')])])).toEqual([
      'user: text',
      'assistant: text server_tool_use web_search_tool_result text',
      'user: text',
    ]);
    // the continuation never came: the open call is left out once anything follows it (the API refuses it there), and so is a result without its call
    // mutation: sending an open call outside the final message fails this
    expect(types([ask, paused, msg('user', [text('never mind')])])).toEqual(['user: text', 'assistant: text', 'user: text']);
    expect(types([ask, continued, msg('user', [text('ok')])])).toEqual(['user: text', 'assistant: text', 'user: text']);
  });
});

describe('OpenAI conversion', () => {
  it('turns tool results into tool messages, then the text as a user message; merges user messages', () => {
    const out = toOpenAIMessages('sys', history);
    expect(out).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: '## Checkpoint\nEarlier work summarized.\n\nAlways run tests.\n\nFix the bug.' },
      {
        role: 'assistant',
        content: 'Looking.',
        tool_calls: [
          { id: 't1', type: 'function', function: { name: 'Read', arguments: '{"path":"a.ts"}' } },
          { id: 't2', type: 'function', function: { name: 'Read', arguments: '{"path":"b.ts"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 't1', content: 'contents of a' },
      { role: 'tool', tool_call_id: 't2', content: 'Error: ENOENT' },
      { role: 'user', content: '(also check c.ts)' },
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'Continue from where you stopped.' },
    ]);
  });

  it('an assistant message of tool calls only has null content; images become data URLs', () => {
    const out = toOpenAIMessages('', [
      msg('user', [text('see'), { type: 'image', mediaType: 'image/png', data: 'AAAA' }]),
      msg('assistant', [use('t1')]),
      msg('user', [result('t1', 'r')]),
    ]);
    expect(out[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'see' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      ],
    });
    expect(out[1]).toMatchObject({ role: 'assistant', content: null });
    expect(out).toHaveLength(3);
  });

  it('picks max_completion_tokens for api.openai.com and for reasoning models anywhere, max_tokens elsewhere', () => {
    expect(tokenFieldFor('https://api.openai.com/v1', 'gpt-4o')).toBe('max_completion_tokens');
    expect(tokenFieldFor('http://localhost:11434/v1', 'llama3')).toBe('max_tokens');
    expect(tokenFieldFor('https://openrouter.ai/api/v1', 'gpt-4o')).toBe('max_tokens');
    // issue 30: OpenAI refuses max_tokens for these behind any gateway
    expect(tokenFieldFor('https://gateway.example/v1', 'gpt-5.4')).toBe('max_completion_tokens');
    expect(tokenFieldFor('https://gateway.example/v1', 'o3-mini')).toBe('max_completion_tokens');
    expect(
      toOpenAIParams({ model: 'gpt-5.4', system: '', messages: [msg('user', [text('x')])], tools: [], maxTokens: 5, temperature: 0 }, 'max_completion_tokens'),
    ).toMatchObject({
      reasoning_effort: 'medium',
    });
    expect(
      toOpenAIParams({ model: 'gpt-5.4', system: '', messages: [msg('user', [text('x')])], tools: [], maxTokens: 5, temperature: 0 }, 'max_completion_tokens'),
    ).not.toHaveProperty('temperature');
    const req = { model: 'gpt-x', system: '', messages: [msg('user', [text('x')])], tools: [], maxTokens: 50 };
    expect(toOpenAIParams(req, 'max_completion_tokens')).toMatchObject({ max_completion_tokens: 50, stream_options: { include_usage: true } });
    expect(toOpenAIParams(req, 'max_tokens')).not.toHaveProperty('max_completion_tokens');
    expect(toOpenAIParams(req, 'max_tokens')).not.toHaveProperty('tools');
  });

  it('maps finish reasons', () => {
    expect(mapFinishReason('stop')).toBe('end_turn');
    expect(mapFinishReason('tool_calls')).toBe('tool_use');
    expect(mapFinishReason('length')).toBe('max_tokens');
    expect(mapFinishReason('content_filter')).toBe('refusal');
    expect(mapFinishReason(null)).toBe('other');
  });
});

describe('finalToolInput', () => {
  it('keeps complete JSON, drops a possibly cut call that does not parse, empties bad JSON of a complete call', () => {
    expect(finalToolInput('{"a":1}', false)).toEqual({ a: 1 });
    expect(finalToolInput('{"a":1}', true)).toEqual({ a: 1 });
    expect(finalToolInput('{"path": "sr', true)).toBeUndefined();
    expect(finalToolInput('', true)).toBeUndefined();
    expect(finalToolInput('', false)).toEqual({});
    expect(finalToolInput('{oops}', false)).toEqual({});
    expect(finalToolInput('[1,2]', false)).toEqual({});
  });
});
