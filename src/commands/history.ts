// /history: the person's search of what the session archived (the Recall tool's scope), a page
// at a time, and one archived item opened whole.
import type { CommandOutput, HistoryPage } from '../protocol/views.js';
import type { Session } from '../session/session.js';

const say = (t: string): CommandOutput => ({ kind: 'text', text: t });

/** /history <words> [page N] searches the archive; /history open <id> shows one item whole. A refusal is an Error the registry shows as the command's message. */
export async function historyCommand(session: Session, args: string): Promise<CommandOutput> {
  const open = /^open\s+(\S+)/.exec(args.trim());
  if (open) {
    const item = session.recallSource().get(open[1]!);
    if (!item) throw new Error(`nothing archived has the id ${open[1]}`);
    return say(`${item.label} (${item.id})\n\n${item.text}`);
  }
  const pageMatch = /\s+page\s+(\d+)\s*$/i.exec(args);
  const page = pageMatch ? Math.max(1, Number(pageMatch[1])) : 1;
  const query = (pageMatch ? args.slice(0, pageMatch.index) : args).trim();
  if (!query) throw new Error('usage: /history <words to search> [page N], or /history open <id>');
  const result = historyPage(session, query, page);
  if (result.hits.length === 0) return say(page === 1 ? `Nothing archived matches "${query}".` : `No more results for "${query}".`);
  return { kind: 'history', result };
}

const HISTORY_PAGE = 10;

/** One page of the session's archive search (the Recall tool's scope), for /history. */
export function historyPage(session: Session, query: string, page: number): HistoryPage {
  const hits = session.recallSource().search(query, { limit: HISTORY_PAGE + 1, offset: (page - 1) * HISTORY_PAGE });
  return {
    query,
    page,
    pageSize: HISTORY_PAGE,
    hits: hits.slice(0, HISTORY_PAGE).map(({ id, label, snippet, createdAt }) => ({ id, label, snippet, createdAt })),
    hasMore: hits.length > HISTORY_PAGE,
  };
}
