// Test support: a UiController the tests drive by hand, app rendering, key bytes and waiting.
import { EventEmitter } from 'node:events';
import type { ReactElement } from 'react';
import { render as inkRender } from 'ink';
import { render } from 'ink-testing-library';
import stripAnsi from 'strip-ansi';
import { App } from '../../src/ui/app.js';
import type { CommandInfo, ContextUsageView, SessionView, UiController, UiEvent } from '../../src/ui/controller.js';
import type { Message } from '../../src/llm/messages.js';
import type { Theme } from '../../src/ui/theme.js';

export const KEYS = {
  enter: '\r',
  altEnter: '\u001b\r',
  ctrlJ: '\n',
  esc: '\u001b',
  up: '\u001b[A',
  down: '\u001b[B',
  right: '\u001b[C',
  left: '\u001b[D',
  home: '\u001b[H',
  end: '\u001b[F',
  tab: '\t',
  shiftTab: '\u001b[Z',
  backspace: '\u007f',
  ctrl: (letter: string): string => String.fromCharCode(letter.toLowerCase().charCodeAt(0) - 96),
};

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
  interruptResult = true;
  private readonly listeners = new Set<(ev: UiEvent) => void>();

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
  subscribe(listener: (ev: UiEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  submit(text: string): void {
    this.submitted.push(text);
  }
  interrupt(): boolean {
    this.interrupts++;
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
  async exit(): Promise<void> {
    this.exits++;
  }
  emit(...events: UiEvent[]): void {
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

export interface Rendered {
  controller: FakeController;
  /** The whole screen so far (transcript + live region), ANSI removed. */
  frame: () => string;
  /** The same with ANSI kept. */
  rawFrame: () => string;
  /** Writes key bytes, then lets Ink deliver them (a lone Esc needs a macrotask to flush). */
  press: (...keys: string[]) => Promise<void>;
  waitForText: (text: string | RegExp) => Promise<void>;
  stdout: { frames: string[]; emit: (ev: string) => boolean };
  unmount: () => void;
}

function wrap(controller: FakeController, lastFrame: () => string | undefined, write: (s: string) => void, stdout: Rendered['stdout'], unmount: () => void): Rendered {
  const rawFrame = (): string => lastFrame() ?? '';
  const frame = (): string => stripAnsi(rawFrame());
  return {
    controller,
    frame,
    rawFrame,
    press: async (...keys: string[]) => {
      for (const k of keys) {
        write(k);
        await tick(1);
      }
      await tick(1);
    },
    waitForText: (text) => waitFor(() => (typeof text === 'string' ? frame().includes(text) : text.test(frame())), frame),
    stdout,
    unmount,
  };
}

export interface AppOptions {
  openPicker?: boolean;
  theme?: Theme;
}

/** Renders the App into ink-testing-library (100 columns). */
export function renderApp(controller = new FakeController(), opts: AppOptions = {}): Rendered {
  const r = render(<App controller={controller} openPicker={opts.openPicker ?? false} {...(opts.theme ? { theme: opts.theme } : {})} />);
  return wrap(controller, r.lastFrame, r.stdin.write, r.stdout, r.unmount);
}

/** A fake terminal of a given size (ink-testing-library's is fixed at 100 columns and has no rows). */
export class SizedStdout extends EventEmitter {
  readonly frames: string[] = [];
  isTTY = true;
  constructor(public columns: number, public rows: number) {
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

/** Renders a tree into a terminal of the given size (debug mode: every frame holds the whole screen). */
export function renderSized(tree: ReactElement, columns: number, rows = 30): { stdout: SizedStdout; stdin: FakeStdin; frame: () => string; unmount: () => void } {
  const stdout = new SizedStdout(columns, rows);
  const stdin = new FakeStdin();
  const instance = inkRender(tree, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    stderr: new SizedStdout(columns, rows) as unknown as NodeJS.WriteStream,
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  return { stdout, stdin, frame: () => stripAnsi(stdout.lastFrame() ?? ''), unmount: () => instance.unmount() };
}

export function renderAppSized(controller: FakeController, columns: number, rows = 30): Rendered & { sized: SizedStdout } {
  const r = renderSized(<App controller={controller} />, columns, rows);
  const rendered = wrap(controller, r.stdout.lastFrame, r.stdin.write, r.stdout, r.unmount);
  return { ...rendered, sized: r.stdout };
}

let seq = 0;
export const msg = (role: 'user' | 'assistant', blocks: Message['blocks'], extra: Partial<Message> = {}): Message => ({
  id: `m${seq++}`,
  role,
  blocks,
  kind: 'normal',
  createdAt: 1_700_000_000_000 + seq * 1000,
  ...extra,
});

export const text = (t: string): Message['blocks'][number] => ({ type: 'text', text: t });
