// The UI's handlers for what the session and the controller say besides a turn: the footer's
// figures, notices, a new or reset session, approvals and command outputs, work begun and ended
// (busy, activity), a prompt that comes back, the exit.
import type { EventOf } from '../protocol/events.js';
import type { SessionView } from '../protocol/views.js';
import { newApprovalView } from './approval.js';
import type { HandlerTable, UiHost } from './events-host.js';
import { newHistoryBrowser } from './history-browser.js';
import { emptyLive } from './live-state.js';
import { newModelPicker } from './model-picker.js';
import { newPicker } from './picker.js';
import { newRewindPicker } from './rewind-picker.js';
import { itemId, messagesToItems } from './transcript.js';

/** How long an SDK notice stays under the prompt. */
export const PROVIDER_NOTICE_MS = 30_000;

export type SessionEventType =
  | 'context'
  | 'notice'
  | 'provider_notice'
  | 'approval'
  | 'command_output'
  | 'session'
  | 'busy'
  | 'activity'
  | 'mcp_status'
  | 'status_command'
  | 'background_status'
  | 'goal'
  | 'permission_mode'
  | 'unsaved'
  | 'history_reset'
  | 'prompt_refused'
  | 'prompt_returned'
  | 'exit';

export const sessionHandlers: HandlerTable<SessionEventType> = {
  // a /model switch (or a title given by the first prompt) shows up with the next count
  context: (h, ev) => h.status.set({ session: freshSessionView(h), usage: ev.usage }),
  notice: (h, ev) => h.append({ kind: 'notice', id: itemId(), level: ev.level, text: ev.text }),
  provider_notice: (h, ev) => {
    // once per text for the whole run, first line only (the rest is a link to the docs; the debug log has it all)
    const line = ev.text.split('\n')[0]!.trim();
    if (h.providerNotices.has(line)) return;
    h.providerNotices.add(line);
    h.flashHint(`ⓘ ${line}`, 'notice', PROVIDER_NOTICE_MS);
  },
  approval: (h, ev) => {
    const view = newApprovalView({ request: ev.request, respond: ev.respond });
    if (view.detailAbove) h.append({ kind: 'approval_detail', id: itemId(), toolName: ev.request.toolName, summary: ev.request.summary });
    h.approvals.set([...h.approvals.get(), view]);
  },
  command_output: (h, ev) => {
    const out = ev.output;
    if (out.kind === 'picker') return h.picker.set(newPicker(out.sessions, h.controller.searchSessions?.bind(h.controller)));
    if (out.kind === 'models') return h.models.set(newModelPicker(out.models, out.current));
    if (out.kind === 'history') return h.history.set(newHistoryBrowser(out.result));
    if (out.kind === 'rewind') return h.rewind.set(newRewindPicker(out.targets, out.overwrite));
    if (out.kind === 'tasks' && out.rows.length > 0) return h.taskPanel.open(out.rows);
    h.append({ kind: 'command', id: itemId(), command: ev.command, output: out });
  },
  session: (h, ev) => openSession(h, ev),
  busy: (h, ev) => h.patchLive({ busy: ev.busy, busySince: ev.busy ? h.now() : null, ...(ev.busy ? {} : { activities: [] }) }),
  activity: (h, ev) => {
    const a = h.live.get().activities;
    if (!ev.done) return h.patchLive({ activities: [...a, { label: ev.label, startedAt: h.now() }] });
    const at = a.findIndex((x) => x.label === ev.label);
    if (at >= 0) h.patchLive({ activities: a.filter((_, i) => i !== at) });
  },
  mcp_status: (h, ev) => sessionField(h, 'mcp', ev.text || undefined),
  status_command: (h, ev) => sessionField(h, 'statusCommand', ev.line || undefined),
  background_status: (h, ev) => sessionField(h, 'background', ev.text || undefined),
  goal: (h, ev) => {
    // a goal that stops working (its check passed, a budget ran out, Esc) says why, once
    const was = h.status.get().session.goal;
    if (was?.startsWith('goal: active') && ev.goal && ev.goal.status !== 'active')
      h.append({
        kind: 'notice',
        id: itemId(),
        level: 'info',
        text: `Goal ${ev.goal.status.replace('_', '-')}${ev.goal.reason ? `: ${ev.goal.reason}` : ''}.`,
      });
    sessionField(h, 'goal', ev.goal?.footer);
  },
  permission_mode: (h, ev) => h.status.set({ ...h.status.get(), session: { ...h.status.get().session, permissionMode: ev.mode } }),
  unsaved: (h, ev) => sessionField(h, 'unsaved', ev.count > 0 ? ev.count : undefined),
  history_reset: (h) => h.tasks.refresh(),
  prompt_refused: (h, ev) => promptBack(h, 'error', ev.message, ev.text),
  prompt_returned: (h, ev) => promptBack(h, 'info', ev.message, ev.text),
  exit: (h) => h.onExit(),
};

/** The text goes back into the prompt: to shorten or to save as a file, to edit or to send again. */
function promptBack(h: UiHost, level: 'error' | 'info', message: string, text: string): void {
  h.append({ kind: 'notice', id: itemId(), level, text: message });
  h.onPromptReturned(text);
}

/** Another session (or the same one reset): everything live is dropped and its transcript printed anew. */
function openSession(h: UiHost, ev: EventOf<'session'>): void {
  h.toolInputs.clear();
  h.lastThinking = null;
  h.lastReport = null;
  h.picker.set(null);
  h.models.set(null);
  h.rewind.set(null);
  h.history.set(null);
  h.approvals.set([]);
  h.streaming.reset();
  h.live.set({ ...emptyLive(), busy: h.live.get().busy, busySince: h.live.get().busySince });
  h.liveOutput.clear();
  h.status.set({ session: ev.session, usage: h.controller.contextUsage() });
  h.tasks.refresh();
  const items = messagesToItems(ev.transcript, ev.compactions);
  h.expander.reset(items);
  h.printer.openSession(items);
}

/** Sets one optional field of the footer's session view, or removes it (undefined). */
function sessionField<K extends 'mcp' | 'statusCommand' | 'background' | 'goal' | 'unsaved'>(h: UiHost, key: K, value: SessionView[K] | undefined): void {
  const session = { ...h.status.get().session };
  if (value === undefined) delete session[key];
  else session[key] = value;
  h.status.set({ ...h.status.get(), session });
}

function freshSessionView(h: UiHost): SessionView {
  const now = h.controller.session();
  const cur = h.status.get().session;
  return now.id === cur.id &&
    now.model === cur.model &&
    now.provider === cur.provider &&
    now.title === cur.title &&
    now.cwd === cur.cwd &&
    now.thinking === cur.thinking
    ? cur
    : now;
}
