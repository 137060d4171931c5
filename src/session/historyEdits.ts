// /rewind and /uncompact for one session: each change is a record appended to the store's
// history log, which the visible history is derived from (history/reduce.ts); this class plans
// it (uncompact.ts, rewind.ts), appends it through the session's log and tells the session that
// its history was replaced. It never runs while a turn does.

import type { Store } from '../store/index.js';
import type { FileTracker } from '../tools/fileTracker.js';
import type { Compactor } from './compactor.js';
import { outsideChanges, rewindTargets, rewindTo, type RestoredFile, type RewindResult, type RewindTarget, type RewindWhat } from './rewind.js';
import type { TreeCheckpoints } from '../capability/checkpoints.js';
import { displayPath } from '../tools/paths.js';
import { newId } from '../llm/messages.js';
import { unanswered } from './promptBack.js';
import { archiveCause, WITHDRAW_ID_PREFIX } from './recordIds.js';
import { rebuildTracker } from './trackerRebuild.js';
import type { SessionLog } from './sessionLog.js';
import { planFor, planRewindUndo, uncompactTargets, type RewindUndoPlan, type UncompactPlan, type UncompactTarget } from './uncompact.js';

export interface HistoryEditsDeps {
  store: Store;
  sessionId: string;
  log: SessionLog;
  /** The session's working directory (the run's). */
  cwd: string;
  /** The history's token count and limits: /uncompact's fit check, and the count restarted after a rewind. */
  compactor: Pick<Compactor, 'historyReplaced' | 'tokensWith' | 'limits'>;
  files: FileTracker;
  /** A turn is running: nothing may be rewritten under it. */
  busy: () => boolean;
  /** After a rewind or a revert: accounting restarts from estimates, the UI redraws. */
  replaced: () => void;
  /** The working tree's checkpoints, when the session keeps them. */
  tree: () => TreeCheckpoints | undefined;
}

/** What `/rewind undo` did: the conversation's messages back (when it took back a conversation rewind), the files put back (a code rewind). */
export type RewindUndoResult = { ok: false; message: string } | { ok: true; conversation?: { restored: number; tokens: number }; files?: RestoredFile[] };

export class HistoryEdits {
  constructor(private readonly d: HistoryEditsDeps) {}

  /** The person's turns, oldest first, with the files a rewind to each would restore. */
  rewindTargets(): RewindTarget[] {
    this.d.log.flush();
    return rewindTargets(this.d.store, this.d.sessionId, this.d.log.messages(), this.d.cwd, this.d.log.isStored, this.d.tree());
  }

  /**
   * Goes back to before a turn: its files as they were before it (code), and/or the
   * conversation without it and what followed (archived, still searchable).
   */
  async rewind(ref: string, what: RewindWhat, force = false): Promise<RewindResult> {
    if (this.d.busy()) throw new Error('wait for the current turn to end (or press Esc) before rewinding');
    const done = await rewindTo(
      { store: this.d.store, sessionId: this.d.sessionId, cwd: this.d.cwd, files: this.d.files, log: this.d.log, tree: this.d.tree() },
      this.rewindTargets(),
      ref,
      what,
      force,
    );
    if (what !== 'code') this.d.replaced();
    return done;
  }

  /** Whether the project's checkpoints are kept (a code rewind can then be taken back). */
  keepsCheckpoints(): boolean {
    return this.d.tree() !== undefined;
  }

  /** Takes a prompt that got no reply out of the conversation (promptBack.ts) by a withdrawal record; false when it got one or the record cannot be written. */
  withdraw(messageId: string, failed: boolean): boolean {
    const history = this.d.log.messages();
    if (
      !unanswered(
        history,
        history.findIndex((m) => m.id === messageId),
        failed,
      )
    )
      return false;
    try {
      this.d.log.rewind(messageId, newId(WITHDRAW_ID_PREFIX));
    } catch {
      return false; // the database refused the record: the prompt stays (the next one marks it unanswered)
    }
    // the reads its @mentions recorded leave with it; the context accounting restarts from estimates
    this.d.files.clear();
    rebuildTracker(this.d.store, this.d.sessionId, this.d.log.messages(), this.d.files);
    this.d.compactor.historyReplaced();
    return true;
  }

  /** Compactions /uncompact can undo, oldest first. */
  uncompactTargets(): UncompactTarget[] {
    this.d.log.flush();
    return this.d.log.isStored ? uncompactTargets(this.d.store.compactionsInEffect(this.d.sessionId)) : [];
  }

  /**
   * Undoes a compaction (the last one, or the one named), with every compaction after it, when
   * what it archived fits; `newest` brings back only that many of its newest archived messages.
   */
  async uncompact(ref?: string, newest?: number): Promise<UncompactPlan> {
    if (this.d.busy()) throw new Error('wait for the current turn to end (or press Esc) before undoing a compaction');
    const plan = await planFor(this.planDeps(), this.uncompactTargets(), ref, newest);
    return this.revertBy(plan);
  }

  /**
   * `/rewind undo`: takes back the last rewind. Its conversation part is undone by the same kind
   * of record as /uncompact; its code part puts the project back as it was just before it (the
   * checkpoints), refused on files changed since the agent left them unless `force`. Without
   * checkpoints (or a rewind recorded by them) it takes back the last conversation rewind.
   */
  async undoRewind(force = false): Promise<RewindUndoResult> {
    if (this.d.busy()) throw new Error('wait for the current turn to end (or press Esc) before undoing a rewind');
    this.d.log.flush();
    const tree = this.d.tree();
    const last = tree?.lastRewind();
    let plan: RewindUndoPlan | undefined;
    if (last?.what !== 'code') {
      // a prompt the session took back into the input (promptBack.ts) is no rewind of the person's
      const rewinds = this.d.log.isStored ? this.d.store.rewindsInEffect(this.d.sessionId).filter((r) => archiveCause(r.id) === 'rewind') : [];
      plan = await planRewindUndo(this.planDeps(), rewinds);
      if (!plan.ok) return plan;
    }
    let files: RestoredFile[] | undefined;
    if (tree && last) {
      const done = await tree.undo(force);
      if ('outside' in done) throw outsideChanges(done.outside, this.d.cwd, '/rewind undo');
      const cwd = this.d.cwd;
      if (last.what !== 'conversation') files = done.changes.map((c) => ({ ...c, path: displayPath(cwd, c.path) }));
      // the model reads them again before changing them
      for (const c of done.changes) this.d.files.forget(c.path);
    }
    if (plan?.ok) this.revertBy(plan);
    return { ok: true, ...(plan?.ok ? { conversation: { restored: plan.restored, tokens: plan.tokens } } : {}), ...(files ? { files } : {}) };
  }

  private planDeps(): Parameters<typeof planFor>[0] {
    return {
      store: this.d.store,
      sessionId: this.d.sessionId,
      current: this.d.log.messages(),
      tokensWith: (h) => this.d.compactor.tokensWith(h),
      limits: this.d.compactor.limits(),
    };
  }

  private revertBy<P extends UncompactPlan | RewindUndoPlan>(plan: P): P {
    if (!plan.ok) return plan;
    this.d.log.revert(plan.req);
    this.d.replaced();
    return plan;
  }
}
