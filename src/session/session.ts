import type { AgentEvent } from '../agent/events.js';
import { runTurn, type Authorization, type GateCall, type LoopHost, type LoopOptions, type TurnResult } from '../agent/loop.js';
import { loadInstructions, renderInstructions, type InstructionFile } from '../agent/instructions.js';
import { buildSystemPrompt } from '../agent/systemPrompt.js';
import { CompactionEngine, type CompactionOutcome, type EngineDeps } from '../compaction/engine.js';
import type { TokenCounter } from '../compaction/tokens.js';
import type { CompactionEvent, CompactionRecord } from '../compaction/types.js';
import { withModel, type Config } from '../config/config.js';
import type { OverflowInfo, ProviderError } from '../llm/errors.js';
import { addUsage, emptyUsage, newId, textOf, totalInputTokens, userMessage, type Message, type Usage } from '../llm/messages.js';
import type { Provider, ToolSpec } from '../llm/provider.js';
import { mayTruncateSilently } from '../llm/cache.js';
import { debug, redactSecrets } from '../log.js';
import type { SessionInfo, Store } from '../store/index.js';
import { FileTracker } from '../tools/fileTracker.js';
import { isInside } from '../tools/paths.js';
import { PermissionPolicy } from '../tools/permissions.js';
import type { Approver } from '../tools/permissions.js';
import { ReadBoundary } from '../tools/readBoundary.js';
import { toolSpec, type AnyTool, type RecallSource } from '../tools/types.js';
import type { PermissionMode } from '../config/schema.js';
import { findTarget, restoreSnapshots, REWIND_ID_PREFIX, rewindTargets, type RestoredFile, type RewindTarget, type RewindWhat } from './rewind.js';
import type { CommandOutput, ContextUsageView, CostRow, SessionView } from './protocol.js';
import { contextBreakdown } from './breakdown.js';
import { dateNoteFor } from './dateNote.js';
import { costBreakdown } from './pricing.js';
import { SessionLease } from './lease.js';
import { endsUnanswered, repairHistory, unansweredReply } from './repair.js';
import { attachMentions } from './mentions.js';
import { parseShellNote, runShellNote } from './shellNote.js';

export const PIN_HEADER = '[Pinned by the user: keep this in mind for the whole session]';

/** How long a provider keeps a prompt-cache entry without a hit (OpenAI: at least 5 minutes). */
const CACHE_TTL_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;

/** Replies shorter than this are not useful; a learned small window still leaves this much. */
const MIN_REPLY_TOKENS = 1_024;

export type SessionEvent =
  | AgentEvent
  | CompactionEvent
  | { type: 'context'; usage: ContextUsageView }
  | { type: 'notice'; level: 'info' | 'warning' | 'error'; text: string }
  /** The permission mode changed (Shift+Tab, "accept edits for the session"). */
  | { type: 'permission_mode'; mode: PermissionMode }
  /** The visible history was replaced (a /rewind of the conversation): redraw it from messages(). */
  | { type: 'history_reset' };

export interface SessionDeps {
  config: Config;
  store: Store;
  provider: Provider;
  tools: readonly AnyTool[];
  counter: TokenCounter;
  /** Asks the person before a tool that needs approval; absent in print mode (such calls are refused). */
  approver?: Approver;
  /** Creates a provider for another provider family (/model, a compaction.model of the other family); `purpose` names who asked. */
  providerFor?: (config: Config, purpose?: string) => Provider;
  /** Engine settings for tests and benchmarks: its clock, the micro compaction policy. */
  engine?: Pick<EngineDeps, 'now' | 'microPolicy'>;
}

/** What is saved in the session row's meta so a resumed session keeps its state. */
interface SessionMeta {
  compaction?: unknown;
  cost?: Record<string, Usage>;
  permissions?: unknown;
  /** A window the provider revealed (an overflow error, a silent truncation), smaller than configured. */
  providerWindow?: { model: string; tokens: number };
  /** A silent overflow seen after the last reply of a turn: compact before the next request. */
  pendingOverflow?: OverflowInfo;
}

/**
 * One live session: the visible history, its persistence, the compaction tiers around
 * every model call, and permissions. The TUI and print mode drive it; it drives the loop.
 */
export class Session {
  readonly id: string;
  private config: Config;
  private provider: Provider;
  private history: Message[];
  private engine: CompactionEngine;
  private readonly policy: PermissionPolicy;
  /** Where FileRead, Grep and Glob may read without asking. */
  private readonly readBoundary: ReadBoundary;
  private system: string;
  private readonly toolSpecs: ToolSpec[];
  private readonly listeners = new Set<(e: SessionEvent) => void>();
  private running: AbortController | undefined;
  private stored: boolean;
  private title: string | null;
  /** Messages whose write failed (disk full, read-only): kept in memory, retried on the next write. */
  private unsaved: Array<{ msg: Message; tokens: number | null }> = [];
  /** The last write failed: the person has been told, and is told again when writes recover. */
  private saveFailing = false;
  private cost: Record<string, Usage>;
  private reactiveThisTurn = 0;
  /** Set when a reply showed the server silently truncated the prompt: compact before the next call. */
  private silentOverflow: OverflowInfo | undefined;
  private providerWindow: { model: string; tokens: number } | undefined;
  /** This process's write lease on the session (taken when it is resumed or first stored). */
  private lease: SessionLease | undefined;
  /** What opening the session had to fix in the stored history, for the person to read. */
  loadNotes: string[] = [];
  /** The instruction files the system prompt was last built with (/memory). */
  private instructions: InstructionFile[] = [];
  /** What the model read and wrote in this session, for the edit tools' checks. */
  private readonly files = new FileTracker();
  /** The user message that started the running turn: file snapshots belong to it. */
  private turnId: string | undefined;
  /** Files already snapshotted in the running turn. */
  private readonly snapshotted = new Set<string>();

  private constructor(
    private readonly deps: SessionDeps,
    info: SessionInfo | undefined,
    history: Message[],
  ) {
    this.config = deps.config;
    this.provider = deps.provider;
    this.id = info?.id ?? newId('s');
    this.stored = info !== undefined;
    this.title = info?.title ?? null;
    this.history = history;
    const meta = (info?.meta ?? {}) as SessionMeta;
    this.cost = meta.cost ?? {};
    this.policy = new PermissionPolicy(this.config.permissions, meta.permissions);
    this.readBoundary = new ReadBoundary({ cwd: this.config.cwd, readPaths: this.config.permissions.readPaths });
    this.toolSpecs = deps.tools.map(toolSpec);
    this.system = this.buildSystem();
    this.engine = this.createEngine(meta.compaction);
    if (meta.pendingOverflow) this.silentOverflow = meta.pendingOverflow;
    if (meta.providerWindow?.model === this.config.model.name) this.adoptProviderWindow(meta.providerWindow.tokens, true);
  }

  /** A new session (stored on its first message), or a stored one resumed where it stood. */
  static open(deps: SessionDeps, resume?: SessionInfo): Session {
    if (!resume) return new Session(deps, undefined, []);
    // one writer per session: throws SessionInUseError while another live process writes it
    let session: Session | undefined;
    const lease = SessionLease.acquire(deps.store, resume.id, () => session?.leaseLost());
    try {
      const entries = deps.store.loadVisibleEntries(resume.id);
      for (const e of entries) if (e.tokens !== null) deps.counter.prime(e.message, e.tokens);
      let visible = entries.map((e) => e.message);
      // a history the provider would refuse (a crash, two writers, an old database) is repaired first
      const repair = repairHistory(visible);
      if (repair) {
        const clean = { messages: repair.messages.map(withoutSecrets), added: repair.added.map(withoutSecrets), replaced: repair.replaced.map(withoutSecrets) };
        // counts only once the tokenizer is loaded (it loads lazily); null counts are filled in when needed
        deps.store.rewriteVisible(resume.id, clean, deps.counter.ready ? (m) => deps.counter.countMessage(m) : undefined);
        visible = clean.messages;
        debug('repaired the stored history on load', { session: resume.id, notes: repair.notes });
      }
      session = new Session(deps, resume, visible);
      session.lease = lease;
      if (repair) session.loadNotes = [`Repaired the stored history of session ${resume.id}: ${repair.notes.join('; ')}.`];
      return session;
    } catch (e) {
      lease.release();
      throw e;
    }
  }

  /** Another process took the lease over (this one was silent too long): stop writing, say so. */
  private leaseLost(): void {
    this.notice(
      'error',
      `Another agent process took over session ${this.id} (this one was unresponsive too long). Nothing more is saved here; quit and resume it, or start a new session.`,
    );
  }

  on(listener: (e: SessionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(e: SessionEvent): void {
    for (const l of this.listeners) l(e);
  }

  notice(level: 'info' | 'warning' | 'error', text: string): void {
    debug(`notice ${level}: ${text}`);
    this.emit({ type: 'notice', level, text });
  }

  messages(): readonly Message[] {
    return this.history;
  }

  view(): SessionView {
    return { id: this.id, title: this.title, model: this.config.model.name, provider: this.config.provider, cwd: this.config.cwd, permissionMode: this.policy.mode };
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  get currentConfig(): Config {
    return this.config;
  }

  /** Runs one turn for a prompt. Resolves when the turn ends (never rejects for provider errors: they are events). */
  async prompt(text: string): Promise<TurnResult> {
    const ac = this.begin();
    this.reactiveThisTurn = 0;
    if (endsUnanswered(this.history)) {
      // the last prompt got no reply: mark it, so it is not merged into this one
      const marker = this.append(unansweredReply());
      this.emit({ type: 'message', message: marker });
      this.notice('info', 'Your previous message got no reply; it stays in the history marked as unanswered, and this one is sent as a new request.');
    }
    this.snapshotted.clear();
    try {
      const note = dateNoteFor(this.history);
      if (note) this.append(note);
      const msg = await this.withAttachments(text, ac.signal);
      // file snapshots taken in this turn belong to the person's message that started it
      this.turnId = msg.id;
      const result = await runTurn(this.loopHost(), this.loopOptions(), msg, ac.signal, (e) => this.onAgentEvent(e));
      if (result.reason !== 'aborted') this.engine.turnCompleted();
      return result;
    } finally {
      this.end();
    }
  }

  /** The prompt's message, with the files and directories it @mentions attached (mentions.ts). */
  private async withAttachments(text: string, signal: AbortSignal): Promise<Message> {
    const msg = userMessage(text);
    if (!text.includes('@')) return msg;
    // the files go through FileRead's run with the session's tracker: an @mentioned file counts as read for Edit
    const { blocks, problems } = await attachMentions(text, this.deps.tools, this.config.cwd, signal, this.files);
    for (const p of problems) this.notice('warning', p);
    return blocks.length > 0 ? { ...msg, blocks: [...msg.blocks, ...blocks] } : msg;
  }

  /** Manual compaction (/compact [focus]). */
  async compact(focus?: string): Promise<CompactionRecord> {
    const ac = this.begin();
    try {
      const [record] = await this.compaction((emit) => this.engine.manual(this.ctx(), focus, ac.signal, emit));
      return record!;
    } finally {
      this.end();
    }
  }

  /**
   * Pins a note (or, without text, the person's last request) into the history: pinned
   * messages survive every compaction verbatim.
   */
  pin(text?: string): Message {
    if (this.running) throw new Error('wait for the current turn to end before pinning');
    const note = text?.trim() || this.lastPrompt();
    if (!note) throw new Error('nothing to pin yet: give the text, e.g. /pin always run the linter before committing');
    const msg = this.append({
      id: newId(),
      role: 'user',
      kind: 'normal',
      pinned: true,
      createdAt: Date.now(),
      blocks: [{ type: 'text', text: `${PIN_HEADER}\n${note}` }],
    });
    this.emit({ type: 'message', message: msg });
    this.emit({ type: 'context', usage: this.contextUsage() });
    return msg;
  }

  /** `!command`: runs it in the shell now and keeps the output as a note for the model's next turn (see shellNote.ts). */
  async shell(command: string): Promise<Message> {
    const ac = this.begin();
    try {
      const note = await runShellNote(this.deps.tools, command, this.config.cwd, ac.signal, (e) => this.emit(e));
      const msg = this.append(note);
      this.emit({ type: 'message', message: msg });
      return msg;
    } finally {
      this.end();
    }
  }

  /** The pinned notes, oldest first (/pin list). */
  pins(): Array<{ id: string; text: string }> {
    return this.history.filter((m) => m.pinned).map((m) => ({ id: m.id, text: textOf(m).replace(`${PIN_HEADER}\n`, '') }));
  }

  /** Unpins the nth pinned note (1-based, /pin list's numbering): it stays in the history and is compacted like the rest. */
  unpin(n: number): string {
    if (this.running) throw new Error('wait for the current turn to end before unpinning');
    const pins = this.pins();
    const target = pins[n - 1];
    if (!target) throw new Error(pins.length === 0 ? 'nothing is pinned' : `there is no pin ${n}: /pin list shows ${pins.length === 1 ? 'one' : pins.length}`);
    if (!this.flush()) throw new Error('the database cannot be written, so the pin was kept');
    this.deps.store.setPinned(this.id, target.id, false);
    this.history = this.history.map((m) => {
      if (m.id !== target.id) return m;
      const { pinned: _pinned, ...rest } = m;
      return rest;
    });
    return target.text;
  }

  private lastPrompt(): string | undefined {
    for (let i = this.history.length - 1; i >= 0; i--) {
      const m = this.history[i]!;
      if (m.role === 'user' && m.kind === 'normal' && !m.pinned && m.blocks.every((b) => b.type === 'text') && !parseShellNote(textOf(m))) return textOf(m);
    }
    return undefined;
  }

  /** Interrupts the running turn or compaction; false when nothing runs. */
  interrupt(): boolean {
    if (!this.running) return false;
    this.running.abort(new Error('interrupted by the user'));
    return true;
  }

  private begin(): AbortController {
    if (this.running) throw new Error('the session is busy: wait for the current turn, or interrupt it first');
    const ac = new AbortController();
    this.running = ac;
    return ac;
  }

  private end(): void {
    this.running = undefined;
    this.saveMeta();
    this.emit({ type: 'context', usage: this.contextUsage() });
  }

  contextUsage(): ContextUsageView {
    return this.engine.usage(this.ctx());
  }

  async contextBreakdown(): Promise<CommandOutput> {
    await this.deps.counter.load();
    return contextBreakdown(this.deps.counter, this.system, this.toolSpecs, this.history, this.contextUsage());
  }

  costRows(): CommandOutput {
    const rows: CostRow[] = Object.entries(this.cost).map(([model, usage]) => {
      const cost = costBreakdown(model, usage);
      return cost === undefined
        ? { model, usage }
        : { model, usage, usd: cost.total, cost: { input: cost.input, output: cost.output, cacheRead: cost.cacheRead, cacheWrite: cost.cacheWrite } };
    });
    const priced = rows.filter((r) => r.usd !== undefined);
    return priced.length > 0 ? { kind: 'cost', rows, totalUsd: priced.reduce((s, r) => s + (r.usd ?? 0), 0) } : { kind: 'cost', rows };
  }

  /** The instruction files in force (/memory). */
  instructionFiles(): readonly InstructionFile[] {
    return this.instructions;
  }

  permissionRules(): CommandOutput {
    return { kind: 'permissions', mode: this.policy.mode, rules: this.policy.rules() };
  }

  /** Sets the permission mode for the rest of the session (Shift+Tab cycles with next: true). */
  setPermissionMode(mode: PermissionMode | 'next'): PermissionMode {
    const modes = this.policy.cycleModes();
    const next = mode === 'next' ? modes[(modes.indexOf(this.policy.mode) + 1) % modes.length]! : mode;
    this.policy.setMode(next);
    this.emit({ type: 'permission_mode', mode: next });
    return next;
  }

  // ---- /rewind -----------------------------------------------------------------------

  /** The person's turns, oldest first, with the files a rewind to each would restore. */
  rewindTargets(): RewindTarget[] {
    this.flush();
    return rewindTargets(this.deps.store, this.id, this.history, this.config.cwd, this.stored);
  }

  /**
   * Goes back to before a turn: its files as they were before it (code), and/or the
   * conversation without it and what followed (archived, still searchable).
   */
  async rewind(ref: string, what: RewindWhat): Promise<{ target: RewindTarget; files: RestoredFile[]; archived: number }> {
    if (this.running) throw new Error('wait for the current turn to end (or press Esc) before rewinding');
    const target = findTarget(this.rewindTargets(), ref);
    if (!target) throw new Error(`no turn "${ref}" to rewind to: give its number from /rewind`);
    if (what !== 'code' && !target.inConversation) {
      const why = target.gone === 'rewound' ? 'was taken out of the conversation by an earlier rewind' : 'was compacted into a summary';
      throw new Error(`turn ${target.index} ${why}, so the conversation cannot go back to it; its code can be restored with /rewind ${target.index} code`);
    }
    let files: RestoredFile[] = [];
    if (what !== 'conversation') {
      const snapshots = this.deps.store.snapshotsSince(this.id, target.turnId);
      files = await restoreSnapshots(snapshots, this.config.cwd);
      // the model must read them again before changing them
      for (const s of snapshots) this.files.forget(s.path);
    }
    let archived = 0;
    if (what !== 'code') {
      const at = this.history.findIndex((m) => m.id === target.turnId);
      archived = this.deps.store.rewindConversation(this.id, { id: newId(REWIND_ID_PREFIX), turnId: target.turnId, createdAt: Date.now() }).length;
      this.history = this.history.slice(0, at);
      // what the model read may have left the conversation with the rewound turns: it reads again before editing
      this.files.clear();
      this.engine.historyReplaced();
      this.saveMeta();
      this.emit({ type: 'history_reset' });
      this.emit({ type: 'context', usage: this.contextUsage() });
    }
    return { target, files, archived };
  }

  /** Stores a file's prior state before its first change in the running turn. */
  private async snapshot(abs: string, prior: Buffer | undefined, mode: number | undefined): Promise<void> {
    const turnId = this.turnId;
    if (!turnId || this.snapshotted.has(abs)) return;
    if (!this.flush()) throw new Error('the database cannot be written, so the change could not be snapshotted for /rewind');
    this.deps.store.saveSnapshot(this.id, { turnId, path: abs, content: prior ?? null, mode: mode ?? null });
    this.snapshotted.add(abs);
  }

  /** Switches the model for the following turns (/model). */
  setModel(name: string): string {
    const next = withModel(this.config, name);
    const { model, provider } = next;
    // everything that can fail (a missing key) before anything changes
    const nextProvider = provider === this.config.provider ? this.provider : this.otherProvider(next, `/model ${model.name}`);
    const engine = this.createEngine(this.engine.state(), next, nextProvider);
    this.provider = nextProvider;
    this.config = next;
    this.engine = engine;
    this.system = this.buildSystem();
    if (this.stored) this.safeStore(() => this.deps.store.updateSession(this.id, { model: model.name, provider }));
    this.emit({ type: 'context', usage: this.contextUsage() });
    return model.source === 'default'
      ? `Switched to ${model.name} (unknown model: assuming a ${model.contextWindow.toLocaleString('en-US')}-token window; describe it under "models" in .agentrc).`
      : `Switched to ${model.name} (${provider}, ${model.contextWindow.toLocaleString('en-US')}-token window).`;
  }

  /**
   * The provider stated a window smaller than the model table or .agentrc says (a local server
   * started with a small context, a proxy): believe it for the rest of the session, so the
   * gauge and the compaction thresholds follow the real limit.
   */
  private adoptProviderWindow(limit: number | undefined, resumed = false): void {
    const model = this.config.model;
    if (limit === undefined || limit <= 0 || limit >= model.contextWindow) return;
    const maxOutput = Math.min(this.config.maxOutputTokens, Math.max(MIN_REPLY_TOKENS, Math.floor(limit / 4)));
    this.config = { ...this.config, model: { ...model, contextWindow: limit }, maxOutputTokens: maxOutput };
    this.providerWindow = { model: model.name, tokens: limit };
    this.engine = this.createEngine(this.engine.state());
    if (resumed) return;
    this.notice(
      'warning',
      `The provider says ${model.name} has a ${limit.toLocaleString('en-US')}-token context window (configured: ${model.contextWindow.toLocaleString('en-US')}). ` +
        `Using ${limit.toLocaleString('en-US')} for this session, replies up to ${maxOutput.toLocaleString('en-US')} tokens. ` +
        `Set models["${model.name}"].contextWindow in .agentrc to make it permanent.`,
    );
  }

  /** The session's archive, for the Recall tool and /history. */
  recallSource(): RecallSource {
    const store = this.deps.store;
    const scope = (): { sessionId?: string } => (this.config.recall.crossSession ? {} : { sessionId: this.id });
    return {
      search: (query, opts) =>
        store.searchArchive(query, { ...scope(), limit: opts.limit, offset: opts.offset }).map((h) => ({
          id: h.id,
          label: h.label,
          snippet: h.snippet,
          sessionId: h.sessionId,
          createdAt: h.createdAt,
        })),
      get: (id) => {
        const found = store.getArchived(id, scope());
        return found ? { id: found.id, label: found.label, text: found.text } : undefined;
      },
    };
  }

  // ---- the loop's host -------------------------------------------------------------

  private loopHost(): LoopHost {
    return {
      history: () => this.history,
      append: (msg) => this.append(msg),
      systemPrompt: () => this.system,
      maxOutputTokens: () => this.config.maxOutputTokens,
      beforeModelCall: async (signal) => {
        const overflow = this.silentOverflow;
        if (overflow) {
          this.silentOverflow = undefined;
          await this.compaction((emit) => this.engine.reactive(this.ctx(), overflow, 1, signal, emit));
        }
        await this.compaction((emit) => this.engine.beforeCall(this.ctx(), signal, emit));
      },
      noteOverflow: (err) => this.adoptProviderWindow(err.overflow?.limit),
      recoverFromOverflow: async (err, signal) => this.recoverFromOverflow(err, signal),
      afterResponse: (req, done) => {
        const check = this.engine.observeResponse({ system: req.system, tools: req.tools, messages: req.messages }, totalInputTokens(done.usage));
        if (check.silentOverflow) {
          this.notice('warning', `Context overflow: ${check.silentOverflow}. The conversation will be compacted before the next request.`);
          if (check.overflow) {
            this.silentOverflow = check.overflow;
            this.adoptProviderWindow(check.overflow.limit);
          }
        }
      },
    };
  }

  private loopOptions(): LoopOptions {
    return {
      provider: this.provider,
      model: this.config.model.name,
      tools: this.deps.tools,
      gate: { authorize: (call, signal) => this.authorize(call, signal) },
      maxSteps: this.config.maxSteps,
      retry: this.config.retry,
      giveUpAfterMs: this.config.timeouts.totalMs,
      maxOutputRecoveries: this.config.compaction.maxOutputRecoveries,
      cwd: this.config.cwd,
      recall: this.recallSource(),
      cacheKey: this.id,
      files: this.files,
      beforeFileChange: (abs, prior, mode) => this.snapshot(abs, prior, mode),
    };
  }

  private onAgentEvent(e: AgentEvent): void {
    if (e.type === 'text_delta') e = { ...e, text: redactSecrets(e.text) };
    if (e.type === 'usage') {
      this.cost[e.model] = addUsage(this.cost[e.model] ?? emptyUsage(), e.usage);
    }
    this.emit(e);
    if (e.type === 'message') this.emit({ type: 'context', usage: this.contextUsage() });
  }

  /** Reactive compaction; the engine counts the attempts of this turn against maxReactiveAttempts. */
  private async recoverFromOverflow(err: ProviderError, signal: AbortSignal): Promise<boolean> {
    const attempt = ++this.reactiveThisTurn;
    const [record] = await this.compaction((emit) => this.engine.reactive(this.ctx(), err.overflow, attempt, signal, emit));
    return record?.status === 'applied';
  }

  private async authorize(call: GateCall, signal: AbortSignal): Promise<Authorization> {
    const { tool, input, summary, toolUseId } = call;
    if (tool.readOnly) {
      const read = await this.readBoundary.authorize({ toolName: tool.name, toolUseId, input, summary }, this.policy.mode, this.deps.approver, signal);
      if (read) return read;
    }
    const cwd = this.config.cwd;
    const file = call.abs !== undefined ? { abs: call.abs, cwd } : undefined;
    const outside = file !== undefined && !isInside(cwd, file.abs);
    const decision = this.policy.decide(tool, input, file);
    if (decision === 'allow') return { ok: true };
    if (decision === 'deny') {
      return { ok: false, message: `${tool.name} is not allowed here (permissions mode "deny"); the call was not run. Do not retry it; find another way or ask the user.` };
    }
    if (!this.deps.approver) {
      const how = tool.editsFiles
        ? outside
          ? `${summary} is outside the working directory, and such edits run without asking only with --permission-mode allow`
          : 'The user can allow edits with --permission-mode acceptEdits (or allow)'
        : 'The user can allow it with --permission-mode allow, or list it in permissions.allowTools / permissions.allowBash in .agentrc';
      return { ok: false, message: `${tool.name} needs the user's approval, and nobody can approve in non-interactive mode, so it was not run: ${summary}. ${how}.` };
    }
    const prefix = tool.name === 'Bash' ? this.policy.suggestPrefix(summary) : undefined;
    const answer = await this.deps.approver(
      {
        toolName: tool.name,
        toolUseId,
        input,
        summary,
        ...(prefix ? { suggestedPrefix: prefix } : {}),
        ...(tool.name === 'Bash' && !prefix ? { onceOnly: true } : {}),
        ...(call.diff ? { diff: call.diff } : {}),
        ...(outside ? { outsideCwd: true } : {}),
      },
      signal,
    );
    const before = this.policy.mode;
    this.policy.remember(tool, answer);
    if (this.policy.mode !== before) this.emit({ type: 'permission_mode', mode: this.policy.mode });
    if (answer.kind === 'deny') {
      const said = answer.note ? ` and said: ${answer.note}` : '';
      if (answer.stop) return { ok: false, stop: true, message: `The user denied this ${tool.name} call${said}, and stopped the turn: wait for their next message.` };
      return { ok: false, message: `The user denied this ${tool.name} call${said || '.'}` };
    }
    return { ok: true };
  }

  // ---- history, persistence ----------------------------------------------------------

  private ctx(): { system: string; tools: readonly ToolSpec[]; history: readonly Message[] } {
    return { system: this.system, tools: this.toolSpecs, history: this.history };
  }

  private append(raw: Message): Message {
    const msg = withoutSecrets(raw);
    this.history.push(msg);
    this.persist(msg);
    return msg;
  }

  private persist(msg: Message): void {
    // without the tokenizer loaded the count is left for later (a resume counts it when needed)
    const tokens = this.deps.counter.ready ? this.deps.counter.countMessage(msg) : null;
    this.unsaved.push({ msg, tokens });
    this.flush();
  }

  /** Writes what is pending, in order. A failure keeps it in memory and tells the person once per failure streak. */
  private flush(): boolean {
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
      if (this.saveFailing) this.notice('info', 'The database accepts writes again; every pending message is saved.');
      this.saveFailing = false;
      return true;
    } catch (e) {
      if (!this.saveFailing) {
        this.saveFailing = true;
        this.notice(
          'error',
          `Could not save to ${this.config.dbPath}: ${(e as Error).message}. The session goes on in memory and saving is retried with every message; nothing has been lost yet, but it will be if you quit before the disk recovers.`,
        );
      }
      return false;
    }
  }

  private ensureStored(): void {
    if (this.stored) return;
    this.deps.store.createSession({
      id: this.id,
      cwd: this.config.cwd,
      provider: this.config.provider,
      model: this.config.model.name,
      meta: this.meta(),
    });
    this.stored = true;
    this.lease = SessionLease.acquire(this.deps.store, this.id, () => this.leaseLost());
  }

  private meta(): Record<string, unknown> {
    return {
      compaction: this.engine.state(),
      cost: this.cost,
      permissions: this.policy.sessionState(),
      ...(this.providerWindow ? { providerWindow: this.providerWindow } : {}),
      ...(this.silentOverflow ? { pendingOverflow: this.silentOverflow } : {}),
    };
  }

  private saveMeta(): void {
    if (!this.stored || this.lease?.lost) return;
    this.safeStore(() => this.deps.store.updateSession(this.id, { meta: this.meta(), contextTokens: this.contextUsage().tokens }));
  }

  private safeStore(write: () => void): void {
    try {
      write();
    } catch (e) {
      debug('store write failed', { error: (e as Error).message });
    }
  }

  /**
   * Runs one engine call and applies its outcomes. The engine's compaction_end events are
   * held back until the outcome is applied (store first, in one transaction, then memory), so
   * a compaction the database refused is reported as failed, never as a receipt.
   */
  private async compaction(run: (emit: (e: CompactionEvent) => void) => Promise<CompactionOutcome | CompactionOutcome[]>): Promise<CompactionRecord[]> {
    const ended = new Set<string>();
    const result = await run((e) => {
      if (e.type === 'compaction_end') ended.add(e.record.id);
      else this.emit(e);
    });
    const outcomes = Array.isArray(result) ? result : [result];
    // what the summarizer consumed is billed like any request: /cost counts it
    for (const { record } of outcomes) if (record.model && totalInputTokens(record.usage) + record.usage.outputTokens > 0) this.cost[record.model] = addUsage(this.cost[record.model] ?? emptyUsage(), record.usage);
    return outcomes.map((o) => {
      const record = this.applyOutcome(o);
      if (ended.has(o.record.id)) this.emit({ type: 'compaction_end', record });
      return record;
    });
  }

  /** Applies a successful compaction, or records a failed one; returns the record as it ended. */
  private applyOutcome(outcome: CompactionOutcome): CompactionRecord {
    const { record, change } = outcome;
    if (!change) {
      if (this.stored) this.safeStore(() => this.deps.store.recordCompactionFailure(this.id, record));
      return record;
    }
    const refuse = (why: string): CompactionRecord => {
      const failed: CompactionRecord = { ...record, status: 'failed', reason: `${why}; nothing was changed` };
      delete failed.summary;
      this.safeStore(() => this.deps.store.recordCompactionFailure(this.id, failed));
      return failed;
    };
    if (!this.flush()) return refuse('the database cannot be written');
    try {
      this.ensureStored();
      this.deps.store.applyCompaction(this.id, change, (m) => this.deps.counter.countMessage(m));
    } catch (e) {
      return refuse(`it could not be saved (${(e as Error).message})`);
    }
    this.history = [...change.messages];
    this.engine.applied(change);
    if (record.trigger !== 'micro') this.system = this.buildSystem();
    this.saveMeta();
    this.emit({ type: 'context', usage: this.contextUsage() });
    return record;
  }

  private buildSystem(): string {
    this.instructions = loadInstructions(this.config.cwd);
    const agentsMd = renderInstructions(this.instructions, this.config.cwd);
    return buildSystemPrompt({
      cwd: this.config.cwd,
      platform: `${process.platform} (${process.arch})`,
      model: this.config.model.name,
      tools: this.toolSpecs,
      ...(agentsMd ? { agentsMd } : {}),
    });
  }

  /**
   * The summarizer is compaction.model (default the session's model). A model of the other
   * provider family (a cheap OpenAI model summarizing a Claude session, say) gets its own provider.
   */
  private createEngine(state: unknown, config = this.config, provider = this.provider): CompactionEngine {
    const summarizerModel = config.compaction.model ?? config.model.name;
    // the session's own model keeps the limits this session learned (a window the provider stated)
    const summarizerConfig = summarizerModel === config.model.name ? config : withModel(config, summarizerModel);
    const summarizerProvider = summarizerConfig.provider === config.provider ? provider : this.otherProvider(summarizerConfig, `compaction.model "${summarizerModel}"`);
    return new CompactionEngine(
      {
        config: config.compaction,
        limits: config.model,
        summarizer: { provider: summarizerProvider, model: summarizerModel, limits: summarizerConfig.model, retry: config.retry },
        counter: this.deps.counter,
        compactableTools: this.deps.tools.filter((t) => t.compactable).map((t) => t.name),
        describeToolUse: (name, input) => this.describeToolUse(name, input),
        readFile: (path) => readForRestore(this.config.cwd, path),
        silentOverflowDetection: mayTruncateSilently(provider),
        inPlaceSummary: summarizerModel === config.model.name && config.cache.enabled ? { cacheKey: this.id } : undefined,
        cacheTtlMs: config.cache.enabled ? CACHE_TTL_MS[config.cache.ttl] : undefined,
        ...this.deps.engine,
      },
      state,
    );
  }

  private otherProvider(config: Config, purpose: string): Provider {
    if (!this.deps.providerFor) throw new Error(`${purpose}: cannot reach ${config.provider} from this session`);
    return this.deps.providerFor(config, purpose);
  }

  /** The tool's own key argument (a command, a path), for placeholders and archive labels. */
  private describeToolUse(name: string, input: Record<string, unknown>): string {
    const tool = this.deps.tools.find((t) => t.name === name);
    if (!tool) return '';
    try {
      return tool.summarize(tool.parse(input));
    } catch {
      return '';
    }
  }

  close(): void {
    this.interrupt();
    this.flush();
    this.saveMeta();
    this.lease?.release();
  }
}

/** The API key in use never enters the history (and so neither the database nor later requests), even if typed or echoed. */
function withoutSecrets(msg: Message): Message {
  const json = JSON.stringify(msg.blocks);
  const clean = redactSecrets(json);
  return clean === json ? msg : { ...msg, blocks: JSON.parse(clean) as Message['blocks'] };
}

async function readForRestore(cwd: string, path: string): Promise<string | undefined> {
  const { readFile, stat } = await import('node:fs/promises');
  const { resolve } = await import('node:path');
  const full = resolve(cwd, path);
  try {
    const s = await stat(full);
    if (!s.isFile() || s.size > 2_000_000) return undefined;
    const buf = await readFile(full);
    if (buf.subarray(0, 8000).includes(0)) return undefined;
    return buf.toString('utf8');
  } catch {
    return undefined;
  }
}
