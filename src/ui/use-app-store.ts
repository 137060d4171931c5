// The app's state for its lifetime: the UiStore fed by the controller's events, the prompt,
// the screen redraws (Ctrl-L, a resize, a plan back from the editor) and the exit.
import { world } from '../runtime/world.js';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useApp, useStdin, useStdout } from 'ink';
import { afterEditing, type ApprovalView } from './approval.js';
import type { UiController } from './controller.js';
import { editInEditor } from './external-editor.js';
import { loadMarkdown, markdownShownPlain } from './markdown-lazy.js';
import { PromptModel } from './prompt-model.js';
import { useStore } from './store.js';
import type { Theme } from './theme.js';
import { UiStore } from './ui-store.js';

/** Under a prompt that came back with a paste in it (too large for the window, or unanswered). */
export const PASTES_BACK =
  'ctrl+s: save the pasted text as a file and attach it with @ (a large file goes as its first and last lines; the model reads the rest)';

// Clear screen and scrollback, cursor home: another session's transcript is about to be printed.
const CLEAR_SCREEN = '\u001b[2J\u001b[3J\u001b[H';
/** A resize is redrawn once the size stops changing for this long (dragging a window sends many). */
export const RESIZE_SETTLE_MS = 150;
// Clear the screen only: the deferred older items of a long transcript are about to be printed
// before what is on screen, and the person's earlier shell output stays in the scrollback.
const CLEAR_VISIBLE = '\u001b[2J\u001b[H';

export interface AppStoreOptions {
  controller: UiController;
  openPicker: boolean;
  theme: Theme;
  printAhead: ((text: string) => void) | undefined;
  size: { columns: number; rows: number };
}

/** The store and the prompt, created once and wired to the controller on mount. */
export function useAppStore({ controller, openPicker, theme, printAhead, size }: AppStoreOptions) {
  const app = useApp();
  const { write } = useStdout();
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
    store.onPromptReturned = (text) => {
      prompt.restore(text);
      // a paste in it came back as its chip: saving it as a file is offered
      if (prompt.pastes.collapse(text) !== text) prompt.store.set({ ...prompt.state, note: PASTES_BACK });
    };
    store.printer.onSessionReset = (text) => write(CLEAR_SCREEN + text);
    store.printer.onReprint = (text) => write(CLEAR_VISIBLE + text);
    const unsubscribe = controller.subscribe((ev) => {
      store.handle(ev);
      // a fresh session opens after the first frame (PendingController's 'context'): a command menu shown already is made from its commands
      if (ev.type === 'context') prompt.refreshMenu();
    });
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

  const { redraw, editPlan } = useRedraw(store, controller, size.columns, size.rows);
  return { store, prompt, exit, redraw, editPlan };
}

/** Ctrl-L, a resize, a plan back from the editor: the screen is cleared and the transcript printed again. */
function useRedraw(store: UiStore, controller: UiController, columns: number, rows: number) {
  const { write, stdout } = useStdout();
  const { stdin } = useStdin();
  // Ctrl-L, and a resize (the terminal re-wraps what is on screen, leaving copies of the
  // prompt box Ink cannot erase): clear the screen and print the transcript again.
  const redraw = useCallback(() => {
    if (store.printer.textLayout) store.printer.textLayout = { ...store.printer.textLayout, columns };
    store.printer.redraw((text) => write(CLEAR_SCREEN + text));
  }, [store, write, columns]);
  const firstSize = useRef(true);
  useEffect(() => {
    if (firstSize.current) {
      firstSize.current = false;
      return;
    }
    const t = setTimeout(redraw, RESIZE_SETTLE_MS);
    return () => clearTimeout(t);
  }, [columns, rows, redraw]);

  // the /tasks panel follows the commands as they start and end (the footer's count says when)
  const status = useStore(store.status);
  useEffect(() => store.taskPanel.refresh(), [store, status.session.background]);
  // a plan opened in the person's editor: the terminal is theirs until it exits, then the screen is drawn again and the plan asked anew
  const editPlan = useCallback(
    (view: ApprovalView) => {
      const next = afterEditing(view, editInEditor(view.request.plan ?? '', 'plan.md', { stdin, stdout, env: controller.editorEnv?.() ?? world().env }));
      if (next.edited && next.detailAbove)
        store.append({ kind: 'approval_detail', id: `plan-${Date.now()}`, toolName: view.request.toolName, summary: next.request.summary });
      store.updateApproval(next);
      redraw();
    },
    [stdin, stdout, controller, store, redraw],
  );
  return { redraw, editPlan };
}
