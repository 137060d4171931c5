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
import type { TreeChange, TreeCheckpoints } from '../capability/checkpoints.js';

export type RewindWhat = 'code' | 'conversation' | 'both';

/** One of the person's turns: a /rewind destination (1-based index, oldest first; files changed in it or later). */
export type RewindTarget = RewindTargetView;

export interface RewindResult {
  target: RewindTarget;
  files: RestoredFile[];
  /** Messages taken out of the conversation. */
  archived: number;
  /** A code rewind: the project restored from its checkpoint ('tree'), or why only Edit and Write's records could be (the checkpoints are off: undefined). */
  tree?: { restored: true } | { restored: false; missing: string };
}

/** A code rewind found files changed since the agent last left the project: nothing was changed. */
export class OutsideChangesError extends Error {
  override readonly name = 'OutsideChangesError';
  constructor(
    readonly files: string[],
    message: string,
  ) {
    super(message);
  }
}

/** The error for files changed outside since the last turn, naming them and how to go on. */
export function outsideChanges(files: readonly string[], cwd: string, retry: string): OutsideChangesError {
  const shown = files.slice(0, 10).map((f) => `  ${displayPath(cwd, f)}`);
  const more = files.length > 10 ? [`  … and ${files.length - 10} more`] : [];
  return new OutsideChangesError(
    files.map((f) => displayPath(cwd, f)),
    [
      `${files.length === 1 ? 'This file was' : `These ${files.length} files were`} changed since the agent's last turn (not by the agent):`,
      ...shown,
      ...more,
      `Nothing was changed. To overwrite ${files.length === 1 ? 'it' : 'them'} anyway: ${retry} --force (/rewind undo takes that back).`,
    ].join('\n'),
  );
}

export interface RestoredFile {
  path: string;
  action: 'restored' | 'removed' | 'failed';
  error?: string;
}

export const isPersonTurn = (m: Message): boolean =>
  m.role === 'user' && m.kind === 'normal' && !m.pinned && !isToolResultMessage(m) && textOf(m).trim() !== '';

/** The person's turns of the session, oldest first, with what a rewind to each would restore. */
export function rewindTargets(
  store: Store,
  sessionId: string,
  visible: readonly Message[],
  cwd: string,
  stored: boolean,
  tree?: TreeCheckpoints,
): RewindTarget[] {
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
    const checkpoint = tree?.before(m.id);
    return {
      index: i + 1,
      turnId: m.id,
      text: typedText(m),
      createdAt: m.createdAt,
      inConversation,
      ...(gone ? { gone } : {}),
      files: [...files],
      ...(checkpoint ? { checkpoint } : {}),
    };
  });
}

/** Does a /rewind: files back from their snapshots (code), the turn and what followed out of the conversation (a rewind record). */
export async function rewindTo(
  s: { store: Store; sessionId: string; cwd: string; files: FileTracker; log: SessionLog; tree?: TreeCheckpoints | undefined },
  targets: readonly RewindTarget[],
  ref: string,
  what: RewindWhat,
  force = false,
): Promise<RewindResult> {
  const target = findTarget(targets, ref);
  if (!target) throw new Error(`no turn "${ref}" to rewind to: give its number from /rewind`);
  if (what !== 'code' && !target.inConversation) {
    const why = target.gone === 'rewound' ? 'was taken out of the conversation by an earlier rewind' : 'was compacted into a summary';
    throw new Error(`turn ${target.index} ${why}, so the conversation cannot go back to it; its code can be restored with /rewind ${target.index} code`);
  }
  let files: RestoredFile[] = [];
  let tree: RewindResult['tree'];
  if (what !== 'conversation') {
    let snapshots = s.store.snapshotsSince(s.sessionId, target.turnId);
    let byTree: TreeChange[] = [];
    if (s.tree) {
      const done = await s.tree.rewind(target.turnId, what, force);
      if ('outside' in done) throw outsideChanges(done.outside, s.cwd, `/rewind ${target.index} ${what}`);
      if ('missing' in done) tree = { restored: false, missing: done.missing };
      else {
        tree = { restored: true };
        byTree = done.changes;
        // Edit/Write's records still restore what the checkpoints do not hold (ignored files, files outside the project)
        const uncovered = new Set(await s.tree.uncovered(snapshots.map((x) => x.path)));
        snapshots = snapshots.filter((x) => uncovered.has(x.path));
      }
    }
    files = [...byTree.map((c) => ({ ...c, path: displayPath(s.cwd, c.path) })), ...(await restoreSnapshots(snapshots, s.cwd))];
    // the model must read them again before changing them, and is told why (fileChange.ts)
    for (const path of [...byTree.map((c) => c.path), ...snapshots.map((x) => x.path)]) await markRestored(s.files, path, target.index);
  } else await s.tree?.conversationRewound(target.turnId);
  let archived = 0;
  if (what !== 'code') {
    archived = s.log.rewind(target.turnId, newId(REWIND_ID_PREFIX));
    // the reads that left the conversation with the rewound turns no longer count; those still in view do
    s.files.clear();
    rebuildTracker(s.store, s.sessionId, s.log.messages(), s.files);
  }
  return { target, files, archived, ...(tree ? { tree } : {}) };
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
