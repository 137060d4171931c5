// The task list and the approved plan as sections of the working-state ledger: derived from the
// log like every section, so after a compaction whose summary keeps nothing the next request
// still carries every item with its status, and the plan the person approved, verbatim.
import type { LedgerItem, LedgerSection } from '../ledger/types.js';
import { approvedPlan } from './plans.js';
import { currentTodos, renderTodos } from './todos.js';

/** Both sections, which the plan capability hands every session (each session's ledger derives them from its own log). */
export const PLAN_SECTIONS: readonly LedgerSection[] = [
  {
    id: 'plan',
    title: 'Approved plan',
    order: 45,
    share: 0.3,
    note: 'The plan the user approved (ExitPlanMode), as written: carry it out.',
    derive: (input): LedgerItem[] => {
      const plan = approvedPlan(input.messages);
      return plan ? [{ text: plan.text, brief: plan.text.split('\n', 1)[0] ?? '', anchor: true }] : [];
    },
  },
  {
    id: 'tasks',
    title: 'Task list',
    order: 46,
    share: 0.25,
    note: 'As last set with TodoWrite, every item with its status ([x] completed, [~] in progress, [ ] pending, [-] cancelled, [!] blocked).',
    derive: (input): LedgerItem[] => {
      const todos = currentTodos(input.messages);
      if (todos.length === 0) return [];
      return renderTodos(todos)
        .split('\n')
        .map((line) => ({ text: line, anchor: true }));
    },
  },
];
