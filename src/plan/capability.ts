// Planning as a capability: the TodoWrite tool (tools.tasks), ExitPlanMode, the reminder that tells the model
// it is in plan mode (the gate enforces it: tools/permissions.ts), and the ledger sections that
// carry the task list and the approved plan through compaction. The list and the plan are read
// from the session's log (todos.ts, plans.ts), so they need no saved state of their own.
import type { Capability, CapabilityFactory } from '../capability/capability.js';
import { registerTools } from '../tools/registry.js';
import { TOOL } from '../tools/toolNames.js';
import { PLAN_SECTIONS } from './ledger.js';
import { planModeNote } from './plans.js';
import { taskList } from './todos.js';
import { createTodoWriteTool } from './todoWrite.js';
import { createExitPlanModeTool } from './exitPlanMode.js';

export type TasksSetting = 'auto' | 'on' | 'off';

/**
 * Below this window "auto" leaves the task list out: its definition and prompt line (414 tokens by the tokenizer: 386 + 28, sent with
 * every request) would then be more than 1.3% of what the model can read.
 */
export const TASKS_MIN_WINDOW = 32_000;

/** Whether the session offers TodoWrite. */
export const offersTasks = (setting: TasksSetting, contextWindow: number): boolean =>
  setting === 'on' || (setting === 'auto' && contextWindow >= TASKS_MIN_WINDOW);

export function planCapability(opts: { tasks: TasksSetting; contextWindow: number }): Capability {
  const tasks = offersTasks(opts.tasks, opts.contextWindow);
  return {
    name: 'plan',
    toolNames: [...(tasks ? [TOOL.TodoWrite] : []), TOOL.ExitPlanMode],
    // the task list the front ends show (above the TUI's prompt, ACP's plan), read from the log
    views: { todos: (session) => taskList(session.messages({ archived: true })) },
    open: (host) => ({
      tools: registerTools([...(tasks ? [createTodoWriteTool()] : []), createExitPlanModeTool(host.turn)]),
      ledger: PLAN_SECTIONS,
      hooks: {
        // each prompt in plan mode says so: the mode can change between turns (Shift+Tab, /plan)
        beforePrompt: async () => ({ blocks: host.turn.permissionMode() === 'plan' ? [planModeNote] : [] }),
      },
    }),
  };
}

/** Planning as tools.tasks and the model's window say. */
export const plan: CapabilityFactory = (ctx) => planCapability({ tasks: ctx.config.tools?.tasks ?? 'auto', contextWindow: ctx.config.model.contextWindow });
