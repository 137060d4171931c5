// The TodoWrite tool: the model sets the whole task list, shaped like Claude Code's TodoWrite so
// prompts and habits carry over. The list is read back from the log (todos.ts); the call's
// result repeats it, so the model sees what was kept. It changes nothing outside the
// conversation: it runs without asking, in plan mode too.
import { promptText } from '../promptText.js';
import { parseInput, toInputSchema } from '../tools/inputSchema.js';
import { TOOL } from '../tools/toolNames.js';
import { ToolInputError, type Tool } from '../tools/types.js';
import { MAX_TODOS, renderTodos, TodoInputSchema, todoListProblem, todoProgress, type TodoInput } from './todos.js';
import DESCRIPTION from './todoWrite.md';

export function createTodoWriteTool(): Tool<TodoInput> {
  const inputSchema = toInputSchema(TodoInputSchema);
  return {
    name: TOOL.TodoWrite,
    description: promptText(DESCRIPTION),
    inputSchema,
    kind: 'read',
    // its result is the list itself, short; the input in the call is what the list is read from
    traits: { spills: false },
    parse(input) {
      const raw = typeof input === 'object' && input !== null ? (input as { todos?: unknown }).todos : undefined;
      if (Array.isArray(raw) && raw.length > MAX_TODOS)
        throw new ToolInputError(`TodoWrite: ${raw.length} items is more than the ${MAX_TODOS} a list may hold: group them into fewer, larger steps`);
      const parsed = parseInput(TOOL.TodoWrite, TodoInputSchema, inputSchema, input);
      const problem = todoListProblem(parsed.todos);
      if (problem) throw new ToolInputError(`TodoWrite: ${problem}`);
      return parsed;
    },
    summarize: (input) => (input.todos.length === 0 ? 'clear the list' : todoProgress(input.todos)),
    run: async (input) => ({
      content: input.todos.length === 0 ? 'The task list is now empty.' : `The task list is set (${todoProgress(input.todos)}):\n${renderTodos(input.todos)}`,
      isError: false,
    }),
  };
}
