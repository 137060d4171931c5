import { world } from './runtime/world.js';
import type { Runtime } from './bootstrap.js';
import { CommandError, commandInfos, findCommand, isCommandLine, parseSlash, runSlash, type AppActions } from './commands/registry.js';
import { historyPage } from './commands/history.js';
import { debug } from './log.js';
import { mcpStatus } from './mcp/command.js';
import { sandboxBadge } from './sandbox/status.js';
import { FileIndex } from './session/fileIndex.js';
import { terminatingSignal } from './processes/signals.js';
import type { Session } from './session/session.js';
import type { ApprovalBridge } from './approvalBridge.js';
import type { ApprovalRequest } from './tools/permissions.js';
import { exitLine } from './background/notice.js';
import { withoutSecrets } from './config/secrets.js';
import type { SpilledOutputView, UiController } from './ui/controller.js';
import type { CommandInfo, ContextUsageView, HistoryPage, SessionListItem, SessionView, ViewData, ViewName } from './protocol/views.js';
import type { Event } from './protocol/events.js';

// The UiController the Ink app renders, implemented over the live session (interactive.ts runs
// the app with it). Business logic stays in the session and the command registry.

/** How long the prompt waits after a turn before Notification hooks hear that the agent is idle. */
const IDLE_NOTICE_MS = 60_000;

export class SessionController implements UiController {
  private readonly listeners = new Set<(e: Event) => void>();
  private readonly observers = new Set<(e: Event) => void>();
  private unsubscribe: () => void = () => {};
  private queue: string[] = [];
  private working = false;
  private draining: Promise<void> = Promise.resolve(); // the queue's run while working: exit() waits for the turn it interrupts
  private closed = false;

  constructor(
    private readonly runtime: Runtime,
    private readonly approvals: ApprovalBridge,
  ) {
    approvals.emit = (e) => this.emit(e);
    approvals.notices = (message) => this.emit({ type: 'provider_notice', text: message });
    this.attach(runtime.session);
    runtime.goals.subscribe((id, goal) => id === this.current.id && this.emit({ type: 'goal', goal: goal ?? null }));
  }

  private get current(): Session {
    return this.runtime.session;
  }

  private attach(session: Session): void {
    this.unsubscribe();
    const goal = this.runtime.goals.of(session.id);
    this.unsubscribe = session.on((e) => {
      goal?.observe(e);
      if (e.type !== 'history_reset') return this.emit(e);
      // a /rewind of the conversation: the app redraws the transcript from the shortened history
      this.emit({ type: 'session', session: session.view(), transcript: [...session.messages()], compactions: this.safeCompactions(session.id) });
    });
    // the footer's first figure is the exact one (it says "counting context…" until then), so it moves only with a request
    session.countExactly().catch(() => {});
  }

  cyclePermissionMode(): void {
    this.current.setPermissionMode('next');
  }

  /** The capabilities' views of the current session, and the session's own (a sub-agent's transcript). */
  viewOf<K extends ViewName>(name: K, key = ''): ViewData[K] | undefined {
    const own: { [N in ViewName]?: () => ViewData[N] | undefined } = { child: () => this.current.subagentInfo().transcript(key) };
    return (own[name] ?? (() => this.runtime.views[name]?.(this.current, key)))();
  }

  press(key: string): boolean {
    const bound = this.runtime.keys.find((k) => k.key === key);
    const notice = bound?.press(this.current);
    if (notice) this.notify('info', notice);
    return bound !== undefined;
  }

  /** Events sent before the app subscribed (start-up warnings, a first prompt) wait here. */
  private early: Event[] = [];

  /** The statusLine command's new first line, for the footer. */
  showStatusCommand(line: string): void {
    this.emit({ type: 'status_command', line });
  }

  private emit(e: Event): void {
    for (const o of this.observers) o(e);
    if (this.listeners.size === 0) {
      this.early.push(e);
      return;
    }
    for (const l of this.listeners) {
      try {
        l(e);
      } catch (err) {
        debug('ui listener failed', { error: (err as Error).message });
      }
    }
  }

  session(): SessionView {
    const mcp = mcpStatus(this.runtime.mcp);
    const sandbox = sandboxBadge(this.runtime.sandbox?.status);
    const goal = this.runtime.goals.of(this.current.id)?.view()?.footer;
    return { ...this.current.view(), ...(mcp ? { mcp } : {}), ...(sandbox ? { sandbox } : {}), ...(goal ? { goal } : {}) };
  }

  /**
   * Starts the MCP servers once the app is on screen (the first frame never waits for them):
   * their state goes to the footer, their notices to the transcript, and a project server not
   * yet approved is put to the person in the approval prompt.
   */
  startMcp(): void {
    // the footer counts the background commands that run (any session's: a sub-agent's too)
    const bg = this.runtime.background;
    bg.subscribe(() => this.closed || this.emit({ type: 'background_status', text: bg.running().length > 0 ? `${bg.running().length} background` : '' }));
    // a command that exits while the person waits at the prompt (a dev server crashing) is told at once
    bg.onExit((r) => this.closed || this.notify(r.code === 0 && !r.signal ? 'info' : 'warning', exitLine(r)));
    const mcp = this.runtime.mcp;
    if (!mcp || this.closed) return;
    mcp.onNotice = (level, text) => this.notify(level, text);
    mcp.on(() => {
      if (!this.closed) this.emit({ type: 'mcp_status', text: mcpStatus(mcp) ?? '' });
    });
    mcp.start();
    this.emit({ type: 'mcp_status', text: mcpStatus(mcp) ?? '' });
    void this.askMcpApprovals(mcp);
  }

  private async askMcpApprovals(mcp: NonNullable<Runtime['mcp']>): Promise<void> {
    for (const s of mcp.awaitingApproval()) {
      if (this.closed) return;
      const request: ApprovalRequest = {
        toolName: `MCP server "${s.name}"`,
        toolUseId: `mcp-approval-${s.name}`,
        input: {},
        summary: s.runs,
        projectCode: { what: 'mcp', name: s.name, file: s.file, changed: s.changed },
      };
      try {
        const d = await this.approvals.approver(request, new AbortController().signal);
        if (d.kind === 'allow_tool') mcp.approve(s.name, true);
        else if (d.kind === 'allow_once') mcp.approve(s.name, false);
        else mcp.decline(s.name);
      } catch {
        mcp.decline(s.name);
      }
    }
  }

  initialTranscript() {
    return [...this.current.messages()];
  }

  editorEnv(): NodeJS.ProcessEnv {
    return withoutSecrets(this.current.currentConfig, world().env);
  }

  /** A follower beside the app (the statusLine): every event from now on; the early ones stay the app's. */
  observe(observer: (ev: Event) => void): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  subscribe(listener: (ev: Event) => void): () => void {
    this.listeners.add(listener);
    const early = this.early;
    this.early = [];
    for (const e of early) this.emit(e);
    return () => this.listeners.delete(listener);
  }

  submit(text: string): void {
    const input = text.trim();
    if (!input) return;
    this.runtime.promptHistory.add(input);
    const slash = isCommandLine(input, this.runtime.commands, this.runtime.slash) ? parseSlash(input) : undefined;
    if (slash && findCommand(slash.name, this.runtime.slash)?.whileBusy) {
      // a goal set or resumed while nothing runs starts its turns now
      void this.runOne(input).then(() => void (slash.name === 'goal' && this.drain()));
      return;
    }
    // the app holds prompts typed while it works; what still arrives mid-turn waits here, in order
    this.queue.push(input);
    void this.drain();
  }

  private drain(): Promise<void> {
    if (!this.working) this.draining = this.drainQueue();
    return this.draining;
  }

  private async drainQueue(): Promise<void> {
    this.working = true;
    this.emit({ type: 'busy', busy: true });
    try {
      // the person's input first; then, while the goal wants more, its next turn (what they type meanwhile goes first)
      for (let next = this.queue.shift(); !this.closed; next = this.queue.shift()) {
        if (next !== undefined) await this.runOne(next);
        else if ((next = await this.runtime.goals.next(this.current.id, this.current.permissions().mode === 'plan')) === undefined) break;
        else if (this.queue.length === 0) await this.current.prompt(next).catch((e: Error) => this.notify('error', e.message));
      }
    } finally {
      this.working = false;
      if (!this.closed) this.emit({ type: 'busy', busy: false });
      this.armIdleNotice();
    }
  }

  private async runOne(input: string): Promise<void> {
    try {
      if (isCommandLine(input, this.runtime.commands, this.runtime.slash)) {
        const output = await runSlash(
          {
            session: this.current,
            app: this.actions(),
            custom: this.runtime.commands,
            toolNames: this.runtime.toolNames,
            more: this.runtime.slash,
            sandbox: this.runtime.sandbox,
          },
          input,
        );
        if (output) this.emit({ type: 'command_output', command: input, output });
        return;
      }
      if (input.startsWith('!')) {
        const command = input.slice(1).trim();
        if (!command) throw new CommandError('type a shell command after ! (for example: !git status)');
        await this.current.shell(command);
        return;
      }
      // a prompt that gets no reply comes back to the input (prompt_returned), out of the conversation
      await this.current.prompt(input, { giveBack: true });
    } catch (e) {
      const message = e instanceof CommandError ? e.message : `${(e as Error).message}`;
      this.emit({ type: 'notice', level: 'error', text: message });
    }
  }

  spilledOutput(handle: string): SpilledOutputView | undefined {
    const s = this.runtime.store.spilled.get(this.current.id, handle);
    return s ? { text: s.content, totalChars: s.totalChars } : undefined;
  }

  private idleTimer: NodeJS.Timeout | undefined;

  /** Notification hooks hear when the prompt has waited for the person this long after a turn (as Claude Code's idle_prompt). */
  private armIdleNotice(): void {
    clearTimeout(this.idleTimer);
    if (this.closed) return;
    const session = this.current;
    this.idleTimer = setTimeout(() => {
      if (!this.working && !this.closed && session === this.current) session.attention('idle_prompt', 'agent is waiting for your input');
    }, IDLE_NOTICE_MS);
    this.idleTimer.unref();
  }

  searchArchive(query: string, page: number): HistoryPage {
    return historyPage(this.current, query, page);
  }

  /** Ids of the sessions with a message (or a cleared output) matching `query`: the --resume picker's content filter. */
  searchSessions(query: string): string[] {
    try {
      return [...new Set(this.runtime.store.searchArchive(query, { limit: 1000, offset: 0 }).map((h) => h.sessionId))];
    } catch {
      return []; // nothing searchable in what was typed (only punctuation)
    }
  }

  private actions(): AppActions {
    return {
      clear: async () => {
        await this.switchTo(await this.runtime.openSession());
      },
      resume: (id) => this.resume(id),
      listSessions: () => this.listSessions(),
      exit: () => this.exit(),
    };
  }

  private listSessions(): SessionListItem[] {
    return this.runtime.store.listSessions({ limit: 200 }).map((s) => ({
      id: s.id,
      title: s.title,
      cwd: s.cwd,
      updatedAt: s.updatedAt,
      messageCount: s.messageCount,
      contextTokens: s.contextTokens,
    }));
  }

  private async switchTo(next: Session): Promise<void> {
    const previous = this.current;
    previous.close();
    this.runtime.session = next;
    this.attach(next);
    const compactions = next.id === previous.id ? [] : this.safeCompactions(next.id);
    this.emit({ type: 'session', session: next.view(), transcript: [...next.messages()], compactions });
    this.emit({ type: 'context', usage: next.contextUsage() });
    if (next.id !== previous.id) for (const note of next.loadNotes) this.emit({ type: 'notice', level: 'info', text: note });
  }

  private safeCompactions(id: string) {
    try {
      return this.runtime.store.listCompactions(id);
    } catch {
      return [];
    }
  }

  notify(level: 'info' | 'warning' | 'error', text: string): void {
    this.emit({ type: 'notice', level, text });
  }

  cancelCompaction(): boolean {
    return this.current.cancelCompaction();
  }

  interrupt(opts: { takeBack?: boolean } = {}): boolean {
    const dropped = this.queue.length;
    this.queue = [];
    const interrupted = this.current.interrupt(opts.takeBack === true) || this.runtime.goals.of(this.current.id)?.interrupt() === true;
    if (dropped > 0) this.emit({ type: 'notice', level: 'info', text: `Dropped ${dropped} queued prompt${dropped === 1 ? '' : 's'}.` });
    return interrupted || dropped > 0;
  }

  commands(): CommandInfo[] {
    return commandInfos(this.runtime.commands, {}, this.runtime.slash);
  }

  promptHistory(): string[] {
    return this.runtime.promptHistory.all();
  }

  async resume(sessionId: string): Promise<void> {
    if (this.current.busy) throw new CommandError('wait for the current turn to end (or press Esc) before switching sessions');
    const info = this.runtime.store.getSession(sessionId);
    if (!info) throw new CommandError(`no session with id "${sessionId}"`);
    await this.switchTo(await this.runtime.openSession(info));
  }

  contextUsage(): ContextUsageView {
    return this.current.contextUsage();
  }

  private files: FileIndex | undefined;

  completePath(query: string): Promise<string[]> {
    this.files ??= new FileIndex(this.runtime.config.cwd);
    return this.files.complete(query);
  }

  async exit(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.idleTimer);
    this.queue = [];
    // a turn still running (Ctrl+D mid-turn) is interrupted and stores how it ended before the store closes; only a
    // turn deaf to its abort for 10 s is left to the next start's repair (a Bash call stopped with SIGTERM took 5.4 s
    // to end under a load of 16 on 2 cores, and 1.5 s stored its call as "the session ended (crash or kill)")
    if (this.working && this.current.interrupt(false)) await Promise.race([this.draining, new Promise((r) => setTimeout(r, 10_000).unref())]);
    this.unsubscribe();
    this.approvals.notices = undefined;
    // messages the database refused: the store stays open for the question after the app (runInteractive)
    if (this.current.saving.unsavedCount === 0 || terminatingSignal()) this.runtime.close();
    await this.runtime.mcp?.close();
    this.emit({ type: 'exit' });
  }
}
