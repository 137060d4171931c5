// The edit tracker after a resume, a --continue or a fork: rebuilt from the file states that
// the tool calls still visible in the history recorded (a read whose result was cleared or
// compacted away does not count: the model no longer has that content, so it reads again).
import type { Message } from '../llm/messages.js';
import { debug } from '../log.js';
import type { Store } from '../store/index.js';
import type { FileTracker, ReadState } from '../tools/fileTracker.js';

/** Ids of the tool calls whose results are in view, intact and not errors. */
export function visibleCallIds(history: readonly Message[]): string[] {
  const ids: string[] = [];
  for (const m of history) {
    for (const b of m.blocks) if (b.type === 'tool_result' && !b.isError && !b.cleared) ids.push(b.toolUseId);
  }
  return ids;
}

/** Records into the tracker what those calls saw, oldest first (a later state of a file wins). */
export function rebuildTracker(store: Store, sessionId: string, history: readonly Message[], files: FileTracker): number {
  const ids = visibleCallIds(history);
  if (ids.length === 0) return 0;
  try {
    const reads = store.fileReads.byCalls(sessionId, ids);
    for (const r of reads) files.restore(r);
    return reads.length;
  } catch (e) {
    debug(`edit tracker not rebuilt: ${e instanceof Error ? e.message : String(e)}`);
    return 0;
  }
}

/** The persist hook of a session's tracker: each tool call's file state goes to the store. */
export function persistReads(store: Store, sessionId: () => string): (toolUseId: string, r: ReadState) => void {
  return (toolUseId, r) => {
    try {
      if (!store.readonly) store.fileReads.save(sessionId(), { toolUseId, ...r });
    } catch (e) {
      debug(`file read not recorded: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
}
