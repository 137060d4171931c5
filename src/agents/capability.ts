// Sub-agents as a capability: the Task tool, closed over the session's runner of child
// sessions (the host's subagents(), session/children.ts) and the agents in force.
import type { Capability, CapabilityFactory } from '../capability/capability.js';
import { registerTools } from '../tools/registry.js';
import { TOOL } from '../tools/toolNames.js';
import type { AgentCatalog } from './agents.js';
import { createTaskTool } from './taskTool.js';

export function subagentCapability(catalog: AgentCatalog): Capability {
  return {
    name: 'subagents',
    toolNames: [TOOL.Task],
    open: (host) => ({ tools: registerTools([createTaskTool(catalog, host.subagents(catalog))]) }),
  };
}

/** The Task tool over the agents in force (agent files and the built-in ones). */
export const subagents: CapabilityFactory = (ctx) => subagentCapability(ctx.agents);
