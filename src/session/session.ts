import type { AgentEvent } from '../agent/events.js';
import { runTurn, type LoopHost, type LoopOptions, type TurnResult } from '../agent/loop.js';
import type { InstructionFile } from '../agent/instructions.js';
import type { EngineDeps } from '../compaction/engine.js';
import type { TokenCounter } from '../compaction/tokens.js';
import type { CompactionRecord } from '../compaction/types.js';
import type { Config } from '../config/config.js';
import type { PermissionMode } from '../config/schema.js';
import { addUsage, emptyUsage, newId, type Message, type Usage } from '../llm/messages.js';
import type { Provider, ToolSpec } from '../llm/provider.js';
import { debug, redactSecrets } from '../log.js';
import type { NewSession, SessionInfo, Store } from '../store/index.js';
import { FileTracker } from '../tools/fileTracker.js';
import type { Approver, PermissionPolicy } from '../tools/permissions.js';
import type { AnyTool, RecallSource } from '../tools/types.js';
import type { ContextUsageView, SessionEvent, SessionView } from './protocol.js';
import { ContextControl } from './contextControl.js';
import { dateNoteFor } from './dateNote.js';
import { promptMessage } from './mentions.js';
import { archiveRecall, archiveSpill } from './recall.js';
import { persistReads, rebuildTracker } from './trackerRebuild.js';
import { lastPrompt, PIN_HEADER, pinNote, pinsOf } from './pins.js';
import { endsUnanswered, unansweredReply } from './repair.js';
import { rewindTargets, rewindTo, type RewindResult, type RewindTarget, type RewindWhat } from './rewind.js';
import { SessionLog, type LogDeps } from './sessionLog.js';
import { runShellNote } from './shellNote.js';
import { readState, stateMeta, type SessionState } from './state.js';
import { ToolGate } from './toolGate.js';
import { TurnSnapshots } from './turnSnapshots.js';
import { planFor, planRewindUndo, uncompactTargets, type RewindUndoPlan, type UncompactPlan, type UncompactTarget } from './uncompact.js';

export { PIN_HEADER };

export type { SessionEvent } from './protocol.js';

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

/**
 * One live session. It drives the loop for the TUI and print mode and composes the parts
 * that do the work: the log (history and persistence), the context control (compaction,
 * system prompt, the provider's window) and the tool gate (permissions).
 */
export class Session {
  readonly id: string;
  private readonly log: SessionLog;
  private readonly context: ContextControl;
  private readonly gate: ToolGate;
  private readonly listeners = new Set<(e: SessionEvent) => void>();
  private running: AbortController | undefined;
  private readonly cost: Record<string, Usage>;
  /** What opening the session had to fix in the stored history, for the person to read. */
  loadNotes: string[] = [];
  /** What the model read and wrote in this session, for the edit tools' checks. */
  private readonly files: FileTracker;
  private readonly snapshots: TurnSnapshots;

  private constructor(
    private readonly deps: SessionDeps,
    id: string,
    state: SessionState,
    openLog: (logDeps: LogDeps) => { log: SessionLog; notes: string[] },
  ) {
    this.id = id;
    this.files = new FileTracker(persistReads(deps.store, () => this.id));
    this.cost = state.cost;
    const notice = (level: 'info' | 'warning' | 'error', text: string): void => this.notice(level, text);
    const opened = openLog({ store: deps.store, counter: deps.counter, dbPath: deps.config.dbPath, notice, describe: () => this.describe() });
    this.log = opened.log;
    this.snapshots = new TurnSnapshots(deps.store, this.log);
    this.loadNotes = opened.notes;
    rebuildTracker(deps.store, id, this.log.messages(), this.files);
    this.context = new ContextControl(
      {
        sessionId: id,
        log: this.log,
        tools: deps.tools,
        counter: deps.counter,
        providerFor: deps.providerFor,
        engine: deps.engine,
        emit: (e) => this.emit(e),
        notice,
        bill: (model, usage) => this.bill(model, usage),
        saveState: () => this.saveState(),
      },
      deps.config,
      deps.provider,
      state,
    );
    this.gate = new ToolGate(() => this.context.config, state.permissions, deps.approver, (mode) => this.emit({ type: 'permission_mode', mode }));
  }

  /** A new session (stored on its first message), or a stored one resumed where it stood. */
  static open(deps: SessionDeps, resume?: SessionInfo): Session {
    if (!resume) {
      const id = newId('s');
      return new Session(deps, id, readState({}, id), (logDeps) => ({ log: SessionLog.create(id, logDeps), notes: [] }));
    }
    // one writer per session: throws SessionInUseError while another live process writes it
    return new Session(deps, resume.id, readState(resume.meta, resume.id), (logDeps) => SessionLog.resume(resume, logDeps));
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
    return this.log.messages();
  }

  view(): SessionView {
    const c = this.context.config;
    return { id: this.id, title: this.log.sessionTitle, model: c.model.name, provider: c.provider, cwd: c.cwd, permissionMode: this.gate.mode };
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  get currentConfig(): Config {
    return this.context.config;
  }

  /** Runs one turn for a prompt. Resolves when the turn ends (never rejects for provider errors: they are events). */
  async prompt(text: string): Promise<TurnResult> {
    const ac = this.begin();
    this.context.startTurn();
    if (endsUnanswered(this.log.messages())) {
      // the last prompt got no reply: mark it, so it is not merged into this one
      const marker = this.log.append(unansweredReply());
      this.emit({ type: 'message', message: marker });
      this.notice('info', 'Your previous message got no reply; it stays in the history marked as unanswered, and this one is sent as a new request.');
    }
    this.snapshots.reset();
    try {
      const note = dateNoteFor(this.log.messages());
      if (note) this.log.append(note);
      const msg = await promptMessage(text, { tools: this.deps.tools, cwd: this.context.config.cwd, files: this.files, signal: ac.signal, warn: (p) => this.notice('warning', p) });
      // file snapshots taken in this turn belong to the person's message that started it
      this.snapshots.startedBy(msg.id);
      const result = await runTurn(this.loopHost(), this.loopOptions(), msg, ac.signal, (e) => this.onAgentEvent(e));
      if (result.reason !== 'aborted') this.context.turnCompleted();
      return result;
    } finally {
      this.end();
    }
  }

  /** Manual compaction (/compact [focus]). */
  async compact(focus?: string): Promise<CompactionRecord> {
    const ac = this.begin();
    try {
      return await this.context.manual(focus, ac.signal);
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
    const msg = this.log.append(pinNote(text?.trim() || lastPrompt(this.log.messages())));
    this.emit({ type: 'message', message: msg });
    this.emit({ type: 'context', usage: this.contextUsage() });
    return msg;
  }

  /** `!command`: runs it in the shell now and keeps the output as a note for the model's next turn (see shellNote.ts). */
  async shell(command: string): Promise<Message> {
    const ac = this.begin();
    try {
      const note = await runShellNote(this.deps.tools, command, this.context.config.cwd, ac.signal, (e) => this.emit(e));
      const msg = this.log.append(note);
      this.emit({ type: 'message', message: msg });
      return msg;
    } finally {
      this.end();
    }
  }

  /** The pinned notes, oldest first (/pin list). */
  pins(): Array<{ id: string; text: string }> {
    return pinsOf(this.log.messages());
  }

  /** Unpins the nth pinned note (1-based, /pin list's numbering): it stays in the history and is compacted like the rest. */
  unpin(n: number): string {
    if (this.running) throw new Error('wait for the current turn to end before unpinning');
    const pins = this.pins();
    const target = pins[n - 1];
    if (!target) throw new Error(pins.length === 0 ? 'nothing is pinned' : `there is no pin ${n}: /pin list shows ${pins.length === 1 ? 'one' : pins.length}`);
    this.log.unpin(target.id);
    return target.text;
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
    this.saveState();
    this.emit({ type: 'context', usage: this.contextUsage() });
  }

  contextUsage(): ContextUsageView {
    return this.context.usage();
  }

  /** What /context breaks down: the parts of the next request. The tokenizer is loaded first. */
  async contextParts(): Promise<{ counter: TokenCounter; system: string; tools: ToolSpec[]; history: readonly Message[]; usage: ContextUsageView }> {
    await this.deps.counter.load();
    return { counter: this.deps.counter, system: this.context.systemPrompt, tools: [...this.context.tools], history: this.log.messages(), usage: this.contextUsage() };
  }

  /** Usage by model, summaries included (/cost). */
  usageByModel(): Readonly<Record<string, Usage>> {
    return this.cost;
  }

  private bill(model: string, usage: Usage): void {
    this.cost[model] = addUsage(this.cost[model] ?? emptyUsage(), usage);
  }

  /** The instruction files in force (/memory). */
  instructionFiles(): readonly InstructionFile[] {
    return this.context.instructionFiles();
  }

  /** The permission mode and the rules in force (/permissions). */
  permissions(): { mode: PermissionMode; rules: ReturnType<PermissionPolicy['rules']> } {
    return { mode: this.gate.mode, rules: this.gate.policy.rules() };
  }

  /** Sets the permission mode for the rest of the session (Shift+Tab cycles with next: true). */
  setPermissionMode(mode: PermissionMode | 'next'): PermissionMode {
    return this.gate.setMode(mode);
  }

  /** Switches the model for the following turns (/model). */
  setModel(name: string): string {
    return this.context.setModel(name);
  }

  // ---- /rewind and /uncompact: appended records the store derives the history from ------

  /** The person's turns, oldest first, with the files a rewind to each would restore. */
  rewindTargets(): RewindTarget[] {
    this.log.flush();
    return rewindTargets(this.deps.store, this.id, this.log.messages(), this.context.config.cwd, this.log.isStored);
  }

  /**
   * Goes back to before a turn: its files as they were before it (code), and/or the
   * conversation without it and what followed (archived, still searchable).
   */
  async rewind(ref: string, what: RewindWhat): Promise<RewindResult> {
    if (this.running) throw new Error('wait for the current turn to end (or press Esc) before rewinding');
    const done = await rewindTo({ store: this.deps.store, sessionId: this.id, cwd: this.context.config.cwd, files: this.files, log: this.log }, this.rewindTargets(), ref, what);
    if (what !== 'code') this.historyReplaced();
    return done;
  }

  /** Compactions /uncompact can undo, oldest first. */
  uncompactTargets(): UncompactTarget[] {
    this.log.flush();
    return this.log.isStored ? uncompactTargets(this.deps.store.compactionsInEffect(this.id)) : [];
  }

  /**
   * Undoes a compaction (the last one, or the one named), with every compaction after it, when
   * what it archived fits; `newest` brings back only that many of its newest archived messages.
   */
  async uncompact(ref?: string, newest?: number): Promise<UncompactPlan> {
    if (this.running) throw new Error('wait for the current turn to end (or press Esc) before undoing a compaction');
    const plan = await planFor(this.planDeps(), this.uncompactTargets(), ref, newest);
    return this.revertBy(plan);
  }

  /** `/rewind undo`: the last conversation rewind undone by the same kind of record as /uncompact (files are not touched). */
  async undoRewind(): Promise<RewindUndoPlan> {
    if (this.running) throw new Error('wait for the current turn to end (or press Esc) before undoing a rewind');
    this.log.flush();
    const rewinds = this.log.isStored ? this.deps.store.rewindsInEffect(this.id) : [];
    return this.revertBy(await planRewindUndo(this.planDeps(), rewinds));
  }

  private planDeps(): Parameters<typeof planFor>[0] {
    return { store: this.deps.store, sessionId: this.id, current: this.log.messages(), tokensWith: (h) => this.context.tokensWith(h), limits: this.context.limits() };
  }

  private revertBy<P extends UncompactPlan | RewindUndoPlan>(plan: P): P {
    if (!plan.ok) return plan;
    this.log.revert(plan.req);
    this.historyReplaced();
    return plan;
  }

  /** After a rewind or a revert: accounting restarts from estimates, the UI redraws. */
  private historyReplaced(): void {
    this.context.historyReplaced();
    this.saveState();
    this.emit({ type: 'history_reset' });
    this.emit({ type: 'context', usage: this.contextUsage() });
  }

  /** The session's archive, for the Recall tool and /history. */
  recallSource(): RecallSource {
    return archiveRecall(this.deps.store, this.id, () => this.context.config.recall.crossSession);
  }

  // ---- the loop's host -------------------------------------------------------------

  private loopHost(): LoopHost {
    return {
      history: () => this.log.messages(),
      append: (msg) => this.log.append(msg),
      systemPrompt: () => this.context.systemPrompt,
      maxOutputTokens: () => this.context.config.maxOutputTokens,
      ...this.context.loopHooks(),
    };
  }

  private loopOptions(): LoopOptions {
    const config = this.context.config;
    return {
      provider: this.context.provider,
      model: config.model.name,
      tools: this.deps.tools,
      gate: { authorize: (call, signal) => this.gate.authorize(call, signal) },
      maxSteps: config.maxSteps,
      retry: config.retry,
      giveUpAfterMs: config.timeouts.totalMs,
      maxOutputRecoveries: config.compaction.maxOutputRecoveries,
      cwd: config.cwd,
      recall: this.recallSource(),
      ...(this.deps.store.readonly ? {} : { spill: archiveSpill(this.deps.store, () => this.id, () => this.context.config.output) }),
      cacheKey: this.id,
      files: this.files,
      beforeFileChange: (abs, prior, mode) => this.snapshots.before(abs, prior, mode),
    };
  }

  private onAgentEvent(e: AgentEvent): void {
    if (e.type === 'text_delta') e = { ...e, text: redactSecrets(e.text) };
    if (e.type === 'usage') this.bill(e.model, e.usage);
    this.emit(e);
    if (e.type === 'message') this.emit({ type: 'context', usage: this.contextUsage() });
  }

  // ---- saved state -------------------------------------------------------------------

  private state(): SessionState {
    return { version: 1, cost: this.cost, permissions: this.gate.policy.sessionState(), ...this.context.state() };
  }

  private saveState(): void {
    this.log.saveState(stateMeta(this.state()), this.contextUsage().tokens);
  }

  /** The row a new session is stored with on its first message. */
  private describe(): NewSession {
    const c = this.context.config;
    return { id: this.id, cwd: c.cwd, provider: c.provider, model: c.model.name, meta: stateMeta(this.state()) };
  }

  close(): void {
    this.interrupt();
    this.log.flush();
    this.saveState();
    this.log.close();
  }
}
