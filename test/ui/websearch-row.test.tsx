import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import stripAnsi from 'strip-ansi';
import { ItemView } from '../../src/ui/components/ItemView.js';
import { messagesToItems } from '../../src/ui/transcript.js';
import type { Message } from '../../src/llm/messages.js';

// A provider's web search in the transcript: a row naming the query and the result count, the
// results' titles and URLs under it (dimmed, as a WebFetch row shows its fetch), and the
// sources the answer cited as a numbered list under the answer. The same items come from a
// live reply (ui-store) and a resumed one (messagesToItems).

afterEach(() => cleanup());

const results = [
  { url: 'https://docs.example.org/release-notes', title: 'Release notes' },
  { url: 'https://blog.example.org/whats-new', title: "What's new" },
];

const reply: Message = {
  id: 'm1',
  role: 'assistant',
  kind: 'normal',
  createdAt: 1,
  blocks: [
    {
      type: 'web_search',
      provider: 'anthropic',
      id: 'srvtoolu_1',
      query: 'vitest 4 release',
      results,
      wire: [{ type: 'server_tool_use' }, { type: 'web_search_tool_result' }],
    },
    {
      type: 'text',
      text: 'Vitest 4 is out.',
      citations: [
        { url: results[1]!.url, title: results[1]!.title, wire: {} },
        { url: results[1]!.url, title: results[1]!.title, wire: {} },
      ],
    },
  ],
};

const frameOf = (m: Message): string =>
  messagesToItems([m])
    .map((item) => {
      const r = render(<ItemView item={item} />);
      const f = stripAnsi(r.lastFrame() ?? '');
      r.unmount();
      return f;
    })
    .join('\n');

describe('the web search row', () => {
  it('shows the query, the result count, the titles and URLs, then the cited sources numbered', () => {
    const frame = frameOf(reply);
    // mutation: a message whose search makes no row (or a row without the query or count) fails these
    expect(frame).toContain('✓ Web search "vitest 4 release"');
    expect(frame).toContain('⎿ 2 results');
    expect(frame).toContain('Release notes — https://docs.example.org/release-notes');
    // mutation: listing each citation (not each source once) numbers the blog twice and fails this
    expect(frame).toMatch(/Sources\n\s+1\. What's new — https:\/\/blog\.example\.org\/whats-new\n?$/);
    expect(frame.indexOf('Vitest 4 is out.')).toBeLessThan(frame.indexOf('Sources'));
  });

  it('a failed search says why', () => {
    const failed: Message = {
      ...reply,
      blocks: [{ type: 'web_search', provider: 'anthropic', id: 's', query: 'q', results: [], error: 'max_uses_exceeded', wire: [] }],
    };
    // mutation: showing a failed search as "0 results" fails this
    expect(frameOf(failed)).toContain('⎿ failed: max_uses_exceeded');
  });
});
