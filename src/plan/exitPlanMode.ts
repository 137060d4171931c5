// The ExitPlanMode tool: in plan mode the model presents its plan (Markdown) and the person
// approves it (plan mode ends: ask, or edits accepted), sends it back with a note, or — in print
// mode, where nobody can answer — sees it printed as the turn ends. An approval's result carries
// the plan as approved, which is what /plan show and the ledger read (plans.ts).
import * as z from 'zod/mini';
import type { TurnHost } from '../capability/capability.js';
import { promptText } from '../promptText.js';
import { parseInput, toInputSchema } from '../tools/inputSchema.js';
import { TOOL } from '../tools/toolNames.js';
import type { Tool } from '../tools/types.js';
import DESCRIPTION from './exitPlanMode.md';
import { approvalResult } from './plans.js';

/** A plan longer than this is a document, not a plan to approve. */
export const MAX_PLAN_CHARS = 40_000;

const ExitPlanModeSchema = z.object({
  plan: z.string().check(z.trim(), z.minLength(1), z.maxLength(MAX_PLAN_CHARS), z.describe('The plan, in Markdown.')),
});
type ExitPlanModeInput = z.infer<typeof ExitPlanModeSchema>;

export function createExitPlanModeTool(turn: TurnHost): Tool<ExitPlanModeInput> {
  const inputSchema = toInputSchema(ExitPlanModeSchema);
  return {
    name: TOOL.ExitPlanMode,
    description: promptText(DESCRIPTION),
    inputSchema,
    kind: 'read',
    // the approved plan is read back from this result: never cleared, never spilled
    traits: { compactable: false, spills: false },
    parse: (input) => parseInput(TOOL.ExitPlanMode, ExitPlanModeSchema, inputSchema, input),
    summarize: (input) => input.plan.split('\n', 1)[0] ?? '',
    run: async (input, ctx) => {
      if (turn.permissionMode() !== 'plan')
        return { content: `Plan mode is not on (the mode is ${turn.permissionMode()}): there is no plan to approve; go on with the work.`, isError: true };
      const answer = await turn.askPlan(input.plan, ctx.toolUseId ?? '', ctx.signal);
      if (answer.kind === 'approve') {
        turn.setPermissionMode(answer.mode);
        return { content: approvalResult(answer.plan, answer.mode, answer.edited), isError: false };
      }
      if (answer.kind === 'revise') {
        const edited = answer.plan ? `\n\nThe user edited the plan to this before sending it back; start from it:\n${answer.plan}` : '';
        return {
          content: `The user did not approve the plan${answer.note ? ` and said: ${answer.note}` : '.'} Plan mode stays on: revise the plan and call ExitPlanMode again.${edited}`,
          // the person's answer, not a failure: drawn (and counted by the ledger) as an answer
          isError: false,
        };
      }
      return {
        content:
          'Nobody can approve a plan in non-interactive mode: the plan was printed for the user and the turn ends here. Plan mode stays on; ' +
          'the user approves it by continuing the session in another mode.',
        isError: true,
        stopTurn: true,
      };
    },
  };
}
