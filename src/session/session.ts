import type { AgentEvent } from '../agent/events.js';
import { runTurn, type LoopOptions, type TurnResult } from '../agent/loop.js';
import type { InstructionFile } from '../agent/instructions.js';
import { otherDirectoryNote } from './cwdNote.js';
import { withoutTypedCommand } from './typedCommand.js';
import type { TokenCounter } from '../compaction/tokens.js';
import type { CompactionRecord } from '../history/compaction.js';
import type { Config } from '../config/config.js';
import type { PermissionMode } from '../config/schema.js';
import { addUsage, emptyUsage, newId, type Message, type Usage } from '../llm/messages.js';
import type { Effort, ToolSpec } from '../llm/provider.js';
import { redactSecrets } from '../log.js';
import type { NewSession, SessionInfo } from '../store/index.js';
import { FileTracker } from '../tools/fileTracker.js';
import type { PermissionPolicy } from '../tools/permissions.js';
import type { AnyTool, RecallSource, SpillSink } from '../tools/types.js';
import type { SessionDeps } from './sessionDeps.js';
import type { ContextUsageView, SessionView } from './protocol.js';
import { ContextControl } from './contextControl.js';
import { dateNoteFor } from './dateNote.js';
import { newSessionRow, SessionEvents, sessionView } from './sessionEvents.js';
import { mentionSpill, promptMessage } from './mentions.js';
import { oversizedPrompt } from './promptSize.js';
import { archiveRecall, archiveSpill } from './recall.js';
import { persistReads, rebuildTracker } from './trackerRebuild.js';
import { lastPrompt, nthPin, PIN_HEADER, pinNote, pinsOf } from './pins.js';
import { endsUnanswered, unansweredReply } from './repair.js';
import { HistoryEdits } from './historyEdits.js';
import { cacheKeyOf, loopSettings } from './loopSettings.js';
import { childDeps, childParent, parentOf, subagentInfo, Subagents, type SubagentInfo } from './children.js';
import { Capabilities } from './capabilities.js';
import type { AgentCatalog } from '../agents/agents.js';
import type { AttentionKind } from '../capability/capability.js';
import { SessionLog, type LogDeps, type Saving } from './sessionLog.js';
import { runShellNote } from './shellNote.js';
import { ABORTED, givePromptBack, PromptTakenBack } from './promptBack.js';
import { gatedShell, type TurnScope } from './turnScope.js';
import { turnHost } from './skillHost.js';
import { readState, stateMeta, type SessionState } from './state.js';
import { ToolGate } from './toolGate.js';
import { TurnSnapshots } from './turnSnapshots.js';
export { PIN_HEADER };
export type { SessionEvent } from './protocol.js';
export type { SessionDeps } from './sessionDeps.js';

/** One live session: drives the loop for the TUI and print mode over the log, the context control and the tool gate. */
export class Session extends SessionEvents {
  readonly id: string;
  private readonly log: SessionLog;
  private readonly context: ContextControl;
  private readonly gate: ToolGate;
  private running: AbortController | undefined;
  private readonly cost: Record<string, Usage>;
  /** What opening the session had to fix in the stored history, for the person to read. */
  loadNotes: string[] = [];
  /** What the model read and wrote in this session, for the edit tools' checks. */
  private readonly files: FileTracker;
  /** /rewind and /uncompact: appended records the store derives the history from. */
  readonly edits: HistoryEdits;
  private readonly snapshots: TurnSnapshots;
  /** The agents the Task tool offers (/agents) and their runner (Task's and a `context: fork` skill's), once a capability asked for one. */
  private sub: { catalog: AgentCatalog; runner: Subagents } | undefined;
  /** Where a large tool output goes whole (none for a read-only store). */
  private readonly spill: SpillSink | undefined;
  private readonly caps: Capabilities;
  /** The built-in tools and those of the capabilities for the whole session, in that order. */
  private readonly tools: readonly AnyTool[];
  readonly saving: Saving;

  private constructor(
    private readonly deps: SessionDeps,
    id: string,
    state: SessionState,
    openLog: (logDeps: LogDeps) => { log: SessionLog; notes: string[] },
  ) {
    super();
    this.id = id;
    this.files = new FileTracker(persistReads(deps.store, () => this.log));
    this.cost = state.cost;
    const notice = (level: 'info' | 'warning' | 'error', text: string): void => this.notice(level, text);
    const unsavedChanged = (count: number, error?: string): void => this.emit({ type: 'unsaved', count, ...(error ? { error } : {}) });
    const stored = (): void => this.files.flushPending();
    const opened = openLog({ ...deps, dbPath: deps.config.dbPath, notice, describe: () => this.describe(), stored, unsavedChanged });
    this.saving = this.log = opened.log;
    this.snapshots = new TurnSnapshots(deps.store, this.log);
    this.loadNotes = opened.notes;
    const turn = turnHost(() => ({ gate: this.gate, log: this.log, context: this.context, emit: (e) => this.emit(e) }));
    const host = { sessionId: id, resumed: this.log.messages().length > 0, subagents: (c: AgentCatalog) => this.subagents(c), turn, ...parentOf(deps.child) };
    this.caps = new Capabilities(deps.capabilities, host, state.capabilities);
    // a sub-agent gets the capabilities' tools its agent names (the Task tool below agents.maxDepth)
    const own = this.caps.tools().filter((t) => !deps.child || deps.child.toolNames.includes(t.name));
    this.tools = [...deps.tools, ...own];
    rebuildTracker(deps.store, id, this.log.messages(), this.files);
    this.context = new ContextControl(
      {
        sessionId: id,
        log: this.log,
        tools: this.tools,
        counter: deps.counter,
        providerFor: deps.providerFor,
        engine: deps.engine,
        emit: (e) => this.emit(e),
        notice,
        bill: (model, usage) => this.bill(model, usage),
        saveState: () => this.saveState(),
        ...(deps.child ? { role: deps.child.role } : {}),
        summaryInstructions: (trigger, focus, signal) => this.caps.summaryInstructions(this.context.config.compaction.instructions, trigger, focus, signal),
        compacted: (record) => this.caps.afterCompaction(record),
        skills: deps.skills,
        ledger: () => this.caps.ledgerSections(),
      },
      deps.config,
      deps.provider,
      state,
    );
    this.edits = new HistoryEdits({
      store: deps.store,
      sessionId: id,
      log: this.log,
      context: this.context,
      files: this.files,
      busy: () => this.running !== undefined,
      replaced: () => this.historyReplaced(),
    });
    const config = (): Config => this.context.config;
    this.gate = new ToolGate(config, state.permissions, this.caps.asking(deps.approver), (mode) => this.emit({ type: 'permission_mode', mode }));
    const sessionId = (): string => id;
    this.spill = deps.store.readonly ? undefined : archiveSpill(deps.store, sessionId, () => config().output);
  }

  /** The runner of this session's sub-agents (the sub-agent capability's Task tool closes over it). */
  private subagents(catalog: AgentCatalog): Subagents {
    if (this.sub?.catalog === catalog) return this.sub.runner;
    const runner = new Subagents({
      ...childParent(this.deps, this.id, catalog),
      tools: () => this.tools,
      changed: (s) => this.emit({ type: 'child', state: s }),
      config: () => this.context.config,
      policy: () => this.gate.policy,
      turnId: () => this.snapshots.turn ?? '',
      bill: (model, usage) => this.bill(model, usage),
      open: (spec) => Session.open(childDeps(this.deps, spec, this.context.provider, this.context.config)),
    });
    this.sub = { catalog, runner };
    return runner;
  }

  /** A new session (stored on its first message), or a stored one resumed where it stood. */
  static open(deps: SessionDeps, resume?: SessionInfo): Session {
    if (!resume) {
      const id = newId('s');
      return new Session(deps, id, readState(deps.child ? { permissions: deps.child.permissions } : {}, id), (logDeps) => ({
        log: SessionLog.create(id, logDeps),
        notes: [],
      }));
    }
    // one writer per session: throws SessionInUseError while another live process writes it
    const session = new Session(deps, resume.id, readState(resume.meta, resume.id), (logDeps) => SessionLog.resume(resume, logDeps));
    const moved = otherDirectoryNote(resume.id, resume.cwd, deps.config.cwd);
    if (moved) session.loadNotes.push(moved);
    return session;
  }

  /** The history as it stands; with `archived`, what compactions archived before it (the task list and the plan derive from that log). */
  messages(opts: { archived?: boolean } = {}): readonly Message[] {
    return opts.archived ? [...this.log.archived(), ...this.log.messages()] : this.log.messages();
  }

  view(): SessionView {
    return sessionView(this.id, this.log.sessionTitle, this.context.config, this.gate.mode);
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  get currentConfig(): Config {
    return this.context.config;
  }

  /** Runs one turn for a prompt. Resolves when the turn ends (never rejects for provider errors: they are events). */
  async prompt(asked: string, scope: TurnScope = {}): Promise<TurnResult> {
    const ac = this.begin();
    const refused = await oversizedPrompt(this.context, this.tools, asked, ac.signal, this.spill).catch((e: unknown) => (this.end(), Promise.reject(e)));
    if (refused) return (this.end(), this.emit({ type: 'prompt_refused', text: asked, message: refused }), { ...ABORTED, reason: 'error' });
    await this.context.startTurn();
    this.context.setExtraTools(this.caps.toolSet());
    // the last prompt got no reply: mark it, so it is not merged into this one
    if (this.markUnanswered())
      this.notice('info', 'Your previous message got no reply; it stays in the history marked as unanswered, and this one is sent as a new request.');
    this.snapshots.reset();
    try {
      this.gate.turnAllow = scope.allow ?? [];
      const text = scope.expand
        ? await scope.expand((c) => gatedShell(this.tools, this.gate, c, this.context.config.cwd, ac.signal, (e) => this.emit(e)))
        : asked;
      const hooked = await this.caps.beforePrompt(withoutTypedCommand(text), ac.signal);
      if (ac.signal.aborted && this.giveBack(scope, asked, undefined, 'aborted', ac.signal)) return ABORTED;
      if (hooked.block !== undefined) return (this.notice('warning', hooked.block), { reason: 'blocked', steps: 0, usage: emptyUsage(), text: '' });
      const note = dateNoteFor(this.log.messages());
      if (note) this.log.append(note);
      const typed = await promptMessage(text, {
        tools: this.tools,
        cwd: this.context.config.cwd,
        files: this.files,
        signal: ac.signal,
        warn: (p) => this.notice('warning', p),
        spill: mentionSpill(this.spill, this.contextUsage().effectiveWindow),
      });
      const msg = { ...typed, blocks: [...typed.blocks, ...(scope.images ?? []), ...hooked.blocks] };
      // file snapshots taken in this turn belong to the person's message that started it
      this.snapshots.startedBy(msg.id);
      const result = await runTurn(this.context.loopHost(), this.loopOptions(), msg, ac.signal, (e) => this.onAgentEvent(e));
      if (result.reason !== 'aborted') this.context.turnCompleted();
      this.giveBack(scope, asked, msg.id, result.reason, ac.signal);
      return result;
    } finally {
      this.gate.turnAllow = [];
      this.end();
    }
  }

  /** Marks a prompt left without a reply (a -p run whose reader went away mid-turn, or before the next prompt); false when there was none. */
  markUnanswered(): boolean {
    if (!endsUnanswered(this.log.messages())) return false;
    this.emit({ type: 'message', message: this.log.append(unansweredReply()) });
    return true;
  }

  compact(focus?: string): Promise<CompactionRecord> {
    return this.exclusive((signal) => this.context.manual(focus, signal));
  }

  /** Names the session when it has no title yet (/init names it "/init", not the long instruction it sends). */
  titleIfUntitled(title: string): void {
    this.log.titleIfUntitled(title);
  }

  /** Pins a note (or, without text, the person's last request) into the history: pinned messages survive every compaction verbatim. */
  pin(text?: string): Message {
    if (this.running) throw new Error('wait for the current turn to end before pinning');
    const msg = this.log.append(pinNote(text?.trim() || lastPrompt(this.log.messages())));
    this.emit({ type: 'message', message: msg });
    this.emit({ type: 'context', usage: this.contextUsage() });
    return msg;
  }

  /** `!command`: runs it in the shell now and keeps the output as a note for the model's next turn (see shellNote.ts). */
  shell(command: string): Promise<Message> {
    return this.exclusive(async (signal) => {
      const msg = this.log.append(await runShellNote(this.tools, command, this.context.config.cwd, signal, (e) => this.emit(e)));
      this.emit({ type: 'message', message: msg });
      return msg;
    });
  }

  /** The pinned notes, oldest first (/pin list). */
  pins(): Array<{ id: string; text: string }> {
    return pinsOf(this.log.messages());
  }

  /** Unpins the nth pinned note (1-based, /pin list's numbering): it stays in the history and is compacted like the rest. */
  unpin(n: number): string {
    if (this.running) throw new Error('wait for the current turn to end before unpinning');
    const target = nthPin(this.pins(), n);
    this.log.unpin(target.id);
    return target.text;
  }

  /** Interrupts the running turn or compaction; false when nothing runs. `takeBack` (Esc): a prompt without a reply goes back to the input (promptBack.ts). */
  interrupt(takeBack = false): boolean {
    if (!this.running) return false;
    this.running.abort(takeBack ? new PromptTakenBack() : new Error('interrupted by the user'));
    return true;
  }

  private giveBack(scope: TurnScope, asked: string, messageId: string | undefined, reason: TurnResult['reason'], signal: AbortSignal): boolean {
    return givePromptBack({ edits: this.edits, emit: (e) => this.emit(e) }, { wanted: scope.giveBack === true, asked, messageId, reason, signal });
  }

  /** Runs work that no turn may overlap (a compaction, a shell note), interruptible like a turn. */
  private async exclusive<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const ac = this.begin();
    try {
      return await work(ac.signal);
    } finally {
      this.end();
    }
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
    // counted exactly now: the gauge, which showed the cheap upper bound until then, shows what /context shows
    const usage = this.contextUsage();
    this.emit({ type: 'context', usage });
    return { counter: this.deps.counter, system: this.context.systemPrompt, tools: [...this.context.tools], history: this.log.messages(), usage };
  }

  /** The agents the Task tool offers (/agents), what each sub-agent used (/cost; in usageByModel too), a child's transcript (Ctrl+O). */
  subagentInfo(): SubagentInfo {
    return subagentInfo(this.sub?.catalog, this.deps.store, this.id, this.log.isStored);
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

  /** /effort: the effort of the thinking from the next turn on (one configuration per turn, so never inside a tool loop). */
  setEffort(effort: Effort): string {
    return this.context.setEffort(effort);
  }

  /** Switches the model for the following turns (/model). */
  setModel(name: string): string {
    return this.context.setModel(name);
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

  private loopOptions(): LoopOptions {
    return {
      ...loopSettings(this.context.config),
      provider: this.context.provider,
      tools: this.context.allTools,
      gate: { authorize: (call, signal, pre) => this.gate.authorize(call, signal, pre) },
      recall: this.recallSource(),
      ...(this.spill ? { spill: this.spill } : {}),
      cacheKey: cacheKeyOf(this.id, this.deps.child),
      files: this.files,
      beforeFileChange: (abs, prior, mode) => this.snapshots.before(abs, prior, mode),
      ...(this.deps.io ? { io: this.deps.io } : {}),
      ...this.caps.loopOption(),
    };
  }

  /** The agent waits for the person (an approval, or idle at the prompt): Notification hooks hear of it. */
  attention(kind: AttentionKind, message: string): void {
    this.caps.attention(kind, message);
  }

  private onAgentEvent(e: AgentEvent): void {
    if (e.type === 'text_delta' || e.type === 'thinking_delta') e = { ...e, text: redactSecrets(e.text) };
    if (e.type === 'usage') this.bill(e.model, e.usage);
    this.emit(e);
    if (e.type === 'message') this.emit({ type: 'context', usage: this.contextUsage() });
  }

  private state(): SessionState {
    const capabilities = this.caps.state();
    return { version: 1, cost: this.cost, permissions: this.gate.policy.sessionState(), ...this.context.state(), ...(capabilities ? { capabilities } : {}) };
  }

  private saveState(): void {
    this.log.saveState(stateMeta(this.state()), this.contextUsage().tokens);
  }

  private describe(): NewSession {
    return newSessionRow(this.id, this.context.config, stateMeta(this.state()), this.deps.child);
  }

  close(): void {
    void this.caps.close();
    this.interrupt();
    this.log.flush();
    this.saveState();
    this.log.close();
  }
}
