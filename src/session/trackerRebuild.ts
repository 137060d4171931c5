// The edit tracker after a resume, a --continue or a fork: rebuilt from the file states that
// the tool calls still visible in the history recorded (a read whose result was cleared or
// compacted away does not count: the model no longer has that content, so it reads again).
import type { Message } from '../llm/messages.js';
import { debug } from '../log.js';
import type { Store } from '../store/index.js';
import { isRestoreMark, type FileTracker, type PersistRead, type ReadState } from '../tools/fileTracker.js';

/** Ids of the tool calls whose results are in view, intact and not errors, and of the prompts in view that @attached files. */
export function visibleCallIds(history: readonly Message[]): string[] {
  const ids: string[] = [];
  for (const m of history) {
    if (m.role === 'user' && m.blocks.some((b) => b.type === 'text' && b.origin?.kind === 'attachment')) ids.push(m.id);
    for (const b of m.blocks) if (b.type === 'tool_result' && !b.isError && !b.cleared) ids.push(b.toolUseId);
  }
  return ids;
}

/**
 * Records into the tracker what those calls saw, and the marks of code rewinds (the file was put
 * back since), oldest first: a later state of a file wins.
 */
export function rebuildTracker(store: Store, sessionId: string, history: readonly Message[], files: FileTracker): number {
  const ids = new Set(visibleCallIds(history));
  try {
    const reads = store.fileReads.byCalls(sessionId, (id) => ids.has(id) || isRestoreMark(id));
    for (const r of reads) files.restore(r);
    return reads.length;
  } catch (e) {
    debug(`edit tracker not rebuilt: ${e instanceof Error ? e.message : String(e)}`);
    return 0;
  }
}

/**
 * The persist hook of a session's tracker: each tool call's file state goes to the store. A state
 * recorded before the session has a row (the @files of its first prompt) waits for `flush`, which
 * the log calls once the row is written (`stored`: it has one already, a resumed session).
 */
export function persistReads(store: Store, sessionId: string, stored: boolean): PersistRead & { flush: () => void } {
  const waiting: Array<{ toolUseId: string; r: ReadState }> = [];
  let hasRow = stored;
  const save = (toolUseId: string, r: ReadState): void => {
    try {
      if (!store.readonly) store.fileReads.save(sessionId, { toolUseId, ...r });
    } catch (e) {
      debug(`file read not recorded: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  return Object.assign(
    (toolUseId: string, r: ReadState): void => {
      if (hasRow) save(toolUseId, r);
      else waiting.push({ toolUseId, r });
    },
    {
      flush: () => {
        hasRow = true;
        for (const w of waiting.splice(0)) save(w.toolUseId, w.r);
      },
    },
  );
}
