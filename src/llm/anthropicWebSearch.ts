import type { ContentBlockParam, TextCitation, ToolUnion, WebSearchToolResultBlock } from '@anthropic-ai/sdk/resources/messages/messages';
import { finalToolInput } from './adapter-common.js';
import type { Citation, Message, TextBlock, WebSearchBlock } from './messages.js';
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

/** A search's part of a reply as streamed: the server_tool_use (input JSON streamed) or its result. */
export type SearchState = { kind: 'search'; call: Record<string, unknown>; json: string } | { kind: 'search_result'; result: WebSearchToolResultBlock };

/**
 * The neutral block of a search part as a reply ends. A call goes with its result; a call without
 * one is kept only when the turn paused (pause_turn: the reply goes back as-is and the continuation
 * brings the result), else dropped (a call the stream cut off cannot go back). A result without
 * its call in the reply is the continuation of a paused turn: its call is in the paused message,
 * where its query is read.
 */
export function searchOf(st: SearchState, reply: readonly { kind: string }[], paused: boolean, history: readonly Message[]): WebSearchBlock | undefined {
  const results = reply.filter((r): r is Extract<SearchState, { kind: 'search_result' }> => r.kind === 'search_result');
  if (st.kind === 'search') {
    const input = finalToolInput(st.json, true) ?? (typeof st.call.input === 'object' ? (st.call.input as Record<string, unknown>) : undefined);
    const result = results.find((r) => r.result.tool_use_id === st.call.id);
    return input && (result || paused) ? searchBlockOf({ ...st.call, input }, result?.result) : undefined;
  }
  const id = st.result.tool_use_id;
  if (reply.some((r) => r.kind === 'search' && (r as Extract<SearchState, { kind: 'search' }>).call.id === id)) return undefined;
  const call = history.flatMap((m) => m.blocks).findLast((b): b is WebSearchBlock => b.type === 'web_search' && b.id === id);
  const block = searchBlockOf({ id, input: { query: call?.query ?? '' } }, st.result);
  return { ...block, wire: block.wire.slice(1) };
}

/**
 * An assistant message's search blocks as the API takes them: each web_search_tool_result after
 * its server_tool_use. A call still waiting for its result goes only in the final message (a
 * paused turn sent back as-is: the API runs the search as it continues); elsewhere it is left
 * out, with a result whose call is missing.
 */
export function pairedSearches(content: ContentBlockParam[], final: boolean): ContentBlockParam[] {
  if (!content.some((b) => b.type === 'server_tool_use' || b.type === 'web_search_tool_result')) return content;
  const answered = new Set(content.flatMap((b) => (b.type === 'web_search_tool_result' ? [b.tool_use_id] : [])));
  const called = new Set<string>();
  return content.filter((b) => {
    if (b.type === 'server_tool_use') {
      if (!answered.has(b.id) && !final) return false;
      called.add(b.id);
    }
    return b.type !== 'web_search_tool_result' || called.has(b.tool_use_id);
  });
}
