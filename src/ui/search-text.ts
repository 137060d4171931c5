// The rows of a provider's web search: the search (query, result count, then the results'
// titles and URLs, dimmed, as a WebFetch row shows its fetch) and the numbered sources the
// answer cited, under it. Built from the assistant message, live and on resume alike.
import { searchParts, type Message, type WebSearchResult } from '../llm/messages.js';
import { plural } from '../tools/format.js';
import { oneLine, sanitize } from './sanitize.js';
import { block, fit, indented, paint } from './text-layout.js';
import type { Theme } from './theme.js';

export type SearchItem =
  | { kind: 'web_search'; id: string; query: string; results: WebSearchResult[]; error?: string }
  | { kind: 'sources'; id: string; sources: WebSearchResult[] };

/** Results a search row lists; the rest are counted. */
const SHOWN_RESULTS = 5;

/** A message's searches, then the sources its text cited (each URL once, in order of first citation). */
export function searchItems(m: Message, itemId: () => string): SearchItem[] {
  const items: SearchItem[] = [];
  // a paused turn's search shows once, with its results, from the continuation's block
  for (const b of m.blocks)
    if (b.type === 'web_search' && searchParts(b) !== 'call')
      items.push({ kind: 'web_search', id: itemId(), query: b.query, results: b.results, ...(b.error !== undefined ? { error: b.error } : {}) });
  const seen = new Map<string, WebSearchResult>();
  for (const b of m.blocks) if (b.type === 'text') for (const c of b.citations ?? []) if (!seen.has(c.url)) seen.set(c.url, { url: c.url, title: c.title });
  if (seen.size > 0) items.push({ kind: 'sources', id: itemId(), sources: [...seen.values()] });
  return items;
}

const entry = (r: WebSearchResult): string => sanitize(r.title && r.title !== r.url ? `${r.title} — ${r.url}` : r.url);

export function searchLines(item: SearchItem, columns: number, theme: Theme): string[] {
  const dim = { color: theme.muted, dim: true };
  if (item.kind === 'sources')
    return [
      paint('Sources', { color: theme.muted }),
      ...indented(
        item.sources.flatMap((s, i) => block(`${i + 1}. ${entry(s)}`, columns - 2, dim, 'truncate')),
        2,
      ),
    ];
  // a tool row's header (item-text.ts toolHeaderLine): icon, name, the query
  const icon = item.error !== undefined ? paint('✗', { color: theme.error }) : paint('✓', { color: theme.success });
  const header = fit(`${icon} ${paint('Web search', { bold: true, color: theme.tool })} "${oneLine(item.query)}"`, columns, 'truncate')[0] ?? '';
  const count = item.error !== undefined ? `failed: ${item.error}` : plural(item.results.length, 'result');
  const shown = item.results.slice(0, SHOWN_RESULTS).flatMap((r) => block(entry(r), columns - 4, dim, 'truncate'));
  const more = item.results.length - SHOWN_RESULTS;
  return [
    header,
    `  ${paint('⎿ ', { color: theme.muted })}${paint(count, item.error !== undefined ? { color: theme.error } : dim)}`,
    ...indented([...shown, ...(more > 0 ? [paint(`(+${more} more)`, dim)] : [])], 4),
  ];
}
