// What a session asks of its working tree's checkpoints (the checkpoints capability lends it
// through the seam, CapabilitySession.checkpoints): whether a turn has one, going back to it,
// taking a rewind back. The seam's vocabulary, so /rewind reaches the files through the seam and
// never names the checkpoints' room (src/checkpoints/ implements it). Types only.

/** What a rewind took back: the files, the conversation, or both. */
export type RewindKind = 'code' | 'conversation' | 'both';

/** One file a tree rewind put back or removed (absolute path), or could not. */
export interface TreeChange {
  path: string;
  action: 'restored' | 'removed' | 'failed';
  error?: string;
}

/** The project was changed since the agent last left it: these files (absolute), which a rewind would overwrite. */
export interface OutsideChanges {
  outside: string[];
}

export interface TreeCheckpoints {
  /** The project's root (what the checkpoints cover, its ignored files apart). */
  readonly root: string;
  /** Whether the tree before a turn can be restored, or why not (read from the records, no git). */
  before(turnId: string): { ok: true } | { ok: false; missing: string };
  /**
   * Puts the tree back as it was before the turn (files changed since restored, created since
   * removed, deleted since back), after snapshotting it as it is (for /rewind undo). Without
   * `force`, refuses when files changed since the agent last left the project.
   */
  rewind(turnId: string, what: RewindKind, force: boolean): Promise<{ changes: TreeChange[] } | OutsideChanges | { missing: string }>;
  /** Records a conversation-only rewind, so /rewind undo takes back the last rewind of either kind. */
  conversationRewound(turnId: string): Promise<void>;
  /** What `/rewind undo` would take back: the last rewind not taken back yet, or undefined when none is recorded. */
  lastRewind(): { what: RewindKind } | undefined;
  /** Takes the last rewind back: the tree as it was just before it (a conversation-only one leaves files alone); refuses on outside changes without `force`. */
  undo(force: boolean): Promise<{ changes: TreeChange[] } | OutsideChanges>;
  /** Of these absolute paths, those the checkpoints do not hold (ignored, outside the project): Edit/Write's records restore those. */
  uncovered(paths: readonly string[]): Promise<string[]>;
}
