// The approved plan: what the person approved when the model presented its plan with
// ExitPlanMode. Like the task list it is derived from the log (the call's result carries the
// plan as approved, edits included), so it follows the session through --continue, --fork,
// /rewind and compaction, and /plan show and the ledger read the same text.
import type { Message, TextBlock } from '../llm/messages.js';
import { promptText } from '../promptText.js';
import { TOOL } from '../tools/toolNames.js';
import PLAN_MODE from './planMode.md';

/** What each prompt says while plan mode is on (the mode can change between turns: Shift+Tab, /plan); its origin keeps it out of what the person typed. */
export const planModeNote: TextBlock = { type: 'text', text: promptText(PLAN_MODE), origin: { kind: 'plan_note' } };

/** The first line of an approval's result; the plan as approved follows PLAN_RULE. */
export const PLAN_APPROVED = 'The user approved the plan';
export const PLAN_RULE = '\n\n--- approved plan ---\n';

/** The result an approval gives the model: what to do now, then the plan as approved (`edited`: the person changed it in their editor first). */
export function approvalResult(plan: string, mode: string, edited = false): string {
  const whose = edited ? ' after editing it: the plan below is their version, which replaces yours; follow it as written' : '';
  return `${PLAN_APPROVED}${whose}; plan mode is off (permission mode: ${mode}). Carry it out now, step by step, tracking the steps with TodoWrite.${PLAN_RULE}${plan}`;
}

/** The plans a message presents (its ExitPlanMode calls), by call id: print mode prints them with the answer. */
export function plansIn(m: Message): Array<{ id: string; plan: string }> {
  return m.blocks.flatMap((b) =>
    b.type === 'tool_use' && b.name === TOOL.ExitPlanMode && typeof b.input.plan === 'string' ? [{ id: b.id, plan: b.input.plan }] : [],
  );
}

/** The calls a message's results approved (a plan approved is carried out, not printed as one waiting). */
export function approvalsIn(m: Message): string[] {
  return m.blocks.flatMap((b) => (b.type === 'tool_result' && !b.isError && b.content.startsWith(PLAN_APPROVED) ? [b.toolUseId] : []));
}

/** The plan of the last approval in a log, with its call's id; undefined before any. */
export function approvedPlan(log: readonly Message[]): { text: string; id: string } | undefined {
  const uses = new Set<string>();
  for (const m of log) for (const b of m.blocks) if (b.type === 'tool_use' && b.name === TOOL.ExitPlanMode) uses.add(b.id);
  for (let i = log.length - 1; i >= 0; i--) {
    for (const b of log[i]!.blocks) {
      if (b.type !== 'tool_result' || b.isError || !uses.has(b.toolUseId) || !b.content.startsWith(PLAN_APPROVED)) continue;
      const at = b.content.indexOf(PLAN_RULE);
      if (at >= 0) return { text: b.content.slice(at + PLAN_RULE.length), id: b.toolUseId };
    }
  }
  return undefined;
}
