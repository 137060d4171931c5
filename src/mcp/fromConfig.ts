// The MCP servers of a run, from .mcp.json, .agentrc and the front end's own (an ACP editor's):
// the manager the mcp capability hands its sessions, and `agent doctor` starts to check them.
import type { FrontEndParts } from '../capability/context.js';
import type { TokenCounter } from '../compaction/tokens.js';
import type { Config } from '../config/config.js';
import { registerSecret } from '../log.js';
import { registerTools } from '../tools/registry.js';
import { ProjectTrust, trustFilePath } from '../trust/projectTrust.js';
import { mcpServers, passedVars } from './config.js';
import { McpManager } from './manager.js';

/** The MCP servers of .mcp.json and .agentrc, not yet started (undefined when there are none). */
export function mcpFor(
  config: Config,
  env: NodeJS.ProcessEnv,
  counter: TokenCounter,
  isSecret: (name: string) => boolean,
  fromClient: FrontEndParts['mcpServers'] = [],
): McpManager | undefined {
  // a .mcp.json that cannot be read as a whole is told at start (a notice, stderr in -p), naming the file
  const entries = mcpServers(config, env, isSecret, undefined, config.warnings, fromClient);
  if (entries.length === 0) return undefined;
  for (const e of entries) for (const name of passedVars(e)) registerSecret(env[name]?.trim());
  return new McpManager({
    entries,
    config: config.mcp,
    env,
    isSecret,
    trust: new ProjectTrust(trustFilePath(env)),
    projectDir: config.cwd,
    contextWindow: config.model.contextWindow,
    countSpecs: (specs) => counter.countToolSpecs(specs),
    prepareCount: () => counter.load(),
    register: (t) => registerTools(t),
  });
}
