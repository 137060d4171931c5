import type { CompactionCommit, CompactionRecord } from '../history/compaction.js';
import type { LogEntry, StepRecord } from '../history/records.js';
import type { ImageBlock, Message } from '../llm/messages.js';
import type { FileSnapshot, NewSnapshot, RewindRecord, SnapshotTurn } from './snapshots.js';

export type { FileSnapshot, NewSnapshot, RewindRecord, SnapshotTurn } from './snapshots.js';

export interface OpenStoreOptions {
  /** How long a write waits for another process's lock before failing with kind 'locked'. Default 5000. */
  busyTimeoutMs?: number;
  /** Open an existing database for reading only: nothing is created, migrated or written. */
  readonly?: boolean;
  /** Cap on the database size (SQLite max_page_count); growing past it fails with kind 'disk_full'. */
  maxSizeBytes?: number;
}

export interface SessionInfo {
  id: string;
  cwd: string;
  /** From the first normal user prompt unless set explicitly. */
  title: string | null;
  provider: string;
  model: string;
  createdAt: number;
  updatedAt: number;
  /** Free-form JSON the session layer keeps (compaction cadence, breaker, calibration...). */
  meta: Record<string, unknown>;
  /** Every message row of the session, visible or archived. */
  messageCount: number;
  visibleCount: number;
  /** Applied compactions (failed and ineffective attempts are not counted). */
  compactionCount: number;
  /** Last context size the session layer reported through updateSession. */
  contextTokens: number | null;
  /** A child session (sub-agent): who started it. */
  parent?: ParentLink;
}

/** How a child session is linked to the session that started it. */
export interface ParentLink {
  /** The parent session's id. */
  id: string;
  /** The message id of the person's prompt that started the parent's turn. */
  turn: string;
  /** The Task call's tool_use id in the parent. */
  toolUseId: string;
  /** The agent that ran (explore, or a custom agent's name). */
  agent: string;
}

export interface NewSession {
  id: string;
  cwd: string;
  provider: string;
  model: string;
  title?: string;
  meta?: Record<string, unknown>;
  /** A child session (sub-agent): who started it. */
  parent?: ParentLink;
}

export interface SessionPatch {
  title?: string | null;
  provider?: string;
  model?: string;
  /** Replaces the whole meta object. */
  meta?: Record<string, unknown>;
  contextTokens?: number | null;
}

export interface TranscriptEntry {
  message: Message;
  /** Id of the compaction that archived the message, null while it is visible. */
  archivedBy: string | null;
}

export interface VisibleEntry {
  message: Message;
  /** Token count stored with the message (null when the writer gave none). */
  tokens: number | null;
}

/** The process that writes a session. */
export interface LeaseOwner {
  /** Random per Session object: a process may reopen a session it holds (TUI /resume). */
  token: string;
  pid: number;
  host: string;
}

export interface LeaseHolder extends LeaseOwner {
  acquiredAt: number;
  /** Renewed while the writer lives. */
  heartbeatAt: number;
}

export type LeaseResult = { acquired: true; tookOver?: LeaseHolder } | { acquired: false; holder: LeaseHolder };

/** A new visible history for a repair: the old messages (some with new blocks) and inserted ones. */
export interface VisibleRewrite {
  messages: readonly Message[];
  added: readonly Message[];
  replaced: readonly Message[];
}

/** Undo a compaction or a conversation rewind (and every compaction after it), or bring back only some of what a compaction hid. */
export interface RevertRequest {
  /** The revert record's id (also the archive mark of the checkpoints it takes out of view). */
  id: string;
  /** The compaction or conversation rewind undone (with every compaction after it). */
  target: string;
  /** Partial revert: only these messages the target hid come back (placed before the view). */
  restore?: readonly string[];
  createdAt: number;
}

export interface RewindInEffect {
  id: string;
  /** The person's message the conversation went back to (it and what followed left the view). */
  turnId: string;
  /** Messages it keeps out of view. */
  hidden: number;
}

export interface CompactionInEffect {
  record: CompactionRecord;
  /** Messages it keeps out of view. */
  hidden: number;
}

import type { SpillArchive } from './spills.js';
import type { FileReadLog } from './fileReads.js';
export type { FileReadLog, StoredRead } from './fileReads.js';
import type { SandboxViolationLog } from './sandboxViolations.js';
export type { SandboxViolation, SandboxViolationLog } from './sandboxViolations.js';
export type { NewSpill, SpillArchive, SpilledOutput } from './spills.js';

export type ArchiveKind = 'message' | 'tool_output';

export interface ArchiveHit {
  /** Archived message id or tool output archive id: pass it to getArchived. */
  id: string;
  kind: ArchiveKind;
  /** "user message", "tool result of Bash `npm test`", "Bash output `npm test` (cleared)"... */
  label: string;
  /** Matching excerpt; matched terms are wrapped in « ». */
  snippet: string;
  sessionId: string;
  /** When the archived content was first produced (epoch ms). */
  createdAt: number;
  /** FTS5 bm25 score: lower is more relevant (hits come best first). 0 for the LIKE scan. */
  rank: number;
  /** Out of the visible history (compacted, rewound, a cleared output); false for a message the conversation still shows. */
  archived: boolean;
}

export interface ArchivedItem {
  id: string;
  kind: ArchiveKind;
  label: string;
  /** Full text: an archived message rendered as text, or a cleared tool output's original content. */
  text: string;
  /** A cleared output's images (or a cleared image block), as they were sent: Recall attaches them again. */
  images?: ImageBlock[];
  sessionId: string;
  createdAt: number;
}

export interface SearchOptions {
  /** Restrict to one session; omitted = every session in the database. */
  sessionId?: string;
  /** With sessionId: its child sessions (sub-agents) too. */
  withChildren?: boolean;
  limit: number;
  offset: number;
  /** Only what is out of the visible history (Recall, /history); by default every indexed message matches. */
  archivedOnly?: boolean;
}

/** Token counts for messages a compaction adds or rewrites; omitted → stored as unknown (null). */
export type TokenCounter = (message: Message) => number;

export interface Store {
  /** Absolute path of the database file (':memory:' for an in-memory store). */
  readonly file: string;
  readonly readonly: boolean;

  createSession(s: NewSession): SessionInfo;
  updateSession(id: string, patch: SessionPatch): void;
  /** Exact id or a unique id prefix (like git). An ambiguous prefix throws StoreError 'not_found'. */
  getSession(idOrPrefix: string): SessionInfo | undefined;
  /** The most recently touched session (optionally of one working directory). */
  /** The ids that start with `prefix` (a read-only run's copies of a session: sessionLookup.ts). */
  sessionIdsStartingWith(prefix: string): string[];
  latestSession(cwd?: string): SessionInfo | undefined;
  /** Most recently touched first. */
  listSessions(opts?: { cwd?: string; limit?: number }): SessionInfo[];
  /** The child sessions (sub-agents) a session started, oldest first. */
  childSessions(parentId: string): SessionInfo[];
  /** Removes the session and everything of it (messages, compactions, archive, search index). */
  deleteSession(id: string): void;
  /** A full copy of session `fromId` (messages, archive, compactions, meta) under `to.id`. */
  forkSession(fromId: string, to: NewSession): SessionInfo;

  /** Takes the session's write lease unless a live writer holds it (`stale` judges the holder). */
  acquireLease(sessionId: string, owner: LeaseOwner, stale: (holder: LeaseHolder) => boolean): LeaseResult;
  /** Renews the heartbeat; false when the lease is no longer this owner's. */
  renewLease(sessionId: string, token: string): boolean;
  releaseLease(sessionId: string, token: string): void;
  getLease(sessionId: string): LeaseHolder | undefined;
  /** Replaces the visible history (a repair): nothing visible is dropped, new messages are inserted. Returns the repair record appended. */
  rewriteVisible(sessionId: string, change: VisibleRewrite, tokens?: TokenCounter): StepRecord;

  /** Appends one finished message; committed when this returns. Sets the title from the first prompt. */
  appendMessage(sessionId: string, msg: Message, tokens: number | null): void;
  /** Pins or unpins a visible message (/pin, /unpin). Returns the pin record appended. */
  setPinned(sessionId: string, messageId: string, pinned: boolean): StepRecord;
  /** The visible history in order (what the model sees). */
  loadVisible(sessionId: string): Message[];
  loadVisibleEntries(sessionId: string): VisibleEntry[];
  /** Every message in insertion order, with the compaction that archived it. */
  loadTranscript(sessionId: string, opts: { includeArchived: boolean }): TranscriptEntry[];

  /** Applies a successful compaction in one transaction: all of it or nothing. */
  applyCompaction(sessionId: string, commit: CompactionCommit, tokens?: TokenCounter): void;
  /** Compactions a revert can undo (their effect stands), oldest first. */
  compactionsInEffect(sessionId: string): CompactionInEffect[];
  /** The visible history a revert would give, nothing stored (tokens null where the blocks differ from the stored ones). */
  previewRevert(sessionId: string, req: RevertRequest): VisibleEntry[];
  /** Appends a revert record: the messages the compaction (or rewind) hid come back into view (all, or those listed). */
  revertCompaction(sessionId: string, req: RevertRequest): void;
  /** The messages a compaction (or rewind) keeps out of view, oldest first. */
  loadArchivedBy(sessionId: string, recordId: string): Message[];
  /** Conversation rewinds a revert can undo, oldest first. */
  rewindsInEffect(sessionId: string): RewindInEffect[];
  /** The visible ids derived from the log by replaying it (what the cached view must equal). */
  deriveVisibleIds(sessionId: string): string[];
  /** The session's log: its messages (ids) and records, in the order they were appended. */
  historyLog(sessionId: string): LogEntry[];
  /** Stores a failed or ineffective attempt (the record only). */
  recordCompactionFailure(sessionId: string, record: CompactionRecord): void;
  /** Every compaction attempt of the session, oldest first. */
  listCompactions(sessionId: string): CompactionRecord[];

  /** Full-text search (FTS5, bm25) over archived messages and cleared tool outputs. */
  searchArchive(query: string, opts: SearchOptions): ArchiveHit[];
  /** The same search by a plain LIKE scan (kept for the benchmark comparison). */
  likeScanArchive(query: string, opts: SearchOptions): ArchiveHit[];
  getArchived(id: string, opts?: { sessionId?: string }): ArchivedItem | undefined;
  /** Spilled tool outputs: archived whole at once, read by handle (spills.ts). */
  readonly spilled: SpillArchive;
  /** File states seen by tool calls, to rebuild the edit tracker on resume (fileReads.ts). */
  readonly fileReads: FileReadLog;
  /** What the sandbox denied commands, one record a denial (sandboxViolations.ts). */
  readonly sandboxViolations: SandboxViolationLog;

  /** Stores a file's state before its first change in a turn; false when the turn already has one of that path. */
  saveSnapshot(sessionId: string, snapshot: NewSnapshot): boolean;
  /** For each file changed at or after the turn (by message order), its state before the first of those changes. */
  snapshotsSince(sessionId: string, turnId: string): FileSnapshot[];
  /** Turns that changed files, in order, with the paths. */
  snapshotTurns(sessionId: string): SnapshotTurn[];
  /** What a provider's models endpoint said of a model (JSON), and when; config/thinking.ts reads it. */
  modelCapabilities(provider: string, model: string): { body: string; fetchedAt: number } | undefined;
  saveModelCapabilities(provider: string, model: string, body: string, at: number): void;
  /** Archives the turn's message and everything visible after it (searchable, like compacted messages); returns their ids. */
  rewindConversation(sessionId: string, rewind: RewindRecord): string[];

  close(): void;
}
