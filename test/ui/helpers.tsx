// Test support: a UiController the tests drive by hand, app rendering, key bytes and waiting.
import type { ReactElement } from 'react';
import { render as inkRender } from 'ink';
import { render } from 'ink-testing-library';
import stripAnsi from 'strip-ansi';
import { App } from '../../src/ui/app.js';
import { loadMarkdown } from '../../src/ui/markdown-lazy.js';
import { FakeController, FakeStdin, SizedStdout, tick, waitFor } from './fakes.js';
import type { Message } from '../../src/llm/messages.js';
import type { Theme } from '../../src/ui/theme.js';

// The app loads its Markdown renderer after the first frame; these tests look at the steady
// state, so it is loaded up front (test/ui/markdown-lazy.test.tsx covers the first frame).
await loadMarkdown();

export { COMMANDS, FakeController, FakeStdin, SizedStdout, session, tick, usage, waitFor } from './fakes.js';

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

function wrap(
  controller: FakeController,
  lastFrame: () => string | undefined,
  write: (s: string) => void,
  stdout: Rendered['stdout'],
  unmount: () => void,
): Rendered {
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

/** Renders a tree into a terminal of the given size (debug mode: every frame holds the whole screen). */
export function renderSized(
  tree: ReactElement,
  columns: number,
  rows = 30,
): { stdout: SizedStdout; stdin: FakeStdin; frame: () => string; unmount: () => void } {
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
