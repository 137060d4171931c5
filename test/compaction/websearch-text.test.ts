import { describe, expect, it } from 'vitest';
import { DEFAULT_RENDER, renderTranscript } from '../../src/compaction/transcript.js';
import { loadTokenizer, TokenCounter } from '../../src/compaction/tokens.js';
import type { Message, WebSearchBlock } from '../../src/llm/messages.js';
import { messageText } from '../../src/store/archive-text.js';
import { decodeMessage, encodeMessage, type MessageRow } from '../../src/store/codec.js';
import { countBlock } from '../fake-server/tokens.js';
import { anthropicSearchContent } from '../fake-server/websearch.js';

// A provider's web search outside a request: the summarizer and the archive read it as
// `[web search: query → N results: titles (URLs)]`, never its encrypted content; the gauge counts
// it as the fake does; the store keeps its provider blocks and the text's citations byte for byte.

const content = anthropicSearchContent({ query: 'vitest 4 release' }, 'srvtoolu_1');
const search: WebSearchBlock = {
  type: 'web_search',
  provider: 'anthropic',
  id: 'srvtoolu_1',
  query: 'vitest 4 release',
  results: [
    { url: 'https://docs.example.org/release-notes', title: 'Release notes' },
    { url: 'https://blog.example.org/whats-new', title: "What's new" },
  ],
  wire: [content.call, content.result],
};
const reply: Message = {
  id: 'm_1',
  role: 'assistant',
  kind: 'normal',
  createdAt: 1,
  blocks: [search, { type: 'text', text: 'Vitest 4 is out.', citations: [{ url: search.results[0]!.url, title: 'Release notes', wire: content.citation! }] }],
};
const LABEL =
  "[web search: vitest 4 release → 2 results: Release notes (https://docs.example.org/release-notes); What's new (https://blog.example.org/whats-new)]";

describe('a web search in text views', () => {
  it('the summarizer reads the query, count, titles and URLs, not the encrypted content', () => {
    const [text] = renderTranscript([reply], DEFAULT_RENDER);
    // mutation: leaving searches out of the transcript (as thinking is) or printing their wire fails these
    expect(text).toContain(LABEL);
    expect(text).not.toContain('EqF');
  });

  it('the archive (Recall) keeps the titles and URLs', () => {
    // mutation: an archive text without searches fails this
    expect(messageText(reply, new Map())).toContain(LABEL);
  });

  it('the gauge counts it as the fake provider does', async () => {
    await loadTokenizer();
    // mutation: counting only the query (or nothing) in either counter fails this
    expect(new TokenCounter().countBlock(search)).toBe(countBlock(search));
    expect(countBlock(search)).toBeGreaterThan(50);
  });

  it('the store keeps the provider blocks and the citations unchanged', () => {
    const p = encodeMessage(reply, null);
    const back = decodeMessage({ ...p, role: 'assistant', kind: 'normal' } as MessageRow);
    // mutation: a codec that drops citations or rebuilds the wire fails this
    expect(back.blocks).toEqual(reply.blocks);
  });
});
