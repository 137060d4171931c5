import type { Store } from '../store/index.js';
import type { RecallSource } from '../tools/types.js';

/** The archive the Recall tool and /history search: this session's, or every session's when `crossSession` says so. */
export function archiveRecall(store: Store, sessionId: string, crossSession: () => boolean): RecallSource {
  const scope = (): { sessionId?: string } => (crossSession() ? {} : { sessionId });
  return {
    search: (query, opts) =>
      store.searchArchive(query, { ...scope(), limit: opts.limit, offset: opts.offset, archivedOnly: true }).map((h) => ({
        id: h.id,
        label: h.label,
        snippet: h.snippet,
        sessionId: h.sessionId,
        createdAt: h.createdAt,
      })),
    get: (id) => {
      const found = store.getArchived(id, scope());
      return found ? { id: found.id, label: found.label, text: found.text } : undefined;
    },
  };
}
