import type { Store } from '../store/index.js';
import { redactSecrets } from '../log.js';
import { spillThreshold } from '../tools/spill.js';
import type { RecallSource, SpillSink } from '../tools/types.js';

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
          : (store.getArchived(id, { sessionId }) ??
            store
              .childSessions(sessionId)
              .map((c) => store.getArchived(id, { sessionId: c.id }))
              .find((f) => f !== undefined));
      return found ? { id: found.id, label: found.label, text: found.text, ...(found.images ? { images: found.images } : {}) } : undefined;
    },
  };
}

/** Where the loop sends tool results over the spill threshold: redacted, archived whole in the store. */
export function archiveSpill(
  store: Store,
  sessionId: () => string,
  output: () => { spillTokens: number; spillTokensByTool: Record<string, number> },
): SpillSink {
  return {
    thresholdFor: (toolName) => spillThreshold(toolName, output()),
    archive: (o) =>
      store.spilled.save(sessionId(), {
        toolUseId: o.toolUseId,
        toolName: o.toolName,
        summary: redactSecrets(o.summary),
        content: redactSecrets(o.full.text),
        isError: o.isError,
        totalChars: o.full.totalChars,
        totalLines: o.full.totalLines,
        totalBytes: o.full.totalBytes,
      }),
  };
}
