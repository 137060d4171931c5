// /plan and /todos: plan mode from the prompt, the approved plan, and the task list, read from
// the session's log (src/plan/) like the ledger reads them.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CommandOutput } from '../protocol/views.js';
import type { Session } from '../session/session.js';
import { approvedPlan } from '../plan/plans.js';
import { currentTodos, renderTodos, todoProgress } from '../plan/todos.js';

const text = (t: string): CommandOutput => ({ kind: 'text', text: t });

/** /todos: the task list with every item's status. */
export function todosView(session: Session): CommandOutput {
  const todos = currentTodos(session.messages({ archived: true }));
  if (todos.length === 0) return text('No task list yet: the model sets one with TodoWrite when work has several steps.');
  return text(`Tasks (${todoProgress(todos)}):\n${renderTodos(todos)}`);
}

/**
 * /plan: plan mode on; /plan <what>: plan mode on, then <what> is sent as the prompt;
 * /plan off: back to ask; /plan show: the approved plan; /plan save <file>: it, written to a file.
 */
export async function planCommand(session: Session, args: string): Promise<CommandOutput | undefined> {
  const words = args.trim();
  if (words === 'show' || words.startsWith('save')) {
    const plan = approvedPlan(session.messages({ archived: true }));
    if (!plan) throw new Error('no plan has been approved in this session yet (in plan mode the model presents one with ExitPlanMode)');
    if (words === 'show') return text(plan.text);
    const file = words.slice('save'.length).trim();
    if (!file) throw new Error('usage: /plan save <file>');
    const path = resolve(session.currentConfig.cwd, file);
    await writeFile(path, `${plan.text}\n`);
    return text(`Saved the approved plan to ${path}`);
  }
  if (words === 'off') {
    if (session.permissions().mode !== 'plan') return text(`Plan mode is not on (the mode is ${session.permissions().mode}).`);
    session.setPermissionMode('ask');
    return text('Plan mode is off: the mode is ask (Bash and edits ask first).');
  }
  session.setPermissionMode('plan');
  if (words === '') return text('Plan mode is on: only reading runs until you approve a plan (Shift+Tab or /plan off to leave).');
  session.titleIfUntitled(`/plan ${words}`);
  await session.prompt(words);
  return undefined;
}
