// The app's keys: Ctrl-C (interrupt, close, exit), the open overlay's keys (approval, pickers,
// panels, the archive browser), then the prompt's (Esc, Ctrl-O/L/T/B/D, Shift+Tab, typing).
import { useCallback, useRef } from 'react';
import { useInput } from 'ink';
import type { Key } from 'ink';
import { approvalKey, type ApprovalView } from './approval.js';
import { diffLinesFor, diffRowsFor } from './components/ApprovalPrompt.js';
import type { UiController } from './controller.js';
import { historyKey, turnedPage } from './history-browser.js';
import { isWorking } from './live-state.js';
import { modelPickerKey } from './model-picker.js';
import { pickerKey } from './picker.js';
import type { PromptModel } from './prompt-model.js';
import { rewindKey } from './rewind-picker.js';
import { isCursorReport } from './emoji-probe.js';
import { tasksKey } from './tasks-panel.js';
import type { Theme } from './theme.js';
import type { UiStore } from './ui-store.js';

/** A second Ctrl-C within this window exits. */
export const CTRL_C_EXIT_MS = 2000;

export interface AppKeyDeps {
  store: UiStore;
  prompt: PromptModel;
  controller: UiController;
  exit: () => void;
  redraw: () => void;
  editPlan: (view: ApprovalView) => void;
  size: { columns: number; rows: number };
  theme: Theme;
}

/** Routes every key the app gets (Ink's useInput) to the right handler. */
export function useAppKeys(deps: AppKeyDeps): void {
  const lastCtrlC = useRef(0);
  const { store, prompt, controller, exit, redraw, editPlan, theme } = deps;
  const { columns, rows } = deps.size;
  const onKey = useCallback(
    (input: string, key: Key) => {
      const deps: AppKeyDeps = { store, prompt, controller, exit, redraw, editPlan, size: { columns, rows }, theme };
      if (key.ctrl && input === 'c') return ctrlC(deps, lastCtrlC);
      // a paste begun in the prompt ends there, whatever opened over it meanwhile
      if (prompt.pasting) return prompt.handleKey(input, key);
      // the terminal's late answer to the start's question (a cursor report, which Ink's keys leave
      // as "[12;5R", its ESC taken off) is no key: the picker open at start (--resume) took it for typing
      if (isCursorReport(`\u001b${input}`)) return;
      if (overlayKey(deps, input, key)) return;
      promptKey(deps, input, key);
    },
    [store, prompt, controller, exit, redraw, editPlan, columns, rows, theme],
  );
  useInput(onKey);
}

function overlayOpen(store: UiStore): boolean {
  return (
    store.picker.get() !== null ||
    store.models.get() !== null ||
    store.rewind.get() !== null ||
    store.taskPanel.state.get() !== null ||
    store.history.get() !== null
  );
}

function ctrlC({ store, prompt, controller, exit }: AppKeyDeps, lastCtrlC: { current: number }): void {
  const now = Date.now();
  if (now - lastCtrlC.current < CTRL_C_EXIT_MS) return exit();
  // interrupting running work is all a Ctrl-C does then: it does not arm the exit
  if (isWorking(store.live.get()) && !overlayOpen(store) && prompt.isEmpty()) {
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
}

/** The open overlay takes the key; false when none is open. */
function overlayKey(deps: AppKeyDeps, input: string, key: Key): boolean {
  const { store, prompt, controller, editPlan, size, theme } = deps;
  const approval = store.approvals.get()[0];
  if (approval) {
    // Ctrl-O: the whole diff printed above the prompt, to read before answering
    if (key.ctrl && input === 'o' && approval.request.diff) {
      store.showApprovalDiff(approval);
      return true;
    }
    const r = approvalKey(approval, input, key, diffRowsFor(size.rows), approval.request.diff ? diffLinesFor(approval, size.columns, theme).length : 0);
    if (r.edit) editPlan(r.view);
    else if (r.decision) store.respondToApproval(r.decision);
    else store.updateApproval(r.view);
    return true;
  }
  const rewinding = store.rewind.get();
  if (rewinding) {
    const r = rewindKey(rewinding, input, key);
    if (!r.action) {
      store.rewind.set(r.state);
      return true;
    }
    store.rewind.set(null);
    if (r.action.kind === 'force') controller.submit(r.action.command);
    if (r.action.kind === 'rewind') {
      controller.submit(`/rewind ${r.action.target.index} ${r.action.what}`);
      // the request of a turn the conversation went back past comes back into the prompt, to edit and resend
      if (r.action.what !== 'code' && prompt.isEmpty()) prompt.restore(r.action.target.text);
    }
    return true;
  }
  const panel = store.taskPanel.state.get();
  if (panel) {
    const r = tasksKey(panel, input, key);
    if (!r.action) store.taskPanel.state.set(r.state);
    else if (r.action.kind === 'close') store.taskPanel.state.set(null);
    else controller.submit(r.action.line);
    return true;
  }
  return pickerKeys(deps, input, key);
}

/** The session picker, the model picker and the /history browser. */
function pickerKeys({ store, controller }: AppKeyDeps, input: string, key: Key): boolean {
  const pick = store.picker.get();
  if (pick) {
    const r = pickerKey(pick, input, key);
    if (!r.action) {
      store.picker.set(r.state);
      return true;
    }
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
    return true;
  }
  const models = store.models.get();
  if (models) {
    const r = modelPickerKey(models, input, key);
    if (!r.action) {
      store.models.set(r.state);
      return true;
    }
    store.models.set(null);
    if (r.action.kind === 'choose') controller.submit(`/model ${r.action.name}`);
    return true;
  }
  const browsing = store.history.get();
  if (!browsing) return false;
  const r = historyKey(browsing, input, key);
  if (!r.action) {
    store.history.set(r.state);
    return true;
  }
  if (r.action.kind === 'page') {
    const back = r.action.page < browsing.result.page;
    try {
      const page = controller.searchArchive(browsing.result.query, r.action.page);
      if (page.hits.length > 0) store.history.set(turnedPage(page, back && key.upArrow ? 'last' : 'first'));
    } catch (err) {
      store.flashHint(`Could not search the archive: ${err instanceof Error ? err.message : String(err)}`, 'warning', 4000);
    }
    return true;
  }
  store.history.set(null);
  if (r.action.kind === 'open') controller.submit(`/history open ${r.action.id}`);
  return true;
}

/** No overlay is open: the prompt's keys and the global shortcuts. */
function promptKey({ store, prompt, controller, exit, redraw }: AppKeyDeps, input: string, key: Key): void {
  if (key.escape) {
    if (isWorking(store.live.get())) {
      // queued prompts come back into the input now; the running one too when it got no reply (the session's prompt_returned puts it first)
      const queued = store.takeQueued();
      controller.interrupt({ takeBack: true });
      if (queued.length > 0) prompt.restore(queued.join('\n\n'));
      return;
    }
    // at rest, Esc stops a compaction written in the background
    if (store.live.get().compaction?.background) controller.cancelCompaction();
    prompt.dismissCompletion();
    return;
  }
  if (key.ctrl && input === 'o') {
    store.expandLastTool();
    return;
  }
  if (key.ctrl && input === 'l') return redraw();
  if (key.ctrl && input === 't') return store.tasks.toggle();
  // the keys the capabilities bind (Ctrl+B: the running Bash command to the background), after the built-in ones
  if (key.ctrl && input.length === 1 && controller.press(`ctrl+${input}`)) return;
  // Ctrl+S: the pasted texts in the prompt saved as files and attached with @ in their place (offered when a prompt too large comes back)
  if (key.ctrl && input === 's') {
    const saved = prompt.pastes.attachAsFiles(prompt.state);
    return prompt.store.set({
      ...prompt.state,
      ...(saved ?? {}),
      completion: null,
      note: saved ? null : 'Ctrl+S saves pasted text as a file: there is none in the prompt.',
    });
  }
  // Ctrl-D on an empty prompt leaves, as in a shell (with text it deletes under the cursor)
  if (key.ctrl && input === 'd' && prompt.isEmpty()) return exit();
  // Shift+Tab cycles the permission mode (while no completion menu takes it)
  if (key.tab && key.shift && !prompt.store.get().completion) {
    controller.cyclePermissionMode();
    return;
  }
  prompt.handleKey(input, key);
}
