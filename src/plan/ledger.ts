// The task list and the approved plan as sections of the working-state ledger: derived from the
// log like every section, so after a compaction whose summary keeps nothing the next request
// still carries every item with its status, and the plan the person approved, verbatim.
import { ledgerSections } from '../ledger/registry.js';
import type { LedgerItem } from '../ledger/types.js';
import { approvedPlan } from './plans.js';
import { currentTodos, renderTodos } from './todos.js';

/** Registers both sections in the run's registry (every session's ledger derives them from its own log); again is harmless (same ids). */
export function registerPlanSections(): void {
  ledgerSections().register({
    id: 'plan',
    title: 'Approved plan',
    order: 45,
    share: 0.3,
    note: 'The plan the user approved (ExitPlanMode), as written: carry it out.',
    derive: (input): LedgerItem[] => {
      const plan = approvedPlan(input.messages);
      return plan ? [{ text: plan.text, brief: plan.text.split('\n', 1)[0] ?? '', anchor: true }] : [];
    },
  });
  ledgerSections().register({
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
  });
}
