import { createHash } from 'node:crypto';
import type { Block, Citation, WebSearchBlock } from '../../src/llm/messages.js';
import type { SearchReply } from './types.js';

// Server-side web search as the fake speaks it on both wires: the tool definitions each API
// takes, the blocks and items a searching reply carries, and the checks the APIs make when a
// conversation carries them back (Anthropic: each web_search_tool_result after its
// server_tool_use, results and citations unaltered — the fake "encrypts" them so it can tell;
// OpenAI: a web_search_call item unaltered).

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const seal = (...parts: string[]): string => createHash('sha256').update(parts.join('\u0000')).digest('base64');

export const DEFAULT_SEARCH_RESULTS = [
  { url: 'https://docs.example.org/release-notes', title: 'Release notes' },
  { url: 'https://blog.example.org/whats-new', title: "What's new" },
];

/** The encrypted page content of an Anthropic result: only the fake reads it back. */
export const sealPage = (url: string, title: string): string => `EqF${seal('page', url, title)}`;
/** The encrypted_index of an Anthropic citation. */
export const sealIndex = (url: string, cited: string): string => `Eo8${seal('index', url, cited)}`;
/** The id of an OpenAI web_search_call: binds the item's action, so an altered item is refused. */
export const sealCallId = (action: unknown): string => `ws_${createHash('sha256').update(JSON.stringify(action)).digest('hex').slice(0, 40)}`;

const resultsOf = (s: SearchReply): { url: string; title: string }[] => (s.error !== undefined ? [] : (s.results ?? DEFAULT_SEARCH_RESULTS));

// ---- Anthropic ----

/** A `tools` entry with a type: the web search tool, checked as the API does; undefined: fine. */
export function anthropicServerToolError(t: Record<string, unknown>, i: number): string | undefined {
  if (t.type !== 'web_search_20250305' && t.type !== 'web_search_20260209' && t.type !== 'web_search_20260318')
    return `tools.${i}: Input tag '${String(t.type)}' found using 'type' does not match any of the expected tags: 'custom', 'bash_20250124', 'text_editor_20250124', 'text_editor_20250429', 'text_editor_20250728', 'web_search_20250305', 'web_fetch_20250910', 'code_execution_20250825', 'memory_20250818', 'tool_search_tool_regex_20251119', 'tool_search_tool_bm25_20251119'`;
  const where = `tools.${i}.${t.type}`;
  if (t.name !== 'web_search') return `${where}.name: Input should be 'web_search'`;
  if (t.max_uses !== undefined && t.max_uses !== null && !(Number.isInteger(t.max_uses) && (t.max_uses as number) > 0))
    return `${where}.max_uses: Input should be greater than 0`;
  for (const k of ['allowed_domains', 'blocked_domains'])
    if (t[k] !== undefined && t[k] !== null && !(Array.isArray(t[k]) && (t[k] as unknown[]).every((d) => typeof d === 'string')))
      return `${where}.${k}: Input should be a valid list`;
  if (Array.isArray(t.allowed_domains) && Array.isArray(t.blocked_domains)) return `${where}: Cannot specify both allowed_domains and blocked_domains.`;
  return undefined;
}

const withoutCache = (b: Record<string, unknown>): Record<string, unknown> => {
  const { cache_control: _c, ...rest } = b;
  return rest;
};

/**
 * The search blocks of one request's messages, as the API checks them: a server_tool_use only from
 * the assistant, each web_search_tool_result after its server_tool_use in the same message, results
 * as the fake issued them, and every citation pointing at a result of a search before it.
 */
export class AnthropicSearchCheck {
  private readonly calls = new Map<string, Record<string, unknown>>();
  private readonly answered = new Set<string>();
  /** URLs of the results seen so far in the conversation. */
  private readonly urls = new Set<string>();

  /** A server_tool_use block: an error, or undefined (the block waits for its result). */
  call(b: Record<string, unknown>, role: string, where: string): string | undefined {
    if (role !== 'assistant') return `${where}: server_tool_use blocks are only allowed in assistant messages`;
    if (typeof b.id !== 'string' || !/^srvtoolu_[A-Za-z0-9_]+$/.test(b.id))
      return `${where}.server_tool_use.id: String should match pattern '^srvtoolu_[a-zA-Z0-9_]+$'`;
    if (b.name !== 'web_search') return `${where}.server_tool_use.name: Input should be 'web_search', 'web_fetch' or 'code_execution'`;
    if (!isObj(b.input) || typeof b.input.query !== 'string') return `${where}.server_tool_use.input: the web_search input needs a query`;
    this.calls.set(b.id, withoutCache(b));
    return undefined;
  }

  /** A web_search_tool_result block: the neutral block of the pair, or an error. */
  result(b: Record<string, unknown>, role: string, where: string): WebSearchBlock | string {
    if (role !== 'assistant') return `${where}: web_search_tool_result blocks are only allowed in assistant messages`;
    const id = b.tool_use_id;
    const call = typeof id === 'string' ? this.calls.get(id) : undefined;
    if (typeof id !== 'string' || !call || this.answered.has(id))
      return `${where}: web_search_tool_result block with tool_use_id ${String(id)} has no corresponding server_tool_use block before it`;
    this.answered.add(id);
    const query = String((call.input as Record<string, unknown>).query);
    if (isObj(b.content)) {
      if (b.content.type !== 'web_search_tool_result_error' || typeof b.content.error_code !== 'string')
        return `${where}.web_search_tool_result.content: Input should be a valid list or a web_search_tool_result_error`;
      return { type: 'web_search', provider: 'anthropic', id, query, results: [], error: b.content.error_code, wire: [call, withoutCache(b)] };
    }
    if (!Array.isArray(b.content)) return `${where}.web_search_tool_result.content: Field required`;
    const results: { url: string; title: string }[] = [];
    for (const [k, r] of b.content.entries()) {
      if (!isObj(r) || r.type !== 'web_search_result' || typeof r.url !== 'string' || typeof r.title !== 'string' || typeof r.encrypted_content !== 'string')
        return `${where}.web_search_tool_result.content.${k}: Input should be a valid web_search_result`;
      if (r.encrypted_content !== sealPage(r.url, r.title)) return `${where}.web_search_tool_result.content.${k}.encrypted_content: Invalid encrypted content`;
      results.push({ url: r.url, title: r.title });
      this.urls.add(r.url);
    }
    return { type: 'web_search', provider: 'anthropic', id, query, results, wire: [call, withoutCache(b)] };
  }

  /** A text block's citations: the neutral citations, or an error. */
  citations(b: Record<string, unknown>, role: string, where: string): Citation[] | string {
    if (b.citations === undefined || b.citations === null) return [];
    if (!Array.isArray(b.citations)) return `${where}.text.citations: Input should be a valid list`;
    const out: Citation[] = [];
    for (const [k, c] of b.citations.entries()) {
      const at = `${where}.text.citations.${k}`;
      if (!isObj(c) || c.type !== 'web_search_result_location')
        return `${at}: Input tag '${isObj(c) ? String(c.type) : typeof c}' found using 'type' does not match any of the expected tags: 'char_location', 'page_location', 'content_block_location', 'web_search_result_location', 'search_result_location'`;
      if (typeof c.url !== 'string' || typeof c.cited_text !== 'string' || typeof c.encrypted_index !== 'string')
        return `${at}.web_search_result_location: url, cited_text and encrypted_index are required`;
      if (role !== 'assistant' || !this.urls.has(c.url) || c.encrypted_index !== sealIndex(c.url, c.cited_text))
        return `${at}: Could not find search result for citation index`;
      out.push({ url: c.url, title: typeof c.title === 'string' ? c.title : c.url, wire: c });
    }
    return out;
  }

  /** A call not answered (yet) as a neutral block of its own: a paused turn's open search. */
  openBlock(id: string): WebSearchBlock | undefined {
    const call = this.calls.get(id);
    if (!call || this.answered.has(id)) return undefined;
    const query = String((call.input as Record<string, unknown>).query);
    return { type: 'web_search', provider: 'anthropic', id, query, results: [], wire: [call] };
  }

  /** Calls made so far, answered or not. */
  callIds(): Set<string> {
    return new Set(this.calls.keys());
  }

  /**
   * After all messages: the server_tool_use blocks never answered. Only a paused turn sent back
   * as the final assistant message (`final`: its calls) may leave one open; elsewhere it is an error.
   */
  unanswered(final: ReadonlySet<string>): { open: string[] } | { error: string } {
    const open = [...this.calls.keys()].filter((id) => !this.answered.has(id));
    const stray = open.find((id) => !final.has(id));
    if (stray !== undefined)
      return { error: `messages: server_tool_use block with id ${stray} was found without a corresponding web_search_tool_result block` };
    return { open };
  }
}

/** The content blocks of a searching reply, whole (the non-streaming body, and the frames' source). */
export function anthropicSearchContent(
  s: SearchReply,
  id: string,
): { call: Record<string, unknown>; result: Record<string, unknown>; citation?: Record<string, unknown> } {
  const results = resultsOf(s);
  const first = results[0];
  return {
    call: { type: 'server_tool_use', id, name: 'web_search', input: { query: s.query } },
    result: {
      type: 'web_search_tool_result',
      tool_use_id: id,
      content:
        s.error !== undefined
          ? { type: 'web_search_tool_result_error', error_code: s.error }
          : results.map((r) => ({
              type: 'web_search_result',
              url: r.url,
              title: r.title,
              encrypted_content: sealPage(r.url, r.title),
              page_age: 'March 3, 2026',
            })),
    },
    ...(first
      ? {
          citation: {
            type: 'web_search_result_location',
            url: first.url,
            title: first.title,
            encrypted_index: sealIndex(first.url, first.title),
            cited_text: first.title,
          },
        }
      : {}),
  };
}

// ---- OpenAI Responses ----

/** A web_search tool entry (undefined: fine). */
export function responsesServerToolError(t: Record<string, unknown>, i: number): string | undefined {
  if (t.type !== 'web_search' && t.type !== 'web_search_2025_08_26' && t.type !== 'web_search_preview') return `Invalid value for 'tools[${i}].type'.`;
  if (t.filters !== undefined && t.filters !== null) {
    const d = isObj(t.filters) ? t.filters.allowed_domains : undefined;
    if (!Array.isArray(d) || !d.every((x) => typeof x === 'string'))
      return `Invalid type for 'tools[${i}].filters.allowed_domains': expected an array of strings.`;
  }
  return undefined;
}

/** A web_search_call input item: the neutral block, or an error (an item the fake did not issue, or altered). */
export function responsesSearchItem(it: Record<string, unknown>, i: number): Block | string {
  if (typeof it.id !== 'string') return `Missing required parameter: 'input[${i}].id'.`;
  if (!isObj(it.action) || typeof it.status !== 'string') return `Missing required parameter: 'input[${i}].action'.`;
  if (it.id !== sealCallId(it.action)) return `Item with id '${it.id}' not found. Items are not persisted when \`store\` is set to false.`;
  const a = it.action;
  const sources = Array.isArray(a.sources) ? a.sources.flatMap((s) => (isObj(s) && typeof s.url === 'string' ? [{ url: s.url, title: '' }] : [])) : [];
  return { type: 'web_search', provider: 'openai', id: it.id, query: typeof a.query === 'string' ? a.query : '', results: sources, wire: [it] };
}

/** The web_search_call output item of a searching reply (sources only when the request asked for them). */
export function responsesSearchItemOf(s: SearchReply, withSources: boolean): Record<string, unknown> {
  const action = { type: 'search', query: s.query, ...(withSources ? { sources: resultsOf(s).map((r) => ({ type: 'url', url: r.url })) } : {}) };
  return { id: sealCallId(action), type: 'web_search_call', status: s.error !== undefined ? 'failed' : 'completed', action };
}

/** The url_citation annotation of a reply's text: its first result, over the whole text. */
export function responsesAnnotations(s: SearchReply, text: string): Record<string, unknown>[] {
  const first = resultsOf(s)[0];
  return first ? [{ type: 'url_citation', url: first.url, title: first.title, start_index: 0, end_index: text.length }] : [];
}
