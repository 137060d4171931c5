// Goals as a capability: each session (not a sub-agent's) gets its goal (sessionGoal.ts), saved
// in the session's state and restored paused after --resume; its objective and last check are a
// section of the working-state ledger, re-injected verbatim after every compaction; the Goal
// tool comes with it while a goal is open (a tool set: no goal, no tool, the cached prefix of a
// session without goals unchanged). The turns themselves are the front ends' (they ask `next`).
import type { Capability, ToolSet, CapabilityFactory } from '../capability/capability.js';
import { registerTools } from '../tools/registry.js';
import { TOOL } from '../tools/toolNames.js';
import { bashCheck } from './check.js';
import { GOAL_COMMAND, goalCommand } from './command.js';
import { Goals } from './goals.js';
import { createGoalTool } from './goalTool.js';

const NONE: ToolSet = { tools: [], system: '' };

/** Every session's goal, its check run by the Bash tool, and /goal. */
export const goals: CapabilityFactory = (ctx) => {
  const all = new Goals(
    bashCheck(
      ctx.builtins.find((t) => t.name === TOOL.Bash),
      ctx.config.cwd,
      ctx.config.bash.maxTimeoutMs,
    ),
  );
  return {
    ...goalsCapability(all),
    parts: { goals: all },
    commands: [{ ...GOAL_COMMAND, run: async (session, args) => ({ kind: 'text', text: goalCommand(all, session, args) }) }],
  };
};

export function goalsCapability(goals: Goals): Capability {
  return {
    name: 'goals',
    open: (host) => {
      if (host.parent) return {};
      const goal = goals.open(host.sessionId);
      const offered: ToolSet = { tools: registerTools([createGoalTool(goal)]), system: '' };
      return {
        toolSet: () => {
          const g = goal.current;
          return g && g.status !== 'complete' ? offered : NONE;
        },
        state: {
          key: 'goal',
          restore: (saved) => goal.restore(saved, host.resumed),
          save: () => goal.save(),
          ledger: () => goal.ledger(),
        },
      };
    },
  };
}
