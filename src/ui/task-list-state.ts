// The task list above the prompt: the session's list while work is under way (some item neither
// completed nor cancelled), and whether Ctrl+T hid it; and each running sub-agent's own list,
// shown under its row. The session's list is a view on the seam (the plan capability's `todos`),
// read again when a tool's result joins the log (a TodoWrite's), a rewind, another session.
import type { EventOf } from '../protocol/events.js';
import type { TaskListView, TodoView } from '../protocol/views.js';
import { Store } from './store.js';

export class TaskListState {
  readonly state = new Store<{ todos: readonly TodoView[]; hidden: boolean }>({ todos: [], hidden: false });

  constructor(private readonly read: () => TaskListView | undefined) {
    this.refresh();
  }

  /**
   * Reads the list again from the log. Not at a TodoWrite's tool_end: its result is appended after
   * it, so the log still holds the list before (issue 49); the result's message comes next.
   */
  refresh(): void {
    const view = this.read();
    this.state.set({ todos: view?.open ? view.todos : [], hidden: this.state.get().hidden });
  }

  /** The running sub-agents' lists, by their Task call's id (the live rows show them while they run). */
  readonly children = new Store<Readonly<Record<string, readonly TodoView[]>>>({});

  /** A sub-agent's state changed ('child' event): its list, if it set one. */
  child(state: EventOf<'child'>['state']): void {
    const had = this.children.get()[state.toolUseId];
    if (state.todos && state.todos !== had) this.children.set({ ...this.children.get(), [state.toolUseId]: state.todos });
  }

  /** A tool call ended: a finished sub-agent's row takes its list with it. */
  toolEnded(ev: { id: string }): void {
    if (ev.id in this.children.get()) {
      const { [ev.id]: _gone, ...rest } = this.children.get();
      this.children.set(rest);
    }
  }

  /** The turn ended: a sub-agent whose Task call never ended (it failed, the turn was cut) is over too, and its list goes. */
  turnEnded(): void {
    if (Object.keys(this.children.get()).length > 0) this.children.set({});
  }

  /** Ctrl+T. */
  toggle(): void {
    this.state.set({ ...this.state.get(), hidden: !this.state.get().hidden });
  }
}
