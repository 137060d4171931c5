// The /tasks panel's state and keys: the background commands listed, one selected; Enter or
// Ctrl+O prints the selected one's last lines above the prompt, `s` stops it (its whole group:
// SIGTERM, SIGKILL after the grace period), `a` stops every one, Esc closes. The rows are the
// background capability's view on the seam (viewOf('tasks')), read again whenever a command
// starts or ends and at each key.
import type { Key } from 'ink';
import type { TaskRowView } from '../protocol/views.js';
import { Store } from './store.js';

export interface TasksPanelState {
  rows: TaskRowView[];
  /** Index into rows. */
  selected: number;
}

export const newTasksPanel = (rows: TaskRowView[]): TasksPanelState => ({ rows, selected: 0 });

/** The same panel over fresh rows: the selection follows its command when it is still listed. */
export function refreshTasksPanel(state: TasksPanelState, rows: TaskRowView[]): TasksPanelState {
  const was = state.rows[state.selected];
  const at = was ? rows.findIndex((r) => r.id === was.id && r.sessionId === was.sessionId) : -1;
  return { rows, selected: at >= 0 ? at : Math.min(state.selected, Math.max(0, rows.length - 1)) };
}

/** How a slash command names a row: its id, or `<session>/<id>` for a sub-agent's. */
const named = (r: TaskRowView): string => (r.own ? r.id : `${r.sessionId}/${r.id}`);

export type TasksKeyResult = { state: TasksPanelState; action?: { kind: 'close' } | { kind: 'command'; line: string } };

export function tasksKey(state: TasksPanelState, input: string, key: Key): TasksKeyResult {
  const n = state.rows.length;
  const row = state.rows[state.selected];
  if (key.escape) return { state, action: { kind: 'close' } };
  if (key.upArrow) return { state: { ...state, selected: Math.max(0, state.selected - 1) } };
  if (key.downArrow) return { state: { ...state, selected: Math.min(n - 1, state.selected + 1) } };
  if (row && (key.return || (key.ctrl && input === 'o'))) return { state, action: { kind: 'command', line: `/tasks view ${named(row)}` } };
  if (row && !key.ctrl && input === 's') return { state, action: { kind: 'command', line: `/tasks stop ${named(row)}` } };
  if (!key.ctrl && input === 'a') return { state, action: { kind: 'command', line: '/tasks stop all' } };
  return { state };
}

/** The panel as the app's store holds it: closed (null) or open over the controller's rows. */
export class TasksPanelStore {
  readonly state = new Store<TasksPanelState | null>(null);

  constructor(private readonly read: () => TaskRowView[] | undefined) {}

  open(rows: TaskRowView[]): void {
    this.state.set(newTasksPanel(rows));
  }

  /** A command started or ended (or a key was pressed): the open panel shows the rows as they stand. */
  refresh(): void {
    const open = this.state.get();
    const rows = this.read();
    if (open && rows) this.state.set(refreshTasksPanel(open, rows));
  }
}
