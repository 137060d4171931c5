// The task list above the prompt: the session's list while work is under way (some item neither
// completed nor cancelled), and whether Ctrl+T hid it; and each running sub-agent's own list,
// shown under its row.
import type { ChildState } from '../agents/childState.js';
import { followTodos, todosOpen, type Todo } from '../plan/todos.js';
import { Store } from './store.js';

export class TaskListState {
  readonly state = new Store<{ todos: readonly Todo[]; hidden: boolean }>({ todos: [], hidden: false });

  constructor(private readonly read: () => readonly Todo[]) {
    this.refresh();
  }

  /** Reads the list again from the log (a rewind, another session). */
  refresh(): void {
    this.show(this.read());
  }

  private show(todos: readonly Todo[]): void {
    this.state.set({ todos: todosOpen(todos) ? todos : [], hidden: this.state.get().hidden });
  }

  /**
   * The session's own TodoWrite calls, followed by their events: the list a call set is shown when
   * it ended well. Not read from the log at tool_end: the call's result is appended after it, so
   * the log still held the list before (issue 49: the list was one TodoWrite behind).
   */
  private readonly follow = followTodos((todos) => this.show(todos));

  /** A tool call started: a TodoWrite's list is kept until it ends. */
  toolStarted(ev: { id: string; name: string; input: unknown }): void {
    this.follow({ type: 'tool_start', ...ev });
  }

  /** The running sub-agents' lists, by their Task call's id (the live rows show them while they run). */
  readonly children = new Store<Readonly<Record<string, readonly Todo[]>>>({});

  /** A sub-agent's state changed ('child' event): its list, if it set one. */
  child(state: ChildState): void {
    const had = this.children.get()[state.toolUseId];
    if (state.todos && state.todos !== had) this.children.set({ ...this.children.get(), [state.toolUseId]: state.todos });
  }

  /** A tool call ended: a TodoWrite that succeeded sets the session's list; a finished sub-agent's row takes its list with it. */
  toolEnded(ev: { id: string; name: string; status: string }): void {
    this.follow({ type: 'tool_end', id: ev.id, status: ev.status });
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
