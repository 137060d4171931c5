import { createRuntime, type Runtime } from './bootstrap.js';
import { CliError, EXIT_OK, EXIT_RUNTIME, EXIT_USAGE } from './cliError.js';
import type { GlobalOptions } from './cliOptions.js';
import { CommandError, commandInfos, findCommand, historyPage, isCommandLine, parseSlash, runSlash, type AppActions } from './commands/registry.js';
import { debug } from './log.js';
import { mcpStatus } from './commands/mcp.js';
import { FileIndex } from './session/fileIndex.js';
import { onTerminatingSignals, terminatingSignal, untilTerminated } from './processes/signals.js';
import { askAboutUnsaved, unsavedFacts } from './unsavedExit.js';
import { loadTui } from './ui/load.js';
import { statusLineFor } from './statusLine/follow.js';
import type { Session } from './session/session.js';
import { ApprovalBridge } from './approvalBridge.js';
import type { ApprovalRequest } from './tools/permissions.js';
import { currentTodos, type Todo } from './plan/todos.js';
import { taskRows } from './background/tasksCommand.js';
import { askAboutBackground } from './background/exitQuestion.js';
import { secretVars } from './config/secrets.js';
import type { SpilledOutputView, UiController } from './ui/controller.js';
import type { CommandInfo, ContextUsageView, HistoryPage, SessionListItem, SessionView, TaskRowView } from './protocol/views.js';
import type { Event } from './protocol/events.js';

// The interactive app: the UiController the Ink app renders, implemented over the live
// session. Business logic stays in the session and the command registry.

/** How long the prompt waits after a turn before Notification hooks hear that the agent is idle. */
const IDLE_NOTICE_MS = 60_000;

export class SessionController implements UiController {
  private readonly listeners = new Set<(e: Event) => void>();
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
  }

  private get current(): Session {
    return this.runtime.session;
  }

  private attach(session: Session): void {
    this.unsubscribe();
    this.unsubscribe = session.on((e) => {
      if (e.type !== 'history_reset') return this.emit(e);
      // a /rewind of the conversation: the app redraws the transcript from the shortened history
      this.emit({ type: 'session', session: session.view(), transcript: [...session.messages()], compactions: this.safeCompactions(session.id) });
    });
  }

  cyclePermissionMode(): void {
    this.current.setPermissionMode('next');
  }

  taskRows(): TaskRowView[] {
    return taskRows(this.runtime.background, this.current.id);
  }

  backgroundCommand(): boolean {
    return this.runtime.background.moveForeground() || (this.notify('info', 'No Bash command is running to move to the background (Ctrl+B).'), false);
  }

  /** Events sent before the app subscribed (start-up warnings, a first prompt) wait here. */
  private early: Event[] = [];

  /** The statusLine command's new first line, for the footer. */
  showStatusCommand(line: string): void {
    this.emit({ type: 'status_command', line });
  }

  private emit(e: Event): void {
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
    return mcp ? { ...this.current.view(), mcp } : this.current.view();
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
    const secrets = new Set(secretVars(this.current.currentConfig, process.env));
    return Object.fromEntries(Object.entries(process.env).filter(([name]) => !secrets.has(name)));
  }

  todos(): readonly Todo[] {
    return currentTodos(this.current.messages({ archived: true }));
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
    const slash = isCommandLine(input, this.runtime.commands) ? parseSlash(input) : undefined;
    if (slash && findCommand(slash.name)?.whileBusy) {
      void this.runOne(input);
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
      for (let next = this.queue.shift(); next !== undefined && !this.closed; next = this.queue.shift()) {
        await this.runOne(next);
      }
    } finally {
      this.working = false;
      if (!this.closed) this.emit({ type: 'busy', busy: false });
      this.armIdleNotice();
    }
  }

  private async runOne(input: string): Promise<void> {
    try {
      if (isCommandLine(input, this.runtime.commands)) {
        const output = await runSlash(
          {
            session: this.current,
            app: this.actions(),
            custom: this.runtime.commands,
            toolNames: this.runtime.toolNames,
            skills: this.runtime.skills,
            mcp: this.runtime.mcp,
            background: this.runtime.background,
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

  childTranscript(childSessionId: string): string | undefined {
    return this.current.subagentInfo().transcript(childSessionId);
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
    const interrupted = this.current.interrupt(opts.takeBack === true);
    if (dropped > 0) this.emit({ type: 'notice', level: 'info', text: `Dropped ${dropped} queued prompt${dropped === 1 ? '' : 's'}.` });
    return interrupted || dropped > 0;
  }

  commands(): CommandInfo[] {
    return commandInfos(this.runtime.commands);
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
    // a turn still running (Ctrl+D mid-turn) is interrupted and stores how it ended before the store closes
    if (this.working && this.current.interrupt(false)) await Promise.race([this.draining, new Promise((r) => setTimeout(r, 1_500).unref())]);
    this.unsubscribe();
    this.approvals.notices = undefined;
    // messages the database refused: the store stays open for the question after the app (runInteractive)
    if (this.current.saving.unsavedCount === 0 || terminatingSignal()) this.runtime.close();
    await this.runtime.mcp?.close();
    this.emit({ type: 'exit' });
  }
}

export async function runInteractive(opts: GlobalOptions, words: string[]): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new CliError('the interactive app needs a terminal; for scripts and pipes use `agent -p "<prompt>"`', EXIT_USAGE);
  }
  // The app's code loads before the session opens: compiling it (and the layout engine's
  // WebAssembly, in the background) with a small heap is faster than with a resumed history in it.
  const { runTui } = await loadTui();
  const approvals = new ApprovalBridge();
  const { runtime } = await createRuntime(opts, { approver: approvals.approver, onProviderWarning: approvals.onProviderWarning });
  const controller = new SessionController(runtime, approvals);
  // the exit asks whether to stop the background commands still running (askAboutBackground)
  runtime.background.keep = true;
  for (const w of runtime.config.warnings) controller.notify('warning', w);
  for (const note of runtime.session.loadNotes) controller.notify('info', note);
  const first = words.join(' ').trim();
  if (first) controller.submit(first);
  // runTui draws the first frame before it waits; the servers start right after it
  setImmediate(() => controller.startMcp());
  const status = statusLineFor(runtime.config, controller, (line) => controller.showStatusCommand(line));
  // SIGTERM, SIGHUP, SIGINT from outside (Ctrl+C is a key here): the turn is interrupted, the session
  // and the servers closed, every child process group stopped, then the exit (processes/signals.ts)
  const offSignals = onTerminatingSignals(['SIGTERM', 'SIGHUP', 'SIGINT'], async (signal) => {
    controller.interrupt();
    const facts = unsavedFacts(runtime.session);
    if (facts) process.stderr.write(`agent: ${facts}; they are lost: the program was ended by ${signal}.\n`);
    await controller.exit();
  });
  let resumable: string | undefined;
  try {
    await runTui(controller, { openPicker: opts.resume === true });
  } finally {
    // the session the app ended in (a /resume or /clear may have changed it), when it holds anything
    resumable = controller.initialTranscript().length > 0 ? controller.session().id : undefined;
    status?.close();
    await controller.exit();
  }
  // ended by a signal: its handler exits once the children are gone
  await untilTerminated();
  await askAboutBackground(runtime.background);
  offSignals();
  // never "saved" while the database refused messages: retry, write the transcript elsewhere, or quit knowingly
  const session = runtime.session;
  const outcome = session.saving.unsavedCount > 0 ? await askAboutUnsaved(session) : 'saved';
  const facts = unsavedFacts(session);
  runtime.close();
  if (outcome === 'quit') {
    process.stderr.write(`agent: ${facts}; quit without them.\n`);
    return EXIT_RUNTIME;
  }
  if (outcome === 'written') {
    process.stdout.write(`Session ${session.id}: the database lacks its last messages; the whole transcript is in the file written above.\n`);
    return EXIT_OK;
  }
  // as Codex does: where the conversation went and how to come back to it
  if (resumable) process.stdout.write(`Session ${resumable} saved. To continue it: agent --resume ${resumable}\n`);
  return EXIT_OK;
}
