import type { AgentCatalog } from '../agents/agents.js';
import type { EngineDeps } from '../compaction/engine.js';
import type { TokenCounter } from '../compaction/tokens.js';
import type { Config } from '../config/config.js';
import type { Provider } from '../llm/provider.js';
import type { McpManager } from '../mcp/manager.js';
import type { Store } from '../store/index.js';
import type { Approver } from '../tools/permissions.js';
import type { AnyTool } from '../tools/types.js';
import type { ChildSpec } from './children.js';
import type { ExtraTools } from './contextControl.js';
import type { Hooks } from './sessionHooks.js';
import type { SkillCatalog } from '../skills/catalog.js';

/** What a Session is built from: the front end's runtime (bootstrap.ts) or a parent session for a sub-agent. */
export interface SessionDeps {
  config: Config;
  store: Store;
  provider: Provider;
  tools: readonly AnyTool[];
  counter: TokenCounter;
  /** Asks the person before a tool that needs approval; absent in print mode (such calls are refused). */
  approver?: Approver;
  /** Creates a provider for another provider family (/model, a compaction.model of the other family); `purpose` names who asked. */
  providerFor?: (config: Config, purpose?: string) => Provider;
  /** Engine settings for tests and benchmarks: its clock, the micro compaction policy. */
  engine?: Pick<EngineDeps, 'now' | 'microPolicy'>;
  /** The agents the Task tool runs (with a Task tool among `tools`); `child`: set for a sub-agent's session. */
  agents?: AgentCatalog;
  child?: Pick<ChildSpec, 'role' | 'parent' | 'depth' | 'permissions' | 'title'>;
  /** Tools that come and go (MCP servers'), with their system prompt section: read at the start of each turn. */
  extraTools?: () => ExtraTools;
  /** The MCP servers, for /mcp. */
  mcp?: McpManager;
  /** The person's hooks for a session of this id (src/hooks); absent: none run. */
  hooks?: (sessionId: string) => Hooks | undefined;
  /** The skills in force (src/skills): the listing, the Skill tool's host, re-attached after compaction. */
  skills?: SkillCatalog;
}
