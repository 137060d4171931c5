// MCP as a capability: the servers' tools and their system-prompt section, read at the start of
// each turn (the manager hands back the same set while no server's tools changed), and /mcp.
import type { Capability, CapabilityFactory } from '../capability/capability.js';
import { mcpCommand } from './command.js';
import { mcpFor } from './fromConfig.js';
import type { McpManager } from './manager.js';

export function mcpCapability(manager: McpManager): Capability {
  return { name: 'mcp', open: () => ({ toolSet: () => manager.toolSet() }) };
}

/** The run's MCP servers (none configured: no capability, and /mcp says so). MCP servers never see a key. */
export const mcp: CapabilityFactory = (ctx) => {
  const manager = mcpFor(ctx.config, ctx.env, ctx.counter, (name) => ctx.isSecret(name), ctx.front.mcpServers);
  const command = {
    name: 'mcp',
    args: '[reconnect|disable|enable|approve <name>]',
    whileBusy: true,
    description: 'MCP servers: state, tools, what their definitions cost, errors; reconnect, disable or approve one',
    run: async (_session: unknown, args: string) => ({ kind: 'text' as const, text: await mcpCommand(manager, args) }),
  };
  return manager ? { ...mcpCapability(manager), parts: { mcp: manager }, commands: [command] } : { name: 'mcp', open: () => ({}), commands: [command] };
};
