// What a capability is built from, and what it brings the whole run beside its sessions. Each
// capability module exports one factory (`CapabilityFactory`, capability.ts): given the run's context (the
// configuration, the environment, who approves, the token counter, where notices go, what the
// person trusted), it builds what it needs (its catalog, its servers, its commands' state) and
// returns its `Capability`, or undefined when the configuration leaves it out. The composition
// root (src/capabilityList.ts) is the list of those factories, in order.
//
// Types only, like the rest of the seam: nothing here runs.
import type { AgentCatalog } from '../agents/agents.js';
import type { TokenCounter } from '../compaction/tokens.js';
import type { Config } from '../config/config.js';
import type { McpServerFileEntry } from '../config/schema.js';
import type { Message, Usage } from '../llm/messages.js';
import type { Provider } from '../llm/provider.js';
import type { CommandOutput, ViewData } from '../protocol/views.js';
import type { Approver } from '../tools/permissions.js';
import type { AnyTool, ToolIo } from '../tools/types.js';
import type { ProjectTrust } from '../trust/projectTrust.js';

/** What the front end lends the run: MCP servers and files of its own (an ACP editor's). */
export interface FrontEndParts {
  readonly mcpServers?: ReadonlyArray<{ name: string; entry: McpServerFileEntry }>;
  readonly io?: ToolIo;
}

/** The run a capability is built for. */
export interface CapabilityContext {
  readonly config: Config;
  readonly env: NodeJS.ProcessEnv;
  /** Asks the person (the TUI, an editor); absent where nobody can answer (print mode). */
  readonly approver?: Approver;
  /** The run's token counter (loads the tokenizer on first use). */
  readonly counter: TokenCounter;
  /** A notice for the person: standard error until the session is open, the session's notices after. */
  report(level: 'info' | 'warning', text: string): void;
  /** Takes the keys out of a text (background output kept on disk). */
  redact(text: string): string;
  /** Names of the variables no hook, MCP server or tool environment may see (the keys). */
  isSecret(name: string): boolean;
  /** What the person approved for their projects (read afresh by each caller). */
  trust(): ProjectTrust;
  /** Print mode's --hooks-trust: the project's code runs without an approval. */
  readonly trustProject: boolean;
  /** The folder beside the database (background output, checkpoints). */
  readonly dataDir: string;
  /** The database is read-only: no session of this run is written. */
  readonly readOnly: boolean;
  /** The built-in tools (a goal's check runs the Bash tool). */
  readonly builtins: readonly AnyTool[];
  /** The sub-agents in force (agent files and the built-in ones). */
  readonly agents: AgentCatalog;
  /** Every tool name of the run, the capabilities' included: complete once every factory ran. */
  toolNames(): readonly string[];
  readonly front: FrontEndParts;
}

/** What a capability's slash command may ask of the session it runs in (Session has it all). */
export interface CommandSession {
  readonly id: string;
  /** A turn is running. */
  readonly busy: boolean;
  readonly currentConfig: Config;
  /** The history the model sees; with `archived`, what compactions archived before it (the task list derives from that log). */
  messages(opts?: { archived?: boolean }): readonly Message[];
  /** What the next request is sent with (the turn's frame): a side question (/btw) is sent with it too. */
  frame(): { readonly config: Config; readonly provider: Provider; readonly system: string };
  /** Bills a request's usage to the session (/cost). */
  bill(model: string, usage: Usage): void;
}

/** A slash command a capability brings (/mcp, /tasks, /goal, /skills, /btw), closed over what it needs. */
export interface CapabilityCommand {
  readonly name: string;
  readonly args?: string;
  readonly description: string;
  /** Answers at once, even while a turn runs. */
  readonly whileBusy?: boolean;
  run(session: CommandSession, args: string, signal: AbortSignal): Promise<CommandOutput | undefined>;
}

/**
 * The views a capability contributes (views as data: src/protocol/views.ts's ViewData), each read
 * when a front end draws it, for the session it shows; `key` names the item (a child's session
 * id), '' for none. The front ends ask the seam for them by name (Runtime.views, UiController.view).
 */
export type CapabilityViews = { readonly [K in keyof ViewData]?: (session: CommandSession, key: string) => ViewData[K] | undefined };

/** A key a capability binds in the TUI ("ctrl+b"), after the built-in ones. */
export interface CapabilityKey {
  /** "ctrl+" and the letter. */
  readonly key: string;
  readonly description: string;
  /** Does what the key does; what the person hears when there was nothing to do, else undefined. */
  press(session: CommandSession): string | undefined;
}
