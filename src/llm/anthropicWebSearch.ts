import type { ContentBlockParam, TextCitation, ToolUnion, WebSearchToolResultBlock } from '@anthropic-ai/sdk/resources/messages/messages';
import type { Citation, TextBlock, WebSearchBlock } from './messages.js';
import type { WebSearchRequest } from './provider.js';

// Anthropic's server-side web search: the tool as requests offer it, the blocks a reply carries
// (server_tool_use, web_search_tool_result, text with web_search_result_location citations) as
// neutral blocks, and back to the wire verbatim: the API refuses a conversation that drops or
// alters them.

/** The web_search_20250305 tool of a request's settings. */
export function anthropicWebSearchTool(s: WebSearchRequest): ToolUnion {
  return {
    type: 'web_search_20250305',
    name: 'web_search',
    ...(s.maxUses !== undefined ? { max_uses: s.maxUses } : {}),
    ...(s.allowedDomains && s.allowedDomains.length > 0 ? { allowed_domains: s.allowedDomains } : {}),
    ...(s.blockedDomains && s.blockedDomains.length > 0 ? { blocked_domains: s.blockedDomains } : {}),
  };
}

/** A text block as sent: its Anthropic citations kept on it (another provider's are left off). */
export function anthropicText(b: TextBlock): ContentBlockParam {
  const citations = (b.citations ?? []).filter((c) => c.wire.type === 'web_search_result_location').map((c) => c.wire);
  return citations.length > 0 ? ({ type: 'text', text: b.text, citations } as unknown as ContentBlockParam) : { type: 'text', text: b.text };
}

/** A search's blocks as received (Anthropic's own only). */
export const anthropicSearchBlocks = (b: WebSearchBlock): ContentBlockParam[] =>
  b.provider === 'anthropic' ? b.wire.map((w) => ({ ...w }) as unknown as ContentBlockParam) : [];

/** A text citation kept as received: web search locations only (the other kinds cite documents this program never sends). */
export function citationOf(c: TextCitation): Citation | undefined {
  if (c.type !== 'web_search_result_location') return undefined;
  return { url: c.url, title: c.title ?? c.url, wire: { ...c } };
}

/** A finished server_tool_use (its input streamed) and its result, as one neutral block. */
export function searchBlockOf(call: Record<string, unknown>, result: WebSearchToolResultBlock | undefined): WebSearchBlock {
  const input = typeof call.input === 'object' && call.input !== null ? (call.input as Record<string, unknown>) : {};
  const query = typeof input.query === 'string' ? input.query : '';
  const content = result?.content;
  const results = Array.isArray(content) ? content.map((r) => ({ url: r.url, title: r.title })) : [];
  const error = content && !Array.isArray(content) ? content.error_code : undefined;
  return {
    type: 'web_search',
    provider: 'anthropic',
    id: String(call.id),
    query,
    results,
    ...(error !== undefined ? { error } : {}),
    wire: result ? [call, { ...result } as unknown as Record<string, unknown>] : [call],
  };
}
