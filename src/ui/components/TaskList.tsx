import { Box, Text } from 'ink';
import { type Todo, todoProgress } from '../../plan/todos.js';
import { sanitize } from '../sanitize.js';
import { useTheme } from '../theme.js';

/** Items shown above the prompt at most; the rest are counted (/todos prints them all). */
export const TASKS_SHOWN = 8;

const MARK: Record<Todo['status'], string> = { pending: '◻', in_progress: '◼', completed: '✔', cancelled: '✗', blocked: '!' };

/**
 * The task list above the prompt while work is under way (some item neither completed nor
 * cancelled); Ctrl+T hides and shows it. A long list shows the items around the one in progress.
 */
export function TaskList({ todos }: { todos: readonly Todo[] }) {
  const theme = useTheme();
  if (todos.length === 0) return null;
  const current = Math.max(
    0,
    todos.findIndex((t) => t.status === 'in_progress'),
  );
  const start = Math.max(0, Math.min(current - 2, todos.length - TASKS_SHOWN));
  const shown = todos.slice(start, start + TASKS_SHOWN);
  const hidden = todos.length - shown.length;
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text color={theme.muted}>
        Tasks · {todoProgress(todos)} <Text color={theme.muted}>(ctrl+t hides)</Text>
      </Text>
      {shown.map((t, i) => {
        const color = t.status === 'in_progress' ? theme.accent : t.status === 'blocked' ? theme.warning : t.status === 'pending' ? undefined : theme.muted;
        const text = t.status === 'in_progress' && t.activeForm ? t.activeForm : t.content;
        return (
          <Text key={`${start + i}`} wrap="truncate-end" color={color} strikethrough={t.status === 'cancelled'}>
            {'  '}
            {MARK[t.status]} {sanitize(text)}
          </Text>
        );
      })}
      {hidden > 0 ? <Text color={theme.muted}>{`  … ${hidden} more (/todos lists them all)`}</Text> : null}
    </Box>
  );
}
