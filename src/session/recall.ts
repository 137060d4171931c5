import type { Store } from '../store/index.js';
import type { RecallSource } from '../tools/types.js';

/** The archive the Recall tool and /history search: this session's, or every session's when `crossSession` says so. */
export function archiveRecall(store: Store, sessionId: string, crossSession: () => boolean): RecallSource {
  // a session's archive includes what its child sessions (sub-agents) did
  const scope = (): { sessionId?: string; withChildren?: boolean } => (crossSession() ? {} : { sessionId, withChildren: true });
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
      const own = scope();
      const found =
        own.sessionId === undefined
          ? store.getArchived(id)
          : (store.getArchived(id, { sessionId }) ?? store.childSessions(sessionId).map((c) => store.getArchived(id, { sessionId: c.id })).find((f) => f !== undefined));
      return found ? { id: found.id, label: found.label, text: found.text } : undefined;
    },
  };
}
