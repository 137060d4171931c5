// The interactive app: the transcript (printed once through <Static>), the live region, the prompt
// or an overlay (permission prompt, session picker, /history browser) and the status line. It holds no business
// logic: it renders what the UiController reports and forwards what the person does.
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Box, render, Static, Text, useApp, useInput, useStdin, useStdout } from 'ink';
import type { Key } from 'ink';
import { afterEditing, approvalKey, type ApprovalView } from './approval.js';
import { editInEditor } from './external-editor.js';
import { ApprovalPrompt, diffLinesFor, diffRowsFor } from './components/ApprovalPrompt.js';
import { TaskList } from './components/TaskList.js';
import { RewindPicker } from './components/RewindPicker.js';
import { TasksPanel } from './components/TasksPanel.js';
import { rewindKey } from './rewind-picker.js';
import { tasksKey } from './tasks-panel.js';
import { ItemView } from './components/ItemView.js';
import { LiveRegion } from './components/LiveRegion.js';
import { loadMarkdown, markdownShownPlain } from './markdown-lazy.js';
import { PromptView } from './components/PromptView.js';
import { HistoryBrowser } from './components/HistoryBrowser.js';
import { SessionPicker } from './components/SessionPicker.js';
import { ModelPicker } from './components/ModelPicker.js';
import { StatusLine } from './components/StatusLine.js';
import { TerminalSizeContext, useTerminalSizeSource } from './components/terminal-size.js';
import type { UiController } from './controller.js';
import { historyKey, turnedPage } from './history-browser.js';
import { pickerKey } from './picker.js';
import { modelPickerKey } from './model-picker.js';
import { PromptModel } from './prompt-model.js';
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON } from './prompt-paste.js';
import { useStore } from './store.js';
import type { Hint } from './live-state.js';
import { isWorking } from './live-state.js';
import { UiStore } from './ui-store.js';
import type { Theme } from './theme.js';
import { colorTheme, detectColor, dumbTheme, plainTheme, ThemeContext, useTheme } from './theme.js';

/** A second Ctrl-C within this window exits. */
export const CTRL_C_EXIT_MS = 2000;
// Clear screen and scrollback, cursor home: another session's transcript is about to be printed.
const CLEAR_SCREEN = '\u001b[2J\u001b[3J\u001b[H';
/** A resize is redrawn once the size stops changing for this long (dragging a window sends many). */
export const RESIZE_SETTLE_MS = 150;
// Clear the screen only: the deferred older items of a long transcript are about to be printed
// before what is on screen, and the person's earlier shell output stays in the scrollback.
const CLEAR_VISIBLE = '\u001b[2J\u001b[H';

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
}

export function App({ controller, openPicker = false, theme = colorTheme, printAhead }: AppProps) {
  const app = useApp();
  const { write, stdout } = useStdout();
  const { stdin } = useStdin();
  const size = useTerminalSizeSource();
  const [store] = useState(() => {
    const s = new UiStore(controller);
    s.printer.showNewestFirst(size);
    // Ink has drawn nothing yet, so this text lands above its first frame, where <Static> would have put it
    if (printAhead) s.printer.printAhead(printAhead, size.columns, theme);
    return s;
  });
  const [prompt] = useState(
    () =>
      new PromptModel({
        history: controller.promptHistory(),
        commands: () => controller.commands(),
        onSubmit: (text) => store.submit(text),
        ...(controller.completePath ? { completePath: (q: string) => controller.completePath!(q) } : {}),
      }),
  );
  const transcript = useStore(store.transcript);
  const approvals = useStore(store.approvals);
  const tasks = useStore(store.tasks.state);
  const picker = useStore(store.picker);
  const models = useStore(store.models);
  const rewind = useStore(store.rewind);
  const taskPanel = useStore(store.taskPanel.state);
  const history = useStore(store.history);
  const status = useStore(store.status);
  const hint = useStore(store.hint);

  const exiting = useRef(false);
  const exit = useCallback(() => {
    if (exiting.current) return;
    exiting.current = true;
    controller.exit().then(
      () => app.exit(),
      (err: unknown) => app.exit(err instanceof Error ? err : new Error(String(err))),
    );
  }, [app, controller]);

  useEffect(() => {
    store.onExit = () => app.exit();
    // a prompt the session refused (larger than the window) or that got no reply comes back to the input, ahead of anything typed since
    store.onPromptReturned = (text) => prompt.restore(text);
    store.printer.onSessionReset = (text) => write(CLEAR_SCREEN + text);
    store.printer.onReprint = (text) => write(CLEAR_VISIBLE + text);
    const unsubscribe = controller.subscribe((ev) => store.handle(ev));
    if (openPicker) controller.submit('/resume');
    // after the first frame: the Markdown renderer, then what the first frame left out or showed plain
    let mounted = true;
    void loadMarkdown()
      .catch(() => undefined)
      .then(() => mounted && store.printer.backfill(markdownShownPlain()));
    return () => {
      mounted = false;
      unsubscribe();
      store.dispose();
    };
    // Mounted once: the controller and the stores live as long as the app.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // Ctrl-L, and a resize (the terminal re-wraps what is on screen, leaving copies of the
  // prompt box Ink cannot erase): clear the screen and print the transcript again.
  const redraw = useCallback(() => {
    if (store.printer.textLayout) store.printer.textLayout = { ...store.printer.textLayout, columns: size.columns };
    store.printer.redraw((text) => write(CLEAR_SCREEN + text));
  }, [store, write, size.columns]);
  const firstSize = useRef(true);
  useEffect(() => {
    if (firstSize.current) {
      firstSize.current = false;
      return;
    }
    const t = setTimeout(redraw, RESIZE_SETTLE_MS);
    return () => clearTimeout(t);
  }, [size.columns, size.rows, redraw]);

  // the /tasks panel follows the commands as they start and end (the footer's count says when)
  useEffect(() => store.taskPanel.refresh(), [store, status.session.background]);
  // a plan opened in the person's editor: the terminal is theirs until it exits, then the screen is drawn again and the plan asked anew
  const editPlan = useCallback(
    (view: ApprovalView) => {
      const next = afterEditing(view, editInEditor(view.request.plan ?? '', 'plan.md', { stdin, stdout, env: controller.editorEnv?.() ?? process.env }));
      if (next.edited && next.detailAbove)
        store.append({ kind: 'approval_detail', id: `plan-${Date.now()}`, toolName: view.request.toolName, summary: next.request.summary });
      store.updateApproval(next);
      redraw();
    },
    [stdin, stdout, controller, store, redraw],
  );

  const lastCtrlC = useRef(0);
  const onKey = useCallback(
    (input: string, key: Key) => {
      if (key.ctrl && input === 'c') {
        const now = Date.now();
        if (now - lastCtrlC.current < CTRL_C_EXIT_MS) return exit();
        // interrupting running work is all a Ctrl-C does then: it does not arm the exit
        if (
          isWorking(store.live.get()) &&
          store.picker.get() === null &&
          store.models.get() === null &&
          store.rewind.get() === null &&
          store.taskPanel.state.get() === null &&
          store.history.get() === null &&
          prompt.isEmpty()
        ) {
          lastCtrlC.current = 0;
          if (store.approvals.get().length > 0) return store.respondToApproval({ kind: 'deny', stop: true });
          controller.interrupt();
          return;
        }
        // the hint says what the next press does: while work runs it interrupts, it never exits
        const working = isWorking(store.live.get());
        lastCtrlC.current = working ? 0 : now;
        store.flashHint(working ? 'Press Ctrl-C again to interrupt' : 'Press Ctrl-C again to exit', 'warning', CTRL_C_EXIT_MS);
        if (store.approvals.get().length > 0) return store.respondToApproval({ kind: 'deny', stop: true });
        if (store.picker.get()) return store.picker.set(null);
        if (store.models.get()) return store.models.set(null);
        if (store.rewind.get()) return store.rewind.set(null);
        if (store.taskPanel.state.get()) return store.taskPanel.state.set(null);
        if (store.history.get()) return store.history.set(null);
        if (!prompt.isEmpty()) return prompt.clear();
        if (isWorking(store.live.get())) controller.interrupt();
        return;
      }
      // a paste begun in the prompt ends there, whatever opened over it meanwhile
      if (prompt.pasting) return prompt.handleKey(input, key);
      const approval = store.approvals.get()[0];
      if (approval) {
        // Ctrl-O: the whole diff printed above the prompt, to read before answering
        if (key.ctrl && input === 'o' && approval.request.diff) return store.showApprovalDiff(approval);
        const r = approvalKey(approval, input, key, diffRowsFor(size.rows), approval.request.diff ? diffLinesFor(approval, size.columns, theme).length : 0);
        if (r.edit) return editPlan(r.view);
        return r.decision ? store.respondToApproval(r.decision) : store.updateApproval(r.view);
      }
      const rewinding = store.rewind.get();
      if (rewinding) {
        const r = rewindKey(rewinding, input, key);
        if (!r.action) return store.rewind.set(r.state);
        store.rewind.set(null);
        if (r.action.kind === 'rewind') {
          controller.submit(`/rewind ${r.action.target.index} ${r.action.what}`);
          // the request of a turn the conversation went back past comes back into the prompt, to edit and resend
          if (r.action.what !== 'code' && prompt.isEmpty()) prompt.restore(r.action.target.text);
        }
        return;
      }
      const panel = store.taskPanel.state.get();
      if (panel) {
        const r = tasksKey(panel, input, key);
        if (!r.action) return store.taskPanel.state.set(r.state);
        if (r.action.kind === 'close') return store.taskPanel.state.set(null);
        return controller.submit(r.action.line);
      }
      const pick = store.picker.get();
      if (pick) {
        const r = pickerKey(pick, input, key);
        if (!r.action) return store.picker.set(r.state);
        store.picker.set(null);
        if (r.action.kind === 'resume') {
          controller.resume(r.action.id).catch((err: unknown) => {
            store.append({
              kind: 'notice',
              id: `resume-${Date.now()}`,
              level: 'error',
              text: `Could not resume the session: ${err instanceof Error ? err.message : String(err)}`,
            });
          });
        }
        return;
      }
      const models = store.models.get();
      if (models) {
        const r = modelPickerKey(models, input, key);
        if (!r.action) return store.models.set(r.state);
        store.models.set(null);
        if (r.action.kind === 'choose') controller.submit(`/model ${r.action.name}`);
        return;
      }
      const browsing = store.history.get();
      if (browsing) {
        const r = historyKey(browsing, input, key);
        if (!r.action) return store.history.set(r.state);
        if (r.action.kind === 'page') {
          const back = r.action.page < browsing.result.page;
          try {
            const page = controller.searchArchive(browsing.result.query, r.action.page);
            if (page.hits.length > 0) store.history.set(turnedPage(page, back && key.upArrow ? 'last' : 'first'));
          } catch (err) {
            store.flashHint(`Could not search the archive: ${err instanceof Error ? err.message : String(err)}`, 'warning', 4000);
          }
          return;
        }
        store.history.set(null);
        if (r.action.kind === 'open') controller.submit(`/history open ${r.action.id}`);
        return;
      }
      if (key.escape) {
        if (isWorking(store.live.get())) {
          // queued prompts come back into the input now; the running one too when it got no reply (the session's prompt_returned puts it first)
          const queued = store.takeQueued();
          controller.interrupt({ takeBack: true });
          if (queued.length > 0) prompt.restore(queued.join('\n\n'));
          return;
        }
        prompt.dismissCompletion();
        return;
      }
      if (key.ctrl && input === 'o') {
        store.expandLastTool();
        return;
      }
      if (key.ctrl && input === 'l') return redraw();
      if (key.ctrl && input === 't') return store.tasks.toggle();
      if (key.ctrl && input === 'b') return void controller.backgroundCommand?.();
      // Ctrl-D on an empty prompt leaves, as in a shell (with text it deletes under the cursor)
      if (key.ctrl && input === 'd' && prompt.isEmpty()) return exit();
      // Shift+Tab cycles the permission mode (while no completion menu takes it)
      if (key.tab && key.shift && !prompt.store.get().completion) {
        controller.cyclePermissionMode();
        return;
      }
      prompt.handleKey(input, key);
    },
    [store, prompt, controller, exit, redraw, editPlan, size.rows, size.columns, theme],
  );
  useInput(onKey);

  const staticStyle = useMemo(() => ({ width: size.columns }), [size.columns]);
  const unprinted = useMemo(() => (transcript.printed ? transcript.items.slice(transcript.printed) : transcript.items), [transcript]);
  const approval = approvals[0];
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
            {approval ? (
              <ApprovalPrompt view={approval} pending={approvals.length} />
            ) : picker ? (
              <SessionPicker state={picker} currentId={status.session.id} />
            ) : models ? (
              <ModelPicker state={models} />
            ) : rewind ? (
              <RewindPicker state={rewind} />
            ) : taskPanel ? (
              <TasksPanel state={taskPanel} />
            ) : history ? (
              <HistoryBrowser state={history} />
            ) : (
              <MemoPromptView model={prompt} />
            )}
          </Box>
          <HintLine hint={hint} />
          <StatusLine session={status.session} usage={status.usage} />
        </Box>
      </TerminalSizeContext.Provider>
    </ThemeContext.Provider>
  );
}

const MemoLiveRegion = memo(LiveRegion);
const MemoPromptView = memo(PromptView);

function HintLine({ hint }: { hint: Hint }) {
  const theme = useTheme();
  if (!hint) {
    return (
      <Text color={theme.muted} dimColor wrap="truncate-end">
        /help commands & keys · enter send · ctrl+j new line · esc interrupt · ctrl+c ×2 exit
      </Text>
    );
  }
  return (
    <Text
      color={hint.level === 'warning' ? theme.warning : hint.level === 'notice' ? theme.muted : theme.info}
      dimColor={hint.level === 'notice'}
      wrap="truncate-end"
    >
      {hint.text}
    </Text>
  );
}

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
  const stdin = opts.stdin ?? process.stdin;
  const stdout = opts.stdout ?? process.stdout;
  const stderr = opts.stderr ?? process.stderr;
  if (!stdin.isTTY) throw new Error('the interactive UI needs a terminal on stdin (use -p for non-interactive mode)');
  const color = opts.color ?? detectColor({ env: process.env, isTTY: stdout.isTTY, hasColors: stdout.hasColors?.bind(stdout) });
  const restore = (): void => restoreTerminal(stdin, stdout);
  process.once('exit', restore);
  const dumb = opts.dumb ?? process.env['TERM'] === 'dumb';
  const theme = dumb ? dumbTheme : color ? colorTheme : plainTheme;
  // a screen reader gets Ink's own rendering of the transcript, not text laid out for the eye
  const printAhead = process.env['INK_SCREEN_READER'] === 'true' ? undefined : (text: string): void => void stdout.write(text);
  const instance = render(<App controller={controller} openPicker={opts.openPicker ?? false} theme={theme} {...(printAhead ? { printAhead } : {})} />, {
    stdin,
    stdout,
    stderr,
    exitOnCtrlC: false,
    patchConsole: opts.patchConsole ?? true,
  });
  // the terminal marks where each paste starts and ends, so a paste is never mistaken for typing
  if (stdout.isTTY) stdout.write(BRACKETED_PASTE_ON);
  try {
    await instance.waitUntilExit();
  } finally {
    process.off('exit', restore);
    restore();
  }
}
