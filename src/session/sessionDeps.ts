import type { Capability } from '../capability/capability.js';
import type { EngineDeps } from '../compaction/engine.js';
import type { TokenCounter } from '../compaction/tokens.js';
import type { Config } from '../config/config.js';
import type { Provider } from '../llm/provider.js';
import type { Store } from '../store/index.js';
import type { Approver } from '../tools/permissions.js';
import type { BuiltinTools } from '../tools/types.js';
import type { ChildSpec } from './children.js';

/** What a Session is built from: the front end's runtime (bootstrap.ts) or a parent session for a sub-agent. */
export interface SessionDeps {
  config: Config;
  store: Store;
  provider: Provider;
  /** Builds the built-in tools for the session (tools/registry.ts), closed over what it lends them; the capabilities bring the others. */
  tools: BuiltinTools;
  /** What the session brings beyond the built-in tools (sub-agents, skills, MCP, hooks, an editor's files…), in order: bootstrap.ts builds the list from the config. */
  capabilities: readonly Capability[];
  counter: TokenCounter;
  /** Asks the person before a tool that needs approval; absent in print mode (such calls are refused). */
  approver?: Approver;
  /** Creates a provider for another provider family (/model, a compaction.model of the other family); `purpose` names who asked. */
  providerFor?: (config: Config, purpose?: string) => Provider;
  /** Engine settings for tests and benchmarks: its clock, the micro compaction policy. */
  engine?: Pick<EngineDeps, 'now' | 'microPolicy'>;
  /** Set for a sub-agent's session. */
  child?: Pick<ChildSpec, 'role' | 'parent' | 'depth' | 'permissions' | 'title' | 'toolNames' | 'handBackground'>;
}
