// The interactive app: the transcript (printed once through <Static>), the live region, the prompt
// or an overlay (permission prompt, session picker, /history browser) and the status line. It holds no business
// logic: it renders what the UiController reports and forwards what the person does. Its state
// lives in use-app-store.ts, its keys in app-keys.ts, the overlay in components/Overlay.tsx.
import { processWorld, world } from '../runtime/world.js';
import { memo, useMemo } from 'react';
import { Box, render, Static } from 'ink';
import { useAppKeys } from './app-keys.js';
import { HintLine } from './components/HintLine.js';
import { ItemView } from './components/ItemView.js';
import { LiveRegion } from './components/LiveRegion.js';
import { Overlay } from './components/Overlay.js';
import { StatusLine } from './components/StatusLine.js';
import { TaskList } from './components/TaskList.js';
import { TerminalSizeContext, useTerminalSizeSource } from './components/terminal-size.js';
import type { UiController } from './controller.js';
import type { SkinToneQuestion } from './emoji-probe.js';
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON } from './prompt-paste.js';
import { useStore } from './store.js';
import type { Theme } from './theme.js';
import { colorTheme, detectColor, dumbTheme, plainTheme, ThemeContext } from './theme.js';
import { useSkinToneReplies } from './skin-tone-replies.js';
import { useAppStore } from './use-app-store.js';

export interface AppProps {
  controller: UiController;
  /** Open the session picker at start (`agent --resume` without an id): submits "/resume". */
  openPicker?: boolean;
  theme?: Theme;
  /**
   * Writes to the terminal ahead of Ink: the transcript the first frame shows is printed through
   * it as text before that frame (TranscriptPrinter.printAhead). Without it <Static> prints everything (the
   * tests' debug-mode frames hold only what Ink itself printed).
   */
  printAhead?: (text: string) => void;
  /** The start's question to the terminal (emoji-probe.ts), when its answer is still to come. */
  skinTone?: SkinToneQuestion;
}

export function App({ controller, openPicker = false, theme = colorTheme, printAhead, skinTone }: AppProps) {
  const size = useTerminalSizeSource();
  useSkinToneReplies(skinTone);
  const { store, prompt, exit, redraw, editPlan } = useAppStore({ controller, openPicker, theme, printAhead, size });
  useAppKeys({ store, prompt, controller, exit, redraw, editPlan, size, theme });
  const transcript = useStore(store.transcript);
  const tasks = useStore(store.tasks.state);
  const status = useStore(store.status);
  const hint = useStore(store.hint);

  const staticStyle = useMemo(() => ({ width: size.columns }), [size.columns]);
  const unprinted = useMemo(() => (transcript.printed ? transcript.items.slice(transcript.printed) : transcript.items), [transcript]);
  return (
    <ThemeContext.Provider value={theme}>
      <TerminalSizeContext.Provider value={size}>
        <Box flexDirection="column" width={size.columns}>
          <Static key={transcript.epoch} items={unprinted} style={staticStyle}>
            {(item) => <ItemView key={item.id} item={item} />}
          </Static>
          <MemoLiveRegion store={store} prompt={prompt} />
          {tasks.hidden ? null : <TaskList todos={tasks.todos} />}
          <Box marginTop={1} flexDirection="column">
            <Overlay store={store} prompt={prompt} sessionId={status.session.id} />
          </Box>
          <HintLine hint={hint} />
          <StatusLine session={status.session} usage={status.usage} />
        </Box>
      </TerminalSizeContext.Provider>
    </ThemeContext.Provider>
  );
}

const MemoLiveRegion = memo(LiveRegion);

export interface RunTuiOptions {
  /** Open the session picker at start (`agent --resume` without an id). */
  openPicker?: boolean;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
  /** Default: NO_COLOR, FORCE_COLOR and what the terminal supports. */
  color?: boolean;
  /** No boxes and no spinner; default: TERM=dumb. */
  dumb?: boolean;
  /**
   * Route stray console output above the live region instead of through it (default true; the
   * program's own logging goes to its log file, never to the screen).
   */
  patchConsole?: boolean;
  /** The question asked at start (emoji-probe.ts): handed stdin's input from the first frame on. */
  skinTone?: SkinToneQuestion;
}

/** Shows the cursor and leaves raw mode, whatever state the app died in. */
export function restoreTerminal(stdin: NodeJS.ReadStream, stdout: NodeJS.WriteStream): void {
  try {
    if (stdin.isTTY && stdin.isRaw) stdin.setRawMode(false);
  } catch {
    // the stream is already closed
  }
  try {
    if (stdout.isTTY && !stdout.destroyed) stdout.write(BRACKETED_PASTE_OFF + '\u001b[?25h');
  } catch {
    // the stream is already closed
  }
}

/**
 * Renders the interactive app and resolves when it exits (Ctrl-C twice, an 'exit' event, or
 * /exit through the controller). Rejects with the error if rendering crashed; the terminal is
 * restored in every case, also when the process dies.
 */
export async function runTui(controller: UiController, opts: RunTuiOptions = {}): Promise<void> {
  const stdin = opts.stdin ?? world().stdin;
  const stdout = opts.stdout ?? world().stdout;
  const stderr = opts.stderr ?? world().stderr;
  if (!stdin.isTTY) throw new Error('the interactive UI needs a terminal on stdin (use -p for non-interactive mode)');
  const color = opts.color ?? detectColor({ env: world().env, isTTY: stdout.isTTY, hasColors: stdout.hasColors?.bind(stdout) });
  const restore = (): void => restoreTerminal(stdin, stdout);
  const offExit = world().onExit(restore);
  const dumb = opts.dumb ?? world().env['TERM'] === 'dumb';
  const theme = dumb ? dumbTheme : color ? colorTheme : plainTheme;
  // a screen reader gets Ink's own rendering of the transcript, not text laid out for the eye
  const printAhead = world().env['INK_SCREEN_READER'] === 'true' ? undefined : (text: string): void => void stdout.write(text);
  // the first frame is drawn now, whether or not the terminal has answered the question
  opts.skinTone?.handOver();
  const skinTone = opts.skinTone?.answered === false ? { skinTone: opts.skinTone } : {};
  const instance = render(
    <App controller={controller} openPicker={opts.openPicker ?? false} theme={theme} {...(printAhead ? { printAhead } : {})} {...skinTone} />,
    {
      stdin,
      stdout,
      stderr,
      exitOnCtrlC: false,
      // the console is the process's: an app run in another world (a test's) leaves it alone
      patchConsole: opts.patchConsole ?? world() === processWorld(),
    },
  );
  // the terminal marks where each paste starts and ends, so a paste is never mistaken for typing
  if (stdout.isTTY) stdout.write(BRACKETED_PASTE_ON);
  try {
    await instance.waitUntilExit();
  } finally {
    offExit();
    restore();
  }
}
