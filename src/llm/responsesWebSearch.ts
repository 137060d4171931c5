import type { ResponseFunctionWebSearch, ResponseOutputText, WebSearchTool } from 'openai/resources/responses/responses';
import type { Block, Citation, WebSearchBlock } from './messages.js';
import type { WebSearchRequest } from './provider.js';

// OpenAI Responses' web_search: the tool as requests offer it, a web_search_call output item as a
// neutral block (the item kept verbatim, carried back statelessly as reasoning items are), and
// output_text url_citation annotations as citations.

/** The web_search tool of a request's settings (OpenAI filters by allowed domains only; max uses and blocked domains are Anthropic's). */
export function responsesWebSearchTool(s: WebSearchRequest): WebSearchTool {
  return { type: 'web_search', ...(s.allowedDomains && s.allowedDomains.length > 0 ? { filters: { allowed_domains: s.allowedDomains } } : {}) };
}

/** What a call looked for: the query of a search, the page it opened, the pattern it found in a page. */
function queryOf(a: ResponseFunctionWebSearch['action'] | undefined): string {
  if (!a) return '';
  if (a.type === 'search') return a.query ?? a.queries?.join(' · ') ?? '';
  if (a.type === 'open_page') return `open ${a.url ?? ''}`.trim();
  return `find "${a.pattern}" in ${a.url}`;
}

export function responsesSearchBlock(item: ResponseFunctionWebSearch): WebSearchBlock {
  const sources = item.action?.type === 'search' ? (item.action.sources ?? []) : [];
  return {
    type: 'web_search',
    provider: 'openai',
    id: item.id,
    query: queryOf(item.action),
    results: sources.map((s) => ({ url: s.url, title: '' })),
    ...(item.status === 'failed' ? { error: 'failed' } : {}),
    wire: [{ ...item } as unknown as Record<string, unknown>],
  };
}

export const responsesCitations = (annotations: ResponseOutputText['annotations']): Citation[] =>
  annotations.flatMap((a) => (a.type === 'url_citation' ? [{ url: a.url, title: a.title || a.url, wire: { ...a } as Record<string, unknown> }] : []));

/** Sources carry URLs only: their titles come from the reply's citations of the same URL. */
export function withCitedTitles(blocks: Block[]): Block[] {
  const titles = new Map<string, string>();
  for (const b of blocks) if (b.type === 'text') for (const c of b.citations ?? []) titles.set(c.url, c.title);
  if (titles.size === 0) return blocks;
  return blocks.map((b) =>
    b.type === 'web_search' && b.provider === 'openai'
      ? { ...b, results: b.results.map((r) => ({ url: r.url, title: r.title || titles.get(r.url) || '' })) }
      : b,
  );
}
