// The session's history and its persistence: the visible messages in memory, every append
// written through to the store (a failed write is kept and retried, the person told once per
// failure streak), the write lease, the saved state, and every record of the history log
// (compactions, reverts, rewinds, unpins, repairs) committed in one place: the store appends it
// and caches what the reducer gives, and the messages in memory move on by the same reducer.
import type { TokenCounter } from '../compaction/tokens.js';
import { compactionEntry, type CompactionCommit, type CompactionRecord } from '../history/compaction.js';
import { applyRecord } from '../history/view.js';
import type { Message } from '../llm/messages.js';
import { debug, redactSecrets } from '../log.js';
import type { NewSession, RevertRequest, SessionInfo, Store, VisibleEntry } from '../store/index.js';
import { SessionLease } from './lease.js';
import { repairHistory } from './repair.js';

type Notice = (level: 'info' | 'warning' | 'error', text: string) => void;

export interface LogDeps {
  store: Store;
  counter: TokenCounter;
  dbPath: string;
  notice: Notice;
  /** The row a new session is stored with on its first message (its model and state as they are then). */
  describe: () => NewSession;
  /** Called once the session's row is written (what waited for it can be stored now). */
  stored?: () => void;
  /** How many messages are kept in memory only, after each write that changed it (the footer's "unsaved: N"). */
  unsavedChanged?: (count: number, error: string | undefined) => void;
}

/** What the front ends need to know and do about messages the database refused: count, why, retry, the whole transcript. */
export interface Saving {
  readonly unsavedCount: number;
  /** The last write's error, while messages are unsaved. */
  readonly saveError: string | undefined;
  /** Writes what is pending again; true when nothing is left unsaved. */
  flush(): boolean;
  /** Every message of the session in memory (the visible history, unsaved ones included). */
  messages(): Message[];
}

export class SessionLog implements Saving {
  private history: Message[];
  private stored: boolean;
  private title: string | null;
  /** Messages whose write failed (disk full, read-only): kept in memory, retried on the next write. */
  private unsaved: Array<{ msg: Message; tokens: number | null }> = [];
  /** The last write failed: the person has been told, and is told again when writes recover. */
  private saveFailing = false;
  private lastError: string | undefined;
  /** This process's write lease on the session (taken when it is resumed or first stored). */
  private lease: SessionLease | undefined;

  private constructor(
    readonly id: string,
    private readonly deps: LogDeps,
    info: SessionInfo | undefined,
    history: Message[],
  ) {
    this.stored = info !== undefined;
    this.title = info?.title ?? null;
    this.history = history;
  }

  static create(id: string, deps: LogDeps): SessionLog {
    return new SessionLog(id, deps, undefined, []);
  }

  /**
   * A stored session, leased to this process (SessionInUseError while another live process
   * writes it), its history repaired first if the provider would refuse it. `notes` say what
   * the repair fixed.
   */
  static resume(info: SessionInfo, deps: LogDeps): { log: SessionLog; notes: string[] } {
    let log: SessionLog | undefined;
    const lease = SessionLease.acquire(deps.store, info.id, () => log?.leaseLost());
    try {
      const entries = deps.store.loadVisibleEntries(info.id);
      let visible = primed(entries, deps.counter);
      // a history the provider would refuse (a crash, two writers, an old database) is repaired first
      const repair = repairHistory(visible);
      if (repair) {
        const clean = { messages: repair.messages.map(withoutSecrets), added: repair.added.map(withoutSecrets), replaced: repair.replaced.map(withoutSecrets) };
        // counts only once the tokenizer is loaded (it loads lazily); null counts are filled in when needed
        const record = deps.store.rewriteVisible(info.id, clean, deps.counter.ready ? (m) => deps.counter.countMessage(m) : undefined);
        visible = applyRecord(visible, record, clean.added);
        debug('repaired the stored history on load', { session: info.id, notes: repair.notes });
      }
      log = new SessionLog(info.id, deps, info, visible);
      log.lease = lease;
      return { log, notes: repair ? [`Repaired the stored history of session ${info.id}: ${repair.notes.join('; ')}.`] : [] };
    } catch (e) {
      lease.release();
      throw e;
    }
  }

  messages(): Message[] {
    return this.history;
  }

  /**
   * The messages compactions archived, in log order (not those a rewind took back: the person
   * undid them): what the working-state ledger covers beside the history. [] when nothing is
   * stored yet or the store cannot be read (the ledger then covers the history alone).
   */
  archived(): Message[] {
    if (!this.stored) return [];
    try {
      const rewound = new Set(this.deps.store.rewindsInEffect(this.id).map((r) => r.id));
      return this.deps.store
        .loadTranscript(this.id, { includeArchived: true })
        .filter((e) => e.archivedBy !== null && !rewound.has(e.archivedBy))
        .map((e) => e.message);
    } catch (e) {
      debug('could not read the archived messages for the ledger', { error: (e as Error).message });
      return [];
    }
  }

  get unsavedCount(): number {
    return this.unsaved.length;
  }

  get saveError(): string | undefined {
    return this.unsaved.length > 0 ? this.lastError : undefined;
  }

  get isStored(): boolean {
    return this.stored;
  }

  get sessionTitle(): string | null {
    return this.title;
  }

  /** Appends a message (secrets removed) and writes it through. */
  append(raw: Message): Message {
    const msg = withoutSecrets(raw);
    this.history.push(msg);
    // without the tokenizer loaded the count is left for later (a resume counts it when needed)
    this.unsaved.push({ msg, tokens: this.deps.counter.ready ? this.deps.counter.countMessage(msg) : null });
    // every later message retries what is pending, in order
    this.flush();
    return msg;
  }

  /** Writes what is pending, in order. A failure keeps it in memory and tells the person once per failure streak. */
  flush(): boolean {
    if (this.unsaved.length === 0) return true;
    if (this.lease?.lost) return false;
    try {
      this.ensureStored();
      while (this.unsaved.length > 0) {
        const next = this.unsaved[0]!;
        this.deps.store.appendMessage(this.id, next.msg, next.tokens);
        this.unsaved.shift();
        if (this.title === null && next.msg.role === 'user' && next.msg.kind === 'normal') this.title = this.deps.store.getSession(this.id)?.title ?? null;
      }
      if (this.saveFailing) this.deps.notice('info', 'The database accepts writes again; every pending message is saved.');
      if (this.saveFailing) this.deps.unsavedChanged?.(0, undefined);
      this.saveFailing = false;
      this.lastError = undefined;
      return true;
    } catch (e) {
      this.lastError = (e as Error).message;
      this.deps.unsavedChanged?.(this.unsaved.length, this.lastError);
      if (!this.saveFailing) {
        this.saveFailing = true;
        this.deps.notice(
          'error',
          `Could not save to ${this.deps.dbPath}: ${(e as Error).message.replace(/\.$/, '')}. The session goes on in memory and saving is retried with every message; ` +
            `nothing has been lost yet, but it will be if you quit before the disk recovers.`,
        );
      }
      return false;
    }
  }

  ensureStored(): void {
    if (this.stored) return;
    this.deps.store.createSession(this.deps.describe());
    this.stored = true;
    this.deps.stored?.();
    this.lease = SessionLease.acquire(this.deps.store, this.id, () => this.leaseLost());
  }

  /** Saves the state and the context size (best effort: the next save retries). */
  saveState(meta: Record<string, unknown>, contextTokens: number): void {
    if (!this.stored || this.lease?.lost) return;
    this.safely(() => this.deps.store.updateSession(this.id, { meta, contextTokens }));
  }

  /** Names a session that has no title yet (a command's prompt: "/init", not the instruction it sends). */
  titleIfUntitled(title: string): void {
    if (this.title !== null) return;
    this.safely(() => {
      this.ensureStored();
      this.deps.store.updateSession(this.id, { title });
      this.title = title;
    });
  }

  setModel(model: string, provider: string): void {
    if (this.stored) this.safely(() => this.deps.store.updateSession(this.id, { model, provider }));
  }

  // ---- records of the history log ----------------------------------------------------------

  /** Commits a compaction: the store first, in one transaction, then memory. Returns why it could not, or undefined. */
  commitCompaction(commit: CompactionCommit): string | undefined {
    if (!this.flush()) return 'the database cannot be written';
    try {
      this.ensureStored();
      this.deps.store.applyCompaction(this.id, commit, (m) => this.deps.counter.countMessage(m));
    } catch (e) {
      return `it could not be saved (${(e as Error).message})`;
    }
    this.history = applyRecord(this.history, compactionEntry(commit), commit.added);
    return undefined;
  }

  /** A failed or ineffective attempt: only the record is kept. */
  recordFailure(record: CompactionRecord): void {
    if (this.stored) this.safely(() => this.deps.store.recordCompactionFailure(this.id, record));
  }

  /**
   * Undoes a compaction (or brings back part of what it hid). A revert undoes earlier records,
   * so the store replays the whole log (which memory does not hold) and the history is read back.
   */
  revert(req: RevertRequest): void {
    this.requireWritable('nothing was reverted');
    this.deps.store.revertCompaction(this.id, req);
    this.history = primed(this.deps.store.loadVisibleEntries(this.id), this.deps.counter);
  }

  /** Takes the turn starting at `turnId` and everything after it out of the conversation; returns how many messages left. */
  rewind(turnId: string, id: string): number {
    this.requireWritable('the conversation was not rewound');
    const archived = this.deps.store.rewindConversation(this.id, { id, turnId, createdAt: Date.now() }).length;
    this.history = applyRecord(this.history, { kind: 'rewind', id, body: { cut: turnId } });
    return archived;
  }

  unpin(messageId: string): void {
    this.requireWritable('the pin was kept');
    this.history = applyRecord(this.history, this.deps.store.setPinned(this.id, messageId, false));
  }

  close(): void {
    this.lease?.release();
  }

  /** Before a change of the history: what is pending is written first (`refused` ends "…, so <refused>"). */
  private requireWritable(refused: string): void {
    if (!this.flush()) throw new Error(`the database cannot be written, so ${refused}`);
    if (this.lease?.lost) throw new Error(`another process took this session over, so ${refused}`);
  }

  /** Another process took the lease over (this one was silent too long): stop writing, say so. */
  private leaseLost(): void {
    this.deps.notice(
      'error',
      `Another agent process took over session ${this.id} (this one was unresponsive too long). Nothing more is saved here; quit and resume it, or start a new session.`,
    );
  }

  private safely(write: () => void): void {
    try {
      write();
    } catch (e) {
      debug('store write failed', { error: (e as Error).message });
    }
  }
}

/** The messages of stored entries, their stored counts handed to the counter. */
function primed(entries: readonly VisibleEntry[], counter: TokenCounter): Message[] {
  for (const e of entries) if (e.tokens !== null) counter.prime(e.message, e.tokens);
  return entries.map((e) => e.message);
}

/** The API key in use never enters the history (and so neither the database nor later requests), even if typed or echoed. */
export function withoutSecrets(msg: Message): Message {
  // an image's base64 is pixels, not text: scanned as text, a run of it can look like a key and be cut
  const json = JSON.stringify(msg.blocks, function (this: { type?: unknown }, k, v: unknown) {
    return k === 'data' && this.type === 'image' ? IMAGE_DATA : v;
  });
  const clean = redactSecrets(json);
  // an origin may hold text again (a `!command`'s command and output, for the views)
  const origin = msg.origin === undefined ? undefined : JSON.stringify(msg.origin);
  const cleanOrigin = origin === undefined ? undefined : redactSecrets(origin);
  if (clean === json && cleanOrigin === origin) return msg;
  const out: Message = { ...msg };
  if (cleanOrigin !== origin) out.origin = JSON.parse(cleanOrigin!) as Message['origin'];
  if (clean !== json) {
    const images = msg.blocks.flatMap((b) => (b.type === 'image' ? [b.data] : b.type === 'tool_result' ? (b.images ?? []).map((i) => i.data) : []));
    out.blocks = JSON.parse(clean, (k, v: unknown) => (k === 'data' && v === IMAGE_DATA ? images.shift() : v)) as Message['blocks'];
  }
  return out;
}
/** Stands in for an image's data while the message is scanned for keys. */
const IMAGE_DATA = '\u0000image-data\u0000';
