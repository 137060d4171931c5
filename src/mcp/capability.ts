// MCP as a capability: the servers' tools and their system-prompt section, read at the start of
// each turn (the manager hands back the same set while no server's tools changed).
import type { Capability } from '../capability/capability.js';
import type { McpManager } from './manager.js';

export function mcpCapability(manager: McpManager): Capability {
  return { name: 'mcp', open: () => ({ toolSet: () => manager.toolSet() }) };
}
