import { Box, Text } from 'ink';
import type { TodoView as Todo } from '../../protocol/views.js';
import { sanitize } from '../sanitize.js';
import { useTheme } from '../theme.js';

/** "2 of 5 done", counting cancelled items as settled. */
const progress = (todos: readonly Todo[]): string => `${todos.filter((t) => t.status === 'completed').length} of ${todos.length} done`;

/** Items shown above the prompt at most; the rest are counted (/todos prints them all). */
export const TASKS_SHOWN = 8;

const MARK: Record<Todo['status'], string> = { pending: '◻', in_progress: '◼', completed: '✔', cancelled: '✗', blocked: '!' };

/** Up to `max` items of a list: those around the one in progress (from two before it). */
function around(todos: readonly Todo[], max: number): { shown: readonly Todo[]; start: number; hidden: number } {
  const current = Math.max(
    0,
    todos.findIndex((t) => t.status === 'in_progress'),
  );
  const start = Math.max(0, Math.min(current - 2, todos.length - max));
  const shown = todos.slice(start, start + max);
  return { shown, start, hidden: todos.length - shown.length };
}

function TodoLine({ todo, indent }: { todo: Todo; indent: string }) {
  const theme = useTheme();
  const color = todo.status === 'in_progress' ? theme.accent : todo.status === 'blocked' ? theme.warning : todo.status === 'pending' ? undefined : theme.muted;
  const text = todo.status === 'in_progress' && todo.activeForm ? todo.activeForm : todo.content;
  return (
    <Text wrap="truncate-end" color={color} strikethrough={todo.status === 'cancelled'}>
      {indent}
      {MARK[todo.status]} {sanitize(text)}
    </Text>
  );
}

/**
 * The task list above the prompt while work is under way (some item neither completed nor
 * cancelled); Ctrl+T hides and shows it. A long list shows the items around the one in progress.
 */
export function TaskList({ todos }: { todos: readonly Todo[] }) {
  const theme = useTheme();
  if (todos.length === 0) return null;
  const { shown, start, hidden } = around(todos, TASKS_SHOWN);
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text color={theme.muted}>
        Tasks · {progress(todos)} <Text color={theme.muted}>(ctrl+t hides)</Text>
      </Text>
      {shown.map((t, i) => (
        <TodoLine key={`${start + i}`} todo={t} indent="  " />
      ))}
      {hidden > 0 ? <Text color={theme.muted}>{`  … ${hidden} more (/todos lists them all)`}</Text> : null}
    </Box>
  );
}

/** Items of a sub-agent's own list shown under its row at most. */
export const CHILD_TASKS_SHOWN = 5;

/** Rows a sub-agent's list takes under its row (its progress line, the items, a "more" line). */
export const childTaskRows = (todos: readonly Todo[] | undefined): number =>
  !todos || todos.length === 0 ? 0 : 1 + Math.min(todos.length, CHILD_TASKS_SHOWN) + (todos.length > CHILD_TASKS_SHOWN ? 1 : 0);

/** A running sub-agent's own task list (its TodoWrite), indented under its row in the live region. */
export function ChildTaskList({ todos }: { todos: readonly Todo[] | undefined }) {
  const theme = useTheme();
  if (!todos || todos.length === 0) return null;
  const { shown, start, hidden } = around(todos, CHILD_TASKS_SHOWN);
  return (
    <Box flexDirection="column">
      <Text color={theme.muted}>{`    its tasks · ${progress(todos)}`}</Text>
      {shown.map((t, i) => (
        <TodoLine key={`${start + i}`} todo={t} indent="      " />
      ))}
      {hidden > 0 ? <Text color={theme.muted}>{`      … ${hidden} more`}</Text> : null}
    </Box>
  );
}
