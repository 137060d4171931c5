// Test fakes that load no Ink: a UiController driven by hand, fake terminal streams and waiting.
// Kept apart from helpers.tsx so a test can load Ink itself (see src/ui/load.ts).
import { EventEmitter } from 'node:events';
import type { Message } from '../../src/llm/messages.js';
import type { PermissionMode } from '../../src/config/schema.js';
import type { UiController } from '../../src/ui/controller.js';
import type { CommandInfo, ContextUsageView, HistoryPage, SessionView, ViewData, ViewName } from '../../src/protocol/views.js';
import type { Event } from '../../src/protocol/events.js';

export const usage = (over: Partial<ContextUsageView> = {}): ContextUsageView => ({
  tokens: 40_000,
  contextWindow: 200_000,
  effectiveWindow: 180_000,
  percentLeft: 78,
  state: 'ok',
  autoCompactAtPercent: 92,
  autoCompactEnabled: true,
  ...over,
});

export const session = (over: Partial<SessionView> = {}): SessionView => ({
  id: 's_0000abcd1234efgh',
  title: 'Test session',
  model: 'claude-sonnet-4-5',
  provider: 'anthropic',
  cwd: '/home/dev/projects/agent',
  ...over,
});

export const COMMANDS: CommandInfo[] = [
  { name: 'compact', args: '[focus…]', description: 'Summarize the conversation to free context' },
  { name: 'context', description: 'Show what fills the context window' },
  { name: 'cost', description: 'Show token usage and cost' },
  { name: 'help', description: 'List commands and keys' },
  { name: 'permissions', description: 'Show remembered permission rules' },
  { name: 'resume', args: '[id]', description: 'Open another session' },
];

/** A UiController the test drives: emit() plays the session's part, the arrays record what the app asked. */
export class FakeController implements UiController {
  readonly submitted: string[] = [];
  readonly resumed: string[] = [];
  interrupts = 0;
  exits = 0;
  /** Shift+Tab presses (the fake answers with a permission_mode event, as the session does). */
  modeCycles = 0;
  interruptResult = true;
  /** What searchArchive answers; the searches asked are recorded. */
  archive: (query: string, page: number) => HistoryPage = (query, page) => ({ query, page, pageSize: 10, hits: [], hasMore: false });
  readonly searches: Array<[string, number]> = [];
  /** The views on the seam the app reads (viewOf), by name: a test sets those it shows (the task list, the /tasks panel's rows). */
  views: { [K in ViewName]?: (key: string) => ViewData[K] | undefined } = {};
  /** The keys the app offered the capabilities (press); `bound` says which they take. */
  readonly pressed: string[] = [];
  bound: string[] = [];
  private readonly listeners = new Set<(ev: Event) => void>();

  constructor(
    public view: SessionView = session(),
    public transcript: Message[] = [],
    public history: string[] = [],
    public usageView: ContextUsageView = usage(),
    public commandList: CommandInfo[] = COMMANDS,
  ) {}

  session(): SessionView {
    return this.view;
  }
  initialTranscript(): Message[] {
    return this.transcript;
  }
  subscribe(listener: (ev: Event) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  submit(text: string): void {
    this.submitted.push(text);
  }
  /** Whether each interrupt asked for a prompt without a reply back (Esc does). */
  takeBacks: boolean[] = [];
  compactionCancels = 0;
  cancelCompaction(): boolean {
    this.compactionCancels++;
    return true;
  }

  interrupt(opts: { takeBack?: boolean } = {}): boolean {
    this.interrupts++;
    this.takeBacks.push(opts.takeBack === true);
    return this.interruptResult;
  }
  commands(): CommandInfo[] {
    return this.commandList;
  }
  promptHistory(): string[] {
    return this.history;
  }
  async resume(id: string): Promise<void> {
    this.resumed.push(id);
  }
  contextUsage(): ContextUsageView {
    return this.usageView;
  }
  searchArchive(query: string, page: number): HistoryPage {
    this.searches.push([query, page]);
    return this.archive(query, page);
  }
  /** What completePath answers (the files of the "working directory"). */
  files: string[] = ['src/', 'src/cli.ts', 'src/ui/app.tsx', 'README.md'];
  async completePath(query: string): Promise<string[]> {
    return this.files.filter((f) => f.includes(query));
  }
  viewOf<K extends ViewName>(name: K, key = ''): ViewData[K] | undefined {
    return this.views[name]?.(key);
  }
  press(key: string): boolean {
    this.pressed.push(key);
    return this.bound.includes(key);
  }
  cyclePermissionMode(): void {
    this.modeCycles++;
    const modes: PermissionMode[] = ['ask', 'acceptEdits', 'deny'];
    const next = modes[(modes.indexOf((this.view.permissionMode ?? 'ask') as PermissionMode) + 1) % modes.length]!;
    this.view = { ...this.view, permissionMode: next };
    this.emit({ type: 'permission_mode', mode: next });
  }
  async exit(): Promise<void> {
    this.exits++;
  }
  emit(...events: Event[]): void {
    for (const ev of events) for (const l of [...this.listeners]) l(ev);
  }
  get subscribers(): number {
    return this.listeners.size;
  }
}

export const tick = (ms = 0): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits until the predicate holds (or fails with the last frame after timeoutMs). */
export async function waitFor(pred: () => boolean, describe: () => string = () => '', timeoutMs = 3000): Promise<void> {
  const start = Date.now();
  while (!pred()) {
    if (Date.now() - start > timeoutMs) throw new Error(`condition not met in ${timeoutMs}ms\n${describe()}`);
    await tick(5);
  }
}

/** A fake terminal of a given size (ink-testing-library's is fixed at 100 columns and has no rows). */
export class SizedStdout extends EventEmitter {
  readonly frames: string[] = [];
  isTTY = true;
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }
  write = (frame: string): boolean => {
    this.frames.push(frame);
    return true;
  };
  lastFrame = (): string | undefined => this.frames[this.frames.length - 1];
  resize(columns: number, rows = this.rows): void {
    this.columns = columns;
    this.rows = rows;
    this.emit('resize');
  }
}

export class FakeStdin extends EventEmitter {
  isTTY = true;
  isRaw = false;
  private data: string | null = null;
  rawModeCalls: boolean[] = [];
  write = (data: string): void => {
    this.data = data;
    this.emit('readable');
    this.emit('data', data);
  };
  read = (): string | null => {
    const d = this.data;
    this.data = null;
    return d;
  };
  setEncoding(): void {}
  setRawMode(on: boolean): void {
    this.isRaw = on;
    this.rawModeCalls.push(on);
  }
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}
