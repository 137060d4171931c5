// The composition root: every capability of the program, in the order the session takes them
// (their tools join the built-in ones in this order; the Task tool follows them, MCP's tools come
// last). Each line is one capability module's factory (src/<room>/capability.ts), which builds
// what it needs from the run's context and returns undefined when the configuration leaves it
// out. Adding a capability is a folder and a line here (CONTRIBUTING.md, "Adding a capability").
import { editor } from './acp/capability.js';
import { subagents } from './agents/capability.js';
import { background } from './background/capability.js';
import { btw } from './btw/capability.js';
import type { CapabilityFactory } from './capability/capability.js';
import { checkpoints } from './checkpoints/capability.js';
import { goals } from './goals/capability.js';
import { hooks } from './hooks/capability.js';
import { mcp } from './mcp/capability.js';
import { plan } from './plan/capability.js';
import { skills } from './skills/capability.js';
import { web } from './web/capability.js';

export const CAPABILITIES: readonly CapabilityFactory[] = [subagents, background, skills, mcp, hooks, plan, web, editor, goals, checkpoints, btw];
