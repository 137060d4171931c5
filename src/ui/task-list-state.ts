// The task list above the prompt: the session's list while work is under way (some item neither
// completed nor cancelled), and whether Ctrl+T hid it.
import { todosOpen, type Todo } from '../plan/todos.js';
import { Store } from './store.js';

export class TaskListState {
  readonly state = new Store<{ todos: readonly Todo[]; hidden: boolean }>({ todos: [], hidden: false });

  constructor(private readonly read: () => readonly Todo[]) {
    this.refresh();
  }

  /** Reads the list again (a TodoWrite ran, a rewind, another session). */
  refresh(): void {
    const todos = this.read();
    this.state.set({ todos: todosOpen(todos) ? todos : [], hidden: this.state.get().hidden });
  }

  /** Ctrl+T. */
  toggle(): void {
    this.state.set({ ...this.state.get(), hidden: !this.state.get().hidden });
  }
}
