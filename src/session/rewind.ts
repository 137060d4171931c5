// /rewind: the turns a person can go back to, and putting files back as they were.
import { chmod, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isToolResultMessage, newId, textOf, type Message } from '../llm/messages.js';
import type { FileTracker } from '../tools/fileTracker.js';
import type { SessionLog } from './sessionLog.js';
import type { FileSnapshot, Store } from '../store/index.js';
import { displayPath } from '../tools/paths.js';
import type { RewindTargetView } from '../protocol/views.js';
import { archiveCause, REWIND_ID_PREFIX } from './recordIds.js';
import { rebuildTracker } from './trackerRebuild.js';
import { typedText } from './mentions.js';

export type RewindWhat = 'code' | 'conversation' | 'both';

/** One of the person's turns: a /rewind destination (1-based index, oldest first; files changed in it or later). */
export type RewindTarget = RewindTargetView;

export interface RewindResult {
  target: RewindTarget;
  files: RestoredFile[];
  /** Messages taken out of the conversation. */
  archived: number;
}

export interface RestoredFile {
  path: string;
  action: 'restored' | 'removed' | 'failed';
  error?: string;
}

const isPersonTurn = (m: Message): boolean => m.role === 'user' && m.kind === 'normal' && !m.pinned && !isToolResultMessage(m) && textOf(m).trim() !== '';

/** The person's turns of the session, oldest first, with what a rewind to each would restore. */
export function rewindTargets(store: Store, sessionId: string, visible: readonly Message[], cwd: string, stored: boolean): RewindTarget[] {
  const inView = new Set(visible.map((m) => m.id));
  const entries = stored ? store.loadTranscript(sessionId, { includeArchived: true }) : visible.map((message) => ({ message, archivedBy: null }));
  // turns an earlier rewind took out of the conversation stay listed: their code can still be restored
  const rewound = new Set(entries.filter((e) => e.archivedBy !== null && archiveCause(e.archivedBy) === 'rewind').map((e) => e.message.id));
  // a prompt taken back into the input without a reply (promptBack.ts) was never a turn
  const turns = entries.filter((e) => isPersonTurn(e.message) && !(e.archivedBy !== null && archiveCause(e.archivedBy) === 'withdrawal')).map((e) => e.message);
  const order = new Map(entries.map((e, i) => [e.message.id, i]));
  const changed = stored ? store.snapshotTurns(sessionId).map((t) => ({ at: order.get(t.turnId) ?? -1, paths: t.paths })) : [];
  return turns.map((m, i) => {
    const at = order.get(m.id) ?? 0;
    const files = new Set<string>();
    for (const c of changed) if (c.at >= at) for (const p of c.paths) files.add(displayPath(cwd, p));
    const inConversation = inView.has(m.id);
    const gone = inConversation ? undefined : rewound.has(m.id) ? ('rewound' as const) : ('compacted' as const);
    return { index: i + 1, turnId: m.id, text: typedText(m), createdAt: m.createdAt, inConversation, ...(gone ? { gone } : {}), files: [...files] };
  });
}

/** Does a /rewind: files back from their snapshots (code), the turn and what followed out of the conversation (a rewind record). */
export async function rewindTo(
  s: { store: Store; sessionId: string; cwd: string; files: FileTracker; log: SessionLog },
  targets: readonly RewindTarget[],
  ref: string,
  what: RewindWhat,
): Promise<RewindResult> {
  const target = findTarget(targets, ref);
  if (!target) throw new Error(`no turn "${ref}" to rewind to: give its number from /rewind`);
  if (what !== 'code' && !target.inConversation) {
    const why = target.gone === 'rewound' ? 'was taken out of the conversation by an earlier rewind' : 'was compacted into a summary';
    throw new Error(`turn ${target.index} ${why}, so the conversation cannot go back to it; its code can be restored with /rewind ${target.index} code`);
  }
  let files: RestoredFile[] = [];
  if (what !== 'conversation') {
    const snapshots = s.store.snapshotsSince(s.sessionId, target.turnId);
    files = await restoreSnapshots(snapshots, s.cwd);
    // the model must read them again before changing them, and is told why (fileChange.ts)
    for (const snap of snapshots) await markRestored(s.files, snap.path, target.index);
  }
  let archived = 0;
  if (what !== 'code') {
    archived = s.log.rewind(target.turnId, newId(REWIND_ID_PREFIX));
    // the reads that left the conversation with the rewound turns no longer count; those still in view do
    s.files.clear();
    rebuildTracker(s.store, s.sessionId, s.log.messages(), s.files);
  }
  return { target, files, archived };
}

/** A restored file is marked (read it again); one the rewind removed is simply unknown again. */
async function markRestored(files: FileTracker, path: string, turn: number): Promise<void> {
  try {
    files.restored(path, await stat(path), turn, newId('r'));
  } catch {
    files.forget(path);
  }
}

/** Finds a target by its number or its message id (a unique prefix will do). */
export function findTarget(targets: readonly RewindTarget[], ref: string): RewindTarget | undefined {
  if (/^\d+$/.test(ref)) return targets[Number(ref) - 1];
  const matches = targets.filter((t) => t.turnId.startsWith(ref));
  return matches.length === 1 ? matches[0] : undefined;
}

/** Puts each file back as its snapshot holds it (content and mode), or removes a file that did not exist. */
export async function restoreSnapshots(snapshots: readonly FileSnapshot[], cwd: string): Promise<RestoredFile[]> {
  const out: RestoredFile[] = [];
  for (const s of snapshots) {
    const path = displayPath(cwd, s.path);
    try {
      if (s.content === null) {
        await rm(s.path, { force: true });
        out.push({ path, action: 'removed' });
        continue;
      }
      await mkdir(dirname(s.path), { recursive: true });
      await writeFile(s.path, s.content);
      if (s.mode !== null && ((await stat(s.path)).mode & 0o7777) !== (s.mode & 0o7777)) await chmod(s.path, s.mode & 0o7777);
      out.push({ path, action: 'restored' });
    } catch (e) {
      out.push({ path, action: 'failed', error: (e as Error).message });
    }
  }
  return out;
}
