import type { AgentEvent, SessionEvent } from '../protocol/events.js';
import { runTurn, type TurnResult } from '../agent/loop.js';
import type { PermissionMode } from '../config/schema.js';
import { addUsage, emptyUsage, newId, textOf, type Message, type Usage } from '../llm/messages.js';
import type { Effort } from '../llm/provider.js';
import { redactSecrets } from '../log.js';
import type { NewSession, SessionInfo } from '../store/index.js';
import { assemble, type SessionOwner, type SessionParts } from './assemble.js';
import { ABORTED, givePromptBack, PromptTakenBack } from './promptBack.js';
import type { ContextUsageView, SessionView } from '../protocol/views.js';
import type { SessionDeps } from './sessionDeps.js';
import { newSessionRow, SessionEvents, sessionView } from './sessionEvents.js';
import { isShellNote, runShellNote } from './shellNote.js';
import { stateMeta, type SessionState } from './state.js';
import { expandPrompt, givenImages, markUnanswered, oversizedPrompt, personMessage } from './turnInput.js';
import type { TurnScope } from './turnScope.js';
export type { SessionDeps } from './sessionDeps.js';

/**
 * One live session: drives the loop for the TUI and print mode over its parts (assemble.ts builds
 * them: the log, the turn's frame, the compactor, the tool gate, the capabilities…) and answers the front ends.
 */
export class Session extends SessionEvents {
  readonly id: string;
  private readonly log: SessionParts['log'];
  private readonly frames: SessionParts['frames'];
  private readonly compactor: SessionParts['compactor'];
  private readonly gate: SessionParts['gate'];
  private readonly parts: SessionParts;
  private running: AbortController | undefined;
  private readonly cost: Record<string, Usage>;
  /** What opening the session had to fix in the stored history, for the person to read. */
  loadNotes: string[];
  /** /rewind and /uncompact: appended records the store derives the history from. */
  readonly edits: SessionParts['edits'];
  private readonly caps: SessionParts['caps'];
  readonly saving: SessionParts['log'];

  private constructor(
    private readonly deps: SessionDeps,
    resume?: SessionInfo,
  ) {
    super();
    const owner: SessionOwner = {
      emit: (e) => this.emit(e),
      notice: (level, text) => this.notice(level, text),
      describe: () => this.describe(),
      bill: (model, usage) => this.bill(model, usage),
      saveState: () => this.saveState(),
      busy: () => this.running !== undefined,
      historyReplaced: () => this.historyReplaced(),
      openChild: (childDeps) => Session.open(childDeps),
    };
    const p = assemble(deps, owner, resume);
    this.parts = p;
    this.id = p.id;
    this.cost = p.state.cost;
    this.saving = this.log = p.log;
    this.loadNotes = p.loadNotes;
    this.caps = p.caps;
    this.frames = p.frames;
    this.compactor = p.compactor;
    this.edits = p.edits;
    this.gate = p.gate;
  }

  /** A new session (stored on its first message), or a stored one resumed where it stood (SessionInUseError while another process writes it). */
  static open(deps: SessionDeps, resume?: SessionInfo): Session {
    return new Session(deps, resume);
  }

  /** The history as it stands; with `archived`, what compactions archived before it (the task list and the plan derive from that log). */
  messages(opts: { archived?: boolean } = {}): readonly Message[] {
    return opts.archived ? [...this.log.archived(), ...this.log.messages()] : this.log.messages();
  }

  view(): SessionView {
    return sessionView(this.id, this.log.sessionTitle, this.frames.current.config, this.gate.mode);
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  get currentConfig(): SessionDeps['config'] {
    return this.frames.current.config;
  }

  /** What the next request is sent with (the turn's frame: configuration, provider, system prompt, tools); a side question (/btw) is sent with it too. */
  frame(): SessionParts['frames']['current'] {
    return this.frames.current;
  }

  /** Runs one turn for a prompt. Resolves when the turn ends (never rejects for provider errors: they are events). */
  async prompt(asked: string, scope: TurnScope = {}): Promise<TurnResult> {
    const ac = this.begin();
    const refused = await oversizedPrompt(this.parts, this.parts.dry(), asked, ac.signal, this.parts.spill).catch(
      (e: unknown) => (this.end(), Promise.reject(e)),
    );
    // images handed over with the prompt (stream-json, ACP) are checked as a file's are: corrupt ones refuse it
    const images = await givenImages(scope.images, (n) => this.notice('info', n)).catch((e: unknown) => (this.end(), Promise.reject(e)));
    const why = refused ?? (typeof images === 'string' ? images : undefined);
    if (why) return (this.end(), this.emit({ type: 'prompt_refused', text: asked, message: why }), { ...ABORTED, reason: 'error' });
    await this.parts.changes.startTurn();
    // the last prompt got no reply: mark it, so it is not merged into this one
    if (this.markUnanswered())
      this.notice('info', 'Your previous message got no reply; it stays in the history marked as unanswered, and this one is sent as a new request.');
    this.parts.snapshots.reset();
    let turnId: string | undefined;
    try {
      this.gate.turnAllow = scope.allow ?? [];
      const { text, hooked } = await expandPrompt(this.parts, asked, scope, ac.signal, (e) => this.emit(e));
      if (ac.signal.aborted && this.giveBack(scope, asked, undefined, 'aborted', ac.signal)) return ABORTED;
      if (hooked.block !== undefined) return (this.notice('warning', hooked.block), { reason: 'blocked', steps: 0, usage: emptyUsage(), text: '' });
      const msg = await personMessage(this.parts, text, [...(typeof images === 'string' ? [] : images), ...hooked.blocks], ac.signal, (p) =>
        this.notice('warning', p),
      );
      if ('refused' in msg) return (this.emit({ type: 'prompt_refused', text: asked, message: msg.refused }), { ...ABORTED, reason: 'error' });
      // file snapshots taken in this turn belong to the person's message that started it
      this.parts.snapshots.startedBy(msg.id);
      // the project as it stands before the turn, and after it (checkpoints, for /rewind)
      turnId = msg.id;
      // (the snapshot before the turn runs before its first request: run alongside it, a TUI turn
      // in a full e2e run never ended; see docs/performance.md)
      await this.caps.turnBoundary('before', turnId);
      const result = await runTurn(this.compactor.loopHost(), this.parts.loopOptions(), msg, ac.signal, (e) => this.onAgentEvent(e));
      if (result.reason !== 'aborted') this.compactor.turnCompleted();
      this.giveBack(scope, asked, msg.id, result.reason, ac.signal);
      return result;
    } finally {
      this.gate.turnAllow = [];
      if (turnId !== undefined) await this.caps.turnBoundary('after', turnId);
      this.end();
    }
  }

  /** Marks a prompt left without a reply (a -p run whose reader went away mid-turn, or before the next prompt); false when there was none. */
  markUnanswered(): boolean {
    const reply = markUnanswered(this.log);
    if (reply) this.emit({ type: 'message', message: reply });
    return reply !== undefined;
  }

  /** /compact [focus], waiting for the summary (print mode, ACP; under the summary deadline). */
  compact(focus?: string): ReturnType<SessionParts['compactor']['manual']> {
    return this.exclusive((signal) => this.compactor.manual(focus, signal));
  }

  /** /compact [focus] in the TUI: written in the background, swapped in at the next boundary (false: compaction.background is off, use compact()). */
  compactInBackground(focus?: string): Promise<boolean> {
    return this.compactor.background.start(focus);
  }

  /** Esc or /compact cancel: stops a background compaction; false when none runs. */
  cancelCompaction(): boolean {
    return this.compactor.background.cancel();
  }

  /** A print run's end: a background compaction that is due is waited for and swapped in; nothing is left running. */
  settleCompaction(): Promise<void> {
    return this.compactor.background.settle();
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
      const msg = this.log.append(await runShellNote(this.parts.direct(), command, this.frames.current.config.cwd, signal, (e) => this.emit(e)));
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
    // a background compaction that settled during the turn is swapped in at rest now
    this.compactor.background.rested();
  }

  /** The gauge's figures: one function (the engine's usage) for the footer, /context, ACP and the statusLine. */
  contextUsage(): ContextUsageView {
    const usage = this.compactor.usage();
    return this.deps.counter.ready ? usage : { ...usage, rough: true };
  }

  /** Loads the tokenizer and sends the exact figures (a front end showing a gauge calls it at the start, so its first figure is the one /context shows). */
  async countExactly(): Promise<ContextUsageView> {
    const was = this.deps.counter.ready;
    await this.deps.counter.load();
    const usage = this.contextUsage();
    if (!was) this.emit({ type: 'context', usage });
    return usage;
  }

  /** What /context breaks down: the parts of the next request, counted exactly (the gauge follows if it was rough). */
  async contextParts() {
    const usage = await this.countExactly();
    const { system, specs } = this.frames.current;
    return { counter: this.deps.counter, system, tools: [...specs], history: this.log.messages(), usage };
  }

  /** The agents the Task tool offers (/agents), what each sub-agent used (/cost; in usageByModel too), a child's transcript (Ctrl+O). */
  subagentInfo(): ReturnType<SessionParts['subagentInfo']> {
    return this.parts.subagentInfo();
  }

  /** Usage by model, summaries included (/cost). */
  usageByModel(): Readonly<Record<string, Usage>> {
    return this.cost;
  }

  /** Bills a request's usage to the session (/cost): the loop's, a summary's, a side question's. */
  bill(model: string, usage: Usage): void {
    this.cost[model] = addUsage(this.cost[model] ?? emptyUsage(), usage);
  }

  /** The instruction files in force (/memory). */
  instructionFiles(): ReturnType<SessionParts['frames']['instructionFiles']> {
    return this.frames.instructionFiles();
  }

  /** The permission mode and the rules in force (/permissions). */
  permissions(): { mode: PermissionMode; rules: ReturnType<SessionParts['gate']['policy']['rules']> } {
    return { mode: this.gate.mode, rules: this.gate.policy.rules() };
  }

  /** Sets the permission mode for the rest of the session (Shift+Tab cycles with next: true). */
  setPermissionMode(mode: PermissionMode | 'next'): PermissionMode {
    return this.gate.setMode(mode);
  }

  /** /effort: the effort of the thinking from the next turn on (one configuration per turn, so never inside a tool loop). */
  setEffort(effort: Effort): string {
    return this.parts.changes.setEffort(effort);
  }

  /** Switches the model for the following turns (/model). */
  setModel(name: string): string {
    return this.parts.changes.setModel(name);
  }

  /** After a rewind or a revert: accounting restarts from estimates, the UI redraws. */
  private historyReplaced(): void {
    this.compactor.historyReplaced();
    this.saveState();
    this.emit({ type: 'history_reset' });
    this.emit({ type: 'context', usage: this.contextUsage() });
  }

  /** The session's archive, for the Recall tool and /history. */
  recallSource(): ReturnType<SessionParts['recall']> {
    return this.parts.recall();
  }

  /** The agent waits for the person (an approval, or idle at the prompt): Notification hooks hear of it. */
  attention(...[kind, message]: Parameters<SessionParts['caps']['attention']>): void {
    this.caps.attention(kind, message);
  }

  /** Every event, the loop's and the `!` shell's: what the sandbox denied a command is also kept as a record of its own (`agent sessions show`). */
  protected override emit(e: SessionEvent): void {
    const denied = e.type === 'tool_end' ? e.output.sandboxDenied : undefined;
    if (e.type === 'tool_end' && denied && !this.deps.store.readonly) {
      try {
        this.log.ensureStored();
        this.deps.store.sandboxViolations.save(this.id, { toolUseId: e.id, ...denied });
      } catch (err) {
        this.notice('warning', `Could not record what the sandbox denied: ${(err as Error).message}`);
      }
    }
    super.emit(e);
  }

  private onAgentEvent(e: AgentEvent): void {
    if (e.type === 'text_delta' || e.type === 'thinking_delta') e = { ...e, text: redactSecrets(e.text) };
    if (e.type === 'usage') this.bill(e.model, e.usage);
    this.emit(e);
    if (e.type === 'message') this.emit({ type: 'context', usage: this.contextUsage() });
  }

  private state(): SessionState {
    const capabilities = this.caps.state();
    return { version: 1, cost: this.cost, permissions: this.gate.policy.sessionState(), ...this.compactor.state(), ...(capabilities ? { capabilities } : {}) };
  }

  private saveState(): void {
    this.log.saveState(stateMeta(this.state()), this.contextUsage().tokens);
  }

  private describe(): NewSession {
    return newSessionRow(this.id, this.frames.current.config, stateMeta(this.state()), this.deps.child);
  }

  close(): void {
    void this.caps.close();
    this.compactor.background.close();
    this.interrupt();
    this.log.flush();
    this.saveState();
    this.log.close();
  }
}

// Pinned notes: user messages kept verbatim through every compaction (/pin, /pin list, /unpin).
export const PIN_HEADER = '[Pinned by the user: keep this in mind for the whole session]';

/** The message that pins `note`; throws when there is nothing to pin. */
function pinNote(note: string | undefined): Message {
  if (!note) throw new Error('nothing to pin yet: give the text, e.g. /pin always run the linter before committing');
  return { id: newId(), role: 'user', kind: 'normal', pinned: true, createdAt: Date.now(), blocks: [{ type: 'text', text: `${PIN_HEADER}\n${note}` }] };
}

/** The pinned notes of a history, oldest first, without their header. */
function pinsOf(history: readonly Message[]): Array<{ id: string; text: string }> {
  return history.filter((m) => m.pinned).map((m) => ({ id: m.id, text: textOf(m).replace(`${PIN_HEADER}\n`, '') }));
}

/** The person's last request (what /pin alone pins). */
function lastPrompt(history: readonly Message[]): string | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role === 'user' && m.kind === 'normal' && !m.pinned && m.blocks.every((b) => b.type === 'text') && !isShellNote(m)) return textOf(m);
  }
  return undefined;
}

/** The nth pinned note (1-based, /pin list's numbering); an error saying what there is when there is none. */
function nthPin(pins: Array<{ id: string; text: string }>, n: number): { id: string; text: string } {
  const target = pins[n - 1];
  if (!target) throw new Error(pins.length === 0 ? 'nothing is pinned' : `there is no pin ${n}: /pin list shows ${pins.length === 1 ? 'one' : pins.length}`);
  return target;
}
