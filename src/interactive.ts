import { createRuntime, type Runtime } from './bootstrap.js';
import { CliError, EXIT_OK, EXIT_USAGE } from './cliError.js';
import type { GlobalOptions } from './cliOptions.js';
import { COMMANDS, CommandError, findCommand, historyPage, isCommandLine, parseSlash, runSlash, type AppActions } from './commands/registry.js';
import { debug } from './log.js';
import { FileIndex } from './session/fileIndex.js';
import { loadTui } from './ui/load.js';
import type { Session } from './session/session.js';
import type { ApprovalDecision, ApprovalRequest, Approver } from './tools/permissions.js';
import type { CommandInfo, ContextUsageView, HistoryPage, SessionListItem, SessionView, UiController, UiEvent } from './ui/controller.js';

// The interactive app: the UiController the Ink app renders, implemented over the live
// session. Business logic stays in the session and the command registry.

/**
 * Lets the session reach the person: an 'approval' event out and the decision back, and the
 * providers' warnings as notices while a controller shows them.
 */
class ApprovalBridge {
  emit: (e: UiEvent) => void = () => {};
  notices: ((message: string) => void) | undefined;
  readonly onProviderWarning = (message: string): void => this.notices?.(message);
  readonly approver: Approver = (request: ApprovalRequest, signal: AbortSignal) =>
    new Promise<ApprovalDecision>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason ?? new Error('interrupted'));
        return;
      }
      let settled = false;
      const onAbort = (): void => {
        if (settled) return;
        settled = true;
        reject(signal.reason ?? new Error('interrupted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.emit({
        type: 'approval',
        request,
        respond: (d) => {
          if (settled) return;
          settled = true;
          signal.removeEventListener('abort', onAbort);
          resolve(d);
        },
      });
    });
}

export class SessionController implements UiController {
  private readonly listeners = new Set<(e: UiEvent) => void>();
  private unsubscribe: () => void = () => {};
  private queue: string[] = [];
  private working = false;
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

  /** Events sent before the app subscribed (start-up warnings, a first prompt) wait here. */
  private early: UiEvent[] = [];

  private emit(e: UiEvent): void {
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
    return this.current.view();
  }

  initialTranscript() {
    return [...this.current.messages()];
  }

  subscribe(listener: (ev: UiEvent) => void): () => void {
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
    const slash = isCommandLine(input) ? parseSlash(input) : undefined;
    if (slash && findCommand(slash.name)?.whileBusy) {
      void this.runOne(input);
      return;
    }
    // the app holds prompts typed while it works; what still arrives mid-turn waits here, in order
    this.queue.push(input);
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.working) return;
    this.working = true;
    this.emit({ type: 'busy', busy: true });
    try {
      for (let next = this.queue.shift(); next !== undefined && !this.closed; next = this.queue.shift()) {
        await this.runOne(next);
      }
    } finally {
      this.working = false;
      if (!this.closed) this.emit({ type: 'busy', busy: false });
    }
  }

  private async runOne(input: string): Promise<void> {
    try {
      if (isCommandLine(input)) {
        const output = await runSlash({ session: this.current, app: this.actions() }, input);
        if (output) this.emit({ type: 'command_output', command: input, output });
        return;
      }
      if (input.startsWith('!')) {
        const command = input.slice(1).trim();
        if (!command) throw new CommandError('type a shell command after ! (for example: !git status)');
        await this.current.shell(command);
        return;
      }
      await this.current.prompt(input);
    } catch (e) {
      const message = e instanceof CommandError ? e.message : `${(e as Error).message}`;
      this.emit({ type: 'notice', level: 'error', text: message });
    }
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

  interrupt(): boolean {
    const dropped = this.queue.length;
    this.queue = [];
    const interrupted = this.current.interrupt();
    if (dropped > 0) this.emit({ type: 'notice', level: 'info', text: `Dropped ${dropped} queued prompt${dropped === 1 ? '' : 's'}.` });
    return interrupted || dropped > 0;
  }

  commands(): CommandInfo[] {
    return COMMANDS.map(({ name, args, description }) => ({ name, description, ...(args ? { args } : {}) }));
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
    this.queue = [];
    this.unsubscribe();
    this.approvals.notices = undefined;
    this.runtime.close();
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
  for (const w of runtime.config.warnings) controller.notify('warning', w);
  for (const note of runtime.session.loadNotes) controller.notify('info', note);
  const first = words.join(' ').trim();
  if (first) controller.submit(first);
  try {
    await runTui(controller, { openPicker: opts.resume === true });
  } finally {
    await controller.exit();
  }
  return EXIT_OK;
}
