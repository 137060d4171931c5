// The task list: what the model set with its last TodoWrite call that succeeded. It is session
// state derived from the log, never kept beside it: the log is the session's SQLite rows, so the
// list is what --continue, --resume and --fork open with, what a /rewind takes back with the
// turns it removes (and /rewind undo brings back), and what a compaction cannot lose (the
// archived call is still in the log, and the ledger re-injects the list from it).
import * as z from 'zod/mini';
import '../zodEnglish.js';
import type { Message } from '../llm/messages.js';
import type { TaskListView, TodoView } from '../protocol/views.js';
import { TOOL } from '../tools/toolNames.js';

/** An item of the list, as the front ends show it (the protocol's view). */
export type Todo = TodoView;
export type TodoStatus = Todo['status'];
export const TODO_STATUSES = ['pending', 'in_progress', 'completed', 'cancelled', 'blocked'] as const satisfies readonly TodoStatus[];

/** More items than anyone reads, and what a model writes only when looping: refused with an error it can act on. */
export const MAX_TODOS = 100;
/** One item is a line of work, not a document. */
export const MAX_TODO_CHARS = 500;

const text = z.string().check(z.trim(), z.minLength(1), z.maxLength(MAX_TODO_CHARS));

/** Claude Code's TodoWrite input (its extra keys, such as id and priority, are ignored). */
export const TodoInputSchema = z.object({
  todos: z
    .array(
      z.object({
        content: text.check(z.describe('Imperative ("Run the tests").')),
        status: z.enum(TODO_STATUSES).check(z.describe('At most one in_progress.')),
        activeForm: z.optional(text).check(z.describe('Present continuous, shown while in progress ("Running the tests").')),
      }),
    )
    .check(z.maxLength(MAX_TODOS), z.describe(`The whole list (at most ${MAX_TODOS} items), in order.`)),
});
export type TodoInput = z.infer<typeof TodoInputSchema>;

/** Why a list that fits the schema is still refused (two items in progress), else undefined. */
export function todoListProblem(todos: readonly Todo[]): string | undefined {
  const running = todos.filter((t) => t.status === 'in_progress');
  if (running.length > 1)
    return `${running.length} items are in_progress (${running.map((t) => `"${t.content}"`).join(', ')}); at most one may be: set the others to pending, completed or blocked`;
  return undefined;
}

/** A list as stored in a call's input, read leniently: undefined when it is not a valid list. */
export function readTodos(input: unknown): Todo[] | undefined {
  const parsed = TodoInputSchema.safeParse(input);
  if (!parsed.success || todoListProblem(parsed.data.todos)) return undefined;
  return parsed.data.todos.map((t) => ({ content: t.content, status: t.status, ...(t.activeForm ? { activeForm: t.activeForm } : {}) }));
}

/**
 * The list the last successful call of `tool` set, in a log (archived messages, then the
 * history): a call whose result is an error (refused input, denied) sets nothing.
 */
export function lastSuccessfulInput(log: readonly Message[], tool: string): { input: Record<string, unknown>; id: string } | undefined {
  const failed = new Set<string>();
  const done = new Set<string>();
  for (const m of log) for (const b of m.blocks) if (b.type === 'tool_result') (b.isError ? failed : done).add(b.toolUseId);
  for (let i = log.length - 1; i >= 0; i--) {
    const blocks = log[i]!.blocks;
    for (let j = blocks.length - 1; j >= 0; j--) {
      const b = blocks[j]!;
      if (b.type === 'tool_use' && b.name === tool && done.has(b.id) && !failed.has(b.id)) return { input: b.input, id: b.id };
    }
  }
  return undefined;
}

/** The task list of a session's log ([] before the first TodoWrite). */
export function currentTodos(log: readonly Message[]): Todo[] {
  return taskList(log).todos;
}

/** The task list of a session's log as the front ends show it (the plan capability's `todos` view). */
export function taskList(log: readonly Message[]): TaskListView {
  const last = lastSuccessfulInput(log, TOOL.TodoWrite);
  const todos = last && readTodos(last.input);
  return todos ? { todos, setBy: last.id, open: todosOpen(todos) } : { todos: [], open: false };
}

const MARK: Record<TodoStatus, string> = { pending: '[ ]', in_progress: '[~]', completed: '[x]', cancelled: '[-]', blocked: '[!]' };

/** The list as plain lines, every item with its status (what /todos prints and the ledger carries). */
export function renderTodos(todos: readonly Todo[]): string {
  return todos
    .map((t) => `- ${MARK[t.status]} ${t.content}${t.status === 'pending' || t.status === 'completed' ? '' : ` (${t.status.replace('_', ' ')})`}`)
    .join('\n');
}

/** "2 of 5 done", counting cancelled items as settled. */
export function todoProgress(todos: readonly Todo[]): string {
  const done = todos.filter((t) => t.status === 'completed').length;
  return `${done} of ${todos.length} done`;
}

/** Whether work is under way: some item neither completed nor cancelled (the list is shown above the prompt then). */
export const todosOpen = (todos: readonly Todo[]): boolean => todos.some((t) => t.status !== 'completed' && t.status !== 'cancelled');

/** What followTodos reads of a session's events (tool_start's input, tool_end's status). */
export interface ToolEventLike {
  type: string;
  id?: unknown;
  name?: unknown;
  input?: unknown;
  status?: unknown;
}

/**
 * Follows a session's events as they come: `onChange` gets the list each TodoWrite sets once it
 * succeeded (a sub-agent's own list under its row, print mode's todos event). A refused or
 * failed call sets nothing, as in the log.
 */
export function followTodos(onChange: (todos: Todo[]) => void): (e: ToolEventLike) => void {
  const started = new Map<string, Todo[]>();
  return (e) => {
    if (typeof e.id !== 'string') return;
    if (e.type === 'tool_start' && e.name === TOOL.TodoWrite) {
      const todos = readTodos(e.input);
      if (todos) started.set(e.id, todos);
    } else if (e.type === 'tool_end') {
      const todos = started.get(e.id);
      started.delete(e.id);
      if (todos && e.status === 'done') onChange(todos);
    }
  };
}
