// /goal: sets the session's goal (src/goals/), shows it, pauses, resumes or clears it. Setting
// or resuming starts nothing here: the front end that drives the session asks the goal for its
// next turn once it is idle (the person's queued input first).
import type { CommandSession } from '../capability/context.js';
import { parseGoalArgs } from './goal.js';
import type { Goals } from './goals.js';

/** /goal as the slash menu and /help list it; it answers while a turn runs (pause, status). */
export const GOAL_COMMAND = {
  name: 'goal',
  args: '[<objective> [--check "<command>"] [--tokens N] [--turns N] [--time 30m] | pause | resume | clear]',
  whileBusy: true,
  description: 'work toward an objective turn after turn until its check passes or a budget ends it; alone: its status',
};

export function goalCommand(goals: Goals | undefined, session: Pick<CommandSession, 'id' | 'busy'>, args: string): string {
  const goal = goals?.of(session.id);
  if (!goal) throw new Error('this session has no goals (a sub-agent, or a front end without them)');
  const words = args.trim();
  if (words === '') return goal.status();
  if (words === 'pause') {
    if (!goal.pause('paused by /goal pause'))
      throw new Error(`no active goal to pause${goal.current ? ` (it is ${goal.current.status.replace('_', '-')})` : ''}`);
    return session.busy ? 'The goal is paused: the running turn ends as it would, and no other starts for it.' : 'The goal is paused.';
  }
  if (words === 'resume') {
    goal.resume();
    return `Resuming the goal: ${goal.current!.objective}`;
  }
  if (words === 'clear') return goal.clear() ? 'The goal is cleared.' : 'There was no goal.';
  const parsed = parseGoalArgs(words);
  const replaced = goal.current && goal.current.status !== 'complete' ? ' (it replaces the previous one)' : '';
  goal.set(parsed);
  return `Goal set${replaced}: ${parsed.objective}${parsed.check ? `\nCheck: ${parsed.check}` : '\nNo check: the model says when it is done.'}`;
}
