// The web as a capability: the WebFetch tool, closed over the limits of .agentrc's `web` section.
import type { Capability, CapabilityFactory } from '../capability/capability.js';
import { registerTools } from '../tools/registry.js';
import { TOOL } from '../tools/toolNames.js';
import type { FetchLimits } from './fetchPage.js';
import { createWebFetchTool } from './webFetch.js';

export function webCapability(limits: FetchLimits): Capability {
  return { name: 'web', toolNames: [TOOL.WebFetch], open: () => ({ tools: registerTools([createWebFetchTool(limits)]) }) };
}

/** WebFetch within .agentrc's `web` limits. */
export const web: CapabilityFactory = (ctx) => webCapability(ctx.config.web);
