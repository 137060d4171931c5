// The Goal tool: the model reads the session's goal or claims it is met. A claim with a check
// command runs the check (the same runner as Bash) and holds only if it passes; without one, the
// model's word ends the goal. Offered only while the session has an open goal (capability.ts).
import * as z from 'zod/mini';
import { promptText } from '../promptText.js';
import { parseInput, toInputSchema } from '../tools/inputSchema.js';
import { TOOL } from '../tools/toolNames.js';
import type { Tool } from '../tools/types.js';
import DESCRIPTION from './goalTool.md';
import type { SessionGoal } from './sessionGoal.js';

const GoalInputSchema = z.object({ action: z.enum(['read', 'complete']) });
type GoalInput = z.infer<typeof GoalInputSchema>;

export function createGoalTool(goal: SessionGoal): Tool<GoalInput> {
  const inputSchema = toInputSchema(GoalInputSchema);
  return {
    name: TOOL.Goal,
    description: promptText(DESCRIPTION),
    inputSchema,
    kind: 'read',
    // short answers, and the last check's output is what the next turn needs
    traits: { spills: false, compactable: false },
    parse: (input) => parseInput(TOOL.Goal, GoalInputSchema, inputSchema, input),
    summarize: (input) => (input.action === 'complete' ? 'claim the goal is met' : 'read the goal'),
    run: async (input, ctx) => {
      if (input.action === 'read') return { content: goal.describe(), isError: false };
      const r = await goal.claim(ctx.signal);
      return { content: r.text, isError: !r.accepted };
    },
  };
}
