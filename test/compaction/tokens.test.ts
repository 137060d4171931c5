import { describe, expect, it, vi } from 'vitest';
import { loadTokenizer, MESSAGE_OVERHEAD, TokenCounter, tokenizerLoaded } from '../../src/compaction/tokens.js';
import type { Message } from '../../src/llm/messages.js';
import type { ToolSpec } from '../../src/llm/provider.js';
import { assistant, user } from './helpers.js';
import { UNKNOWN_IMAGE_TOKENS } from '../../src/media/limits.js';
import { makeImage } from '../support/images.js';

// Fresh modules: it counts on the tokenizer not being loaded yet (vitest.config.ts).

describe('tokenizer loading', () => {
  // runs first in this file: the module is fresh (the file runs isolated, see above)
  it('refuses to count before loadTokenizer, then counts with o200k', async () => {
    expect(tokenizerLoaded()).toBe(false);
    expect(() => new TokenCounter().countText('hello')).toThrow(/loadTokenizer/);
    await loadTokenizer();
    expect(tokenizerLoaded()).toBe(true);
    const c = new TokenCounter();
    expect(c.countText('hello world')).toBe(2);
    expect(c.countText('')).toBe(0);
  });

  it('counts special-token text as plain text instead of throwing', async () => {
    await loadTokenizer();
    const c = new TokenCounter();
    expect(c.countText('a <|endoftext|> b')).toBeGreaterThan(3);
  });
});

describe('the counts shared by every counter of the process', () => {
  it('counts a system prompt once for all counters, and forgets them all when a 257th text comes', async () => {
    await loadTokenizer();
    /** Whether a fresh counter had to tokenize `text` (it was not among the shared counts). */
    const misses = (text: string): boolean => {
      const c = new TokenCounter();
      const counted = vi.spyOn(c, 'countText');
      c.countSystem(text);
      return counted.mock.calls.length > 0;
    };
    const marker = 'the marker system prompt';
    expect(misses(marker)).toBe(true);
    // mutation: the shared count not kept: every counter tokenizes the prompt again
    expect(misses(marker)).toBe(false);
    // new texts until the shared counts are cleared: the marker, counted again, is then their second
    let n = 0;
    while (!misses(marker)) {
      misses(`filler ${n++}`);
      if (n > 600) throw new Error('the shared counts were never cleared');
    }
    for (let i = 0; i < 254; i++) misses(`more ${i}`);
    // 256 texts kept: the marker is still known; the next new text clears them (mutation: 257 keeps it)
    expect(misses(marker)).toBe(false);
    misses('one more');
    expect(misses(marker)).toBe(true);
  });
});

describe('TokenCounter', () => {
  const spy = (): { calls: string[]; counter: TokenCounter } => {
    const calls: string[] = [];
    const counter = new TokenCounter((t) => {
      calls.push(t);
      return t.length;
    });
    return { calls, counter };
  };

  it('memoizes per message and per block object', () => {
    const { calls, counter } = spy();
    const m = user('abcdef');
    expect(counter.countMessage(m)).toBe(6 + MESSAGE_OVERHEAD);
    expect(counter.countMessage(m)).toBe(6 + MESSAGE_OVERHEAD);
    expect(calls).toEqual(['abcdef']);
    // a replaced message (micro compaction) tokenizes only its new blocks
    const replaced: Message = { ...m, blocks: [...m.blocks, { type: 'text', text: 'xyz' }] };
    expect(counter.countMessage(replaced)).toBe(9 + MESSAGE_OVERHEAD);
    expect(calls).toEqual(['abcdef', 'xyz']);
    counter.countMessage({ ...m, blocks: [{ type: 'text', text: 'abcdef' }] });
    expect(calls).toEqual(['abcdef', 'xyz', 'abcdef']);
  });

  it('counts an unreadable image as the most a fitted image costs, never by its base64 length', () => {
    const { counter } = spy();
    const img: Message = {
      id: 'i',
      role: 'user',
      kind: 'normal',
      createdAt: 0,
      blocks: [{ type: 'image', mediaType: 'image/png', data: 'A'.repeat(2_000_000) }],
    };
    expect(counter.countMessage(img)).toBe(UNKNOWN_IMAGE_TOKENS + MESSAGE_OVERHEAD);
  });

  // mutation: a fixed cost per image (the old 1,600) fails this: a 300×150 PNG is 60 tokens, in a tool result too
  it("counts an image by its pixels (Anthropic's w×h/750), in a message and in a tool result", async () => {
    const { counter } = spy();
    const data = (await makeImage(300, 150)).toString('base64');
    const msg: Message = { id: 'i', role: 'user', kind: 'normal', createdAt: 0, blocks: [{ type: 'image', mediaType: 'image/png', data }] };
    expect(counter.countMessage(msg)).toBe(60 + MESSAGE_OVERHEAD);
    const result = counter.countBlock({
      type: 'tool_result',
      toolUseId: 't',
      content: '',
      isError: false,
      images: [{ type: 'image', mediaType: 'image/png', data }],
    });
    expect(result).toBe(counter.countBlock({ type: 'tool_result', toolUseId: 't', content: '', isError: false }) + 60);
  });

  it('counts tool calls with their input and tool results with their content', () => {
    const { counter } = spy();
    const small = counter.countMessage(assistant('', [{ id: 't', name: 'Bash', input: { command: 'ls' } }]));
    const big = counter.countMessage(assistant('', [{ id: 't', name: 'Bash', input: { command: 'ls -la /a/very/long/path/indeed' } }]));
    expect(big - small).toBe('ls -la /a/very/long/path/indeed'.length - 'ls'.length);
  });

  it('counts tool schemas (memoized per spec) and the system prompt', () => {
    const { calls, counter } = spy();
    const spec: ToolSpec = { name: 'Grep', description: 'search files', inputSchema: { type: 'object', properties: { pattern: { type: 'string' } } } };
    const n = counter.countToolSpecs([spec]);
    expect(n).toBeGreaterThan('search files'.length);
    const before = calls.length;
    expect(counter.countToolSpecs([spec, spec])).toBe(2 * n);
    expect(calls.length).toBe(before);
    expect(counter.countSystem('you are an agent')).toBe(16);
    counter.countSystem('you are an agent');
    expect(calls.filter((c) => c === 'you are an agent')).toHaveLength(1);
  });
});
