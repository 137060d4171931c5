// The UiController the app renders while its session is still being built (interactive.ts): a
// fresh session's first frame is drawn from the configuration alone, and the runtime (the
// database, the session, the tools, the capabilities) is built right after it. What the person
// does meanwhile waits for the session and reaches it once it is open: a permission mode cycled,
// an exit, and the prompts sent (after the rest, in order; the activity line says the session is
// opening while they wait, and Esc or Ctrl+C gives them back unsent). The footer says "counting
// context…" until then, as it does until the session's first count.
import type { Event } from './protocol/events.js';
import type { CommandInfo, ContextUsageView, HistoryPage, SessionView, ViewData, ViewName } from './protocol/views.js';
import type { SpilledOutputView, UiController } from './ui/controller.js';

const OPENING = 'Opening the session';

export interface PendingStart {
  /** The footer's session before the session is open: its id is empty, the rest is the configuration's. */
  view: SessionView;
  /** The context window, for the gauge's placeholder. */
  contextWindow: number;
  /** The prompts typed before, oldest first (Up recalls them from the first frame on). */
  history: string[];
  /** The environment an editor opened now would get: the provider keys left out. */
  editorEnv: () => NodeJS.ProcessEnv;
}

export class PendingController implements UiController {
  private real: UiController | undefined;
  private readonly listeners = new Map<(ev: Event) => void, () => void>();
  private readonly waiting: Array<(c: UiController) => void> = [];
  /** Prompts sent before the session opened, in order: the app shows the session opening while they wait, and Esc or Ctrl+C gives them back. */
  private prompts: string[] = [];
  private settle: (c: UiController | undefined) => void = () => {};
  private broken = false;
  /** The session's controller once it is open; undefined when building it failed. */
  readonly settled = new Promise<UiController | undefined>((resolve) => (this.settle = resolve));

  constructor(private readonly start: PendingStart) {}

  /** The session is open: the app's listeners move to it, the footer shows it, and what waited runs in order. */
  ready(controller: UiController): void {
    if (this.real) return;
    this.real = controller;
    for (const listener of this.listeners.keys()) this.listeners.set(listener, controller.subscribe(listener));
    this.tell({ type: 'context', usage: controller.contextUsage() });
    const prompts = this.prompts.splice(0);
    if (prompts.length > 0) this.opening(false);
    for (const run of this.waiting.splice(0)) run(controller);
    for (const text of prompts) controller.submit(text);
    this.settle(controller);
  }

  /** The session could not be built: the app ends (the caller reports why), and nothing that waited runs. */
  failed(): void {
    if (this.real) return;
    this.broken = true;
    this.waiting.length = 0;
    this.prompts = [];
    this.settle(undefined);
    this.tell({ type: 'exit' });
  }

  private tell(ev: Event): void {
    for (const listener of this.listeners.keys()) listener(ev);
  }

  /** The app's activity line while prompts wait for the session: "Opening the session…". */
  private opening(on: boolean): void {
    this.tell({ type: 'busy', busy: on });
    this.tell({ type: 'activity', label: OPENING, done: !on });
  }

  /** Runs now on the open session, or once it is open. */
  private whenOpen(run: (c: UiController) => void): void {
    if (this.real) run(this.real);
    else this.waiting.push(run);
  }

  session(): SessionView {
    return this.real ? this.real.session() : this.start.view;
  }

  initialTranscript() {
    return this.real ? this.real.initialTranscript() : [];
  }

  subscribe(listener: (ev: Event) => void): () => void {
    this.listeners.set(listener, this.real ? this.real.subscribe(listener) : () => {});
    // an app mounted after the failure ends all the same
    if (this.broken) queueMicrotask(() => listener({ type: 'exit' }));
    return () => {
      this.listeners.get(listener)?.();
      this.listeners.delete(listener);
    };
  }

  submit(text: string): void {
    if (this.real) return this.real.submit(text);
    if (this.prompts.length === 0) this.opening(true);
    this.prompts.push(text);
  }

  /** Before the session opens: the waiting prompts come back to the input, unsent (false when none waits). */
  interrupt(opts?: { takeBack?: boolean }): boolean {
    if (this.real) return this.real.interrupt(opts);
    if (this.prompts.length === 0) return false;
    const text = this.prompts.splice(0).join('\n\n');
    this.opening(false);
    this.tell({
      type: 'prompt_returned',
      text,
      message: 'Your message is back in the input: the session had not opened yet, so it was not sent; edit it or send it again.',
    });
    return true;
  }

  cancelCompaction(): boolean {
    return this.real ? this.real.cancelCompaction() : false;
  }

  commands(): CommandInfo[] {
    return this.real ? this.real.commands() : [];
  }

  promptHistory(): string[] {
    return this.real ? this.real.promptHistory() : this.start.history;
  }

  async resume(sessionId: string): Promise<void> {
    const c = await this.settled;
    await c?.resume(sessionId);
  }

  contextUsage(): ContextUsageView {
    if (this.real) return this.real.contextUsage();
    const window = this.start.contextWindow;
    return {
      tokens: 0,
      contextWindow: window,
      effectiveWindow: window,
      percentLeft: 100,
      state: 'ok',
      autoCompactAtPercent: 100,
      autoCompactEnabled: false,
      rough: true,
    };
  }

  searchArchive(query: string, page: number): HistoryPage {
    return this.real ? this.real.searchArchive(query, page) : { query, page, pageSize: 0, hits: [], hasMore: false };
  }

  async completePath(query: string): Promise<string[]> {
    const c = await this.settled;
    return (await c?.completePath?.(query)) ?? [];
  }

  spilledOutput(handle: string): SpilledOutputView | undefined {
    return this.real?.spilledOutput?.(handle);
  }

  searchSessions(query: string): string[] {
    return this.real?.searchSessions?.(query) ?? [];
  }

  viewOf<K extends ViewName>(name: K, key?: string): ViewData[K] | undefined {
    return this.real?.viewOf(name, key);
  }

  editorEnv(): NodeJS.ProcessEnv {
    return this.real?.editorEnv?.() ?? this.start.editorEnv();
  }

  press(key: string): boolean {
    return this.real ? this.real.press(key) : false;
  }

  cyclePermissionMode(): void {
    this.whenOpen((c) => c.cyclePermissionMode());
  }

  async exit(): Promise<void> {
    const c = await this.settled;
    await c?.exit();
  }
}
