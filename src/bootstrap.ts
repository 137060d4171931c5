import { world } from './runtime/world.js';
import { dirname, join } from 'node:path';
import { CliError, EXIT_USAGE } from './cliError.js';
import { findSessionToResume, forkSession, readOnlyCopy, removeLeftoverCopies } from './sessionLookup.js';
import type { GlobalOptions } from './cliOptions.js';
import { TokenCounter } from './compaction/tokens.js';
import { loadConfig, loadDbPath, type Config } from './config/config.js';
import { configFor, flagsOf } from './runConfig.js';
import { hiddenFromShell, secretVars } from './config/secrets.js';
import { providerFor } from './providerFor.js';
import { withLearnedModel } from './modelLearning.js';
import { debug, DebugLogError, enableDebugLog, redact, registerSecret } from './log.js';
import { SessionInUseError } from './session/lease.js';
import { promptHistoryBeside, type PromptHistory } from './session/promptHistory.js';
import { Session } from './session/session.js';
import { openStore, type SessionInfo, type Store } from './store/index.js';
import { createTools } from './tools/registry.js';
import { loadRunAgents } from './agents/agentFiles.js';
import type { Capability, RunParts } from './capability/capability.js';
import type { CapabilityContext, CapabilityKey, CapabilityViews, FrontEndParts } from './capability/context.js';
import { CAPABILITIES } from './capabilityList.js';
import { ProjectTrust, trustFilePath } from './trust/projectTrust.js';
import { runCommands, type RunCommands } from './commands/registry.js';
import { startSandbox } from './sandbox/start.js';

// Turns flags, config files and the environment into a ready Session (shared by print
// mode and the TUI).

export interface Runtime {
  config: Config;
  store: Store;
  session: Session;
  promptHistory: PromptHistory;
  /** Custom slash commands (.agent/commands, .claude/commands, ~/.config/agent/commands), skills' /name among them. */
  commands: RunCommands['custom'];
  /** The capabilities' slash commands (/skills, /mcp, /tasks, /goal, /btw…): the front ends pass them with the built-in ones. */
  slash: RunCommands['slash'];
  /** What the capabilities show the front ends, by name (the task list, the /tasks panel's rows): views as data, read for a session. */
  views: CapabilityViews;
  /** The keys the capabilities bind in the TUI (Ctrl+B), after the built-in ones. */
  keys: readonly CapabilityKey[];
  /** The skills in force (print mode's init message). */
  skills: NonNullable<RunParts['skills']>;
  /** The tools' names (for custom commands' allowed-tools). */
  toolNames: string[];
  /** Opens another stored session (or a new one) with the same store and settings. */
  openSession(resume?: SessionInfo): Promise<Session>;
  /** The MCP servers of this run (undefined when none are configured). */
  mcp: RunParts['mcp'];
  /** Every session's background commands (print mode stops them after the result, the TUI lists them in /tasks). */
  background: NonNullable<RunParts['background']>;
  /** The OS sandbox Bash runs in (undefined when sandbox.enabled is not set): /sandbox, the footer. */
  sandbox: Awaited<ReturnType<typeof startSandbox>>;
  /** Every session's goal (/goal; the front ends drive its turns and show it). */
  goals: NonNullable<RunParts['goals']>;
  /** Closes the session and the store; the MCP servers are stopped by `mcp.close()`, which the front ends await. */
  close(): void;
}

export function openStoreFor(config: Config): Store {
  return openStore(config.dbPath);
}

/** The database alone (`agent sessions`): no model or provider is resolved, so none is needed. */
export function openStoreOnly(opts: GlobalOptions, env: NodeJS.ProcessEnv = world().env): Store {
  return openStore(loadDbPath({ cwd: world().cwd, env, flags: flagsOf(opts) }));
}

/** What the front end lends the runtime: who approves tools, who shows the providers' warnings, its MCP servers and files (FrontEndParts: an ACP editor's). */
export interface RuntimeHost extends FrontEndParts {
  approver?: CapabilityContext['approver'];
  onProviderWarning?: (message: string) => void;
  /** The run only reads the session (-p /todos): a session another process writes is read from a copy (its id is not the one resumed), removed at close. */
  readsOnly?: boolean;
  /** The run's configuration, loaded already (the TUI draws a fresh session's first frame from it); else it is loaded here. */
  config?: Config;
  /** The prompt history read already (that first frame's Up recalls it); else it is made here. */
  promptHistory?: PromptHistory;
}

export async function createRuntime(
  opts: GlobalOptions,
  host: RuntimeHost = {},
  env: NodeJS.ProcessEnv = world().env,
): Promise<{ runtime: Runtime; resumed: boolean }> {
  const { approver, onProviderWarning } = host;
  let config = host.config ?? configFor(opts, env);
  if (opts.debug) {
    try {
      // --debug [file]; --debug=full (or full:<file>) logs message and tool contents too
      const value = typeof opts.debug === 'string' ? opts.debug : '';
      const full = value === 'full' || value.startsWith('full:');
      const file = full ? value.slice(5) : value;
      enableDebugLog(file || join(dirname(config.dbPath), 'agent-debug.log'), { full });
    } catch (e) {
      if (e instanceof DebugLogError) throw new CliError(e.message, EXIT_USAGE);
      throw e;
    }
  }
  // every key this process can see is redacted, whatever provider the session uses
  for (const name of secretVars(config, env)) registerSecret(env[name]?.trim());
  const store = openStoreFor(config);
  try {
    // a stored session keeps its own provider and model unless this run's flags name one
    const keepsOwnModel = (info: SessionInfo | undefined, current: Config): info is SessionInfo =>
      info !== undefined && !opts.model && !opts.provider && (info.model !== current.model.name || info.provider !== current.provider);
    const ownConfig = (info: SessionInfo): Config =>
      loadConfig({ cwd: world().cwd, env, flags: { ...flagsOf(opts), model: info.model, provider: info.provider } });
    if (!store.readonly) removeLeftoverCopies(store);
    const found = findSessionToResume(store, config, opts);
    const resume = found && opts.fork ? forkSession(store, found, config.cwd) : found;
    if (keepsOwnModel(resume, config)) config = ownConfig(resume);
    const provider = providerFor(config, env, undefined, onProviderWarning);
    // a notice that arrives after start: the front end's, else standard error (print mode)
    config = await withLearnedModel(store, config, provider, (message) =>
      onProviderWarning ? onProviderWarning(message) : world().stderr.write(`agent: warning: ${message}\n`),
    );
    // the tokenizer loads only once a request could come near a compaction threshold
    const counter = new TokenCounter();
    const hidden = new Set(hiddenFromShell(config, env));
    const sandbox = await startSandbox(config, trustFilePath(env), approver);
    const bash = { ...config.bash, hideEnv: (name: string) => hidden.has(name), ...(sandbox ? { sandbox } : {}) };
    const tools = createTools({ bash });
    // agent files (.agent/agents, .claude/agents, the personal ones): a bad one is a warning, not a failure
    const agents = await loadRunAgents(config.cwd, tools);
    const secrets = new Set(secretVars(config, env));
    let reportHook: (level: 'info' | 'warning', text: string) => void = (level, text) =>
      world().stderr.write(`agent: ${level === 'warning' ? 'warning: ' : ''}${text}\n`);
    const context: CapabilityContext = {
      config,
      env,
      ...(approver ? { approver } : {}),
      counter,
      report: (level, text) => reportHook(level, text),
      redact,
      isSecret: (name) => secrets.has(name),
      trust: () => new ProjectTrust(trustFilePath(env)),
      trustProject: opts.hooksTrust === true,
      dataDir: dirname(config.dbPath),
      readOnly: store.readonly,
      builtins: tools,
      agents,
      toolNames: () => toolNames,
      front: { ...(host.mcpServers ? { mcpServers: host.mcpServers } : {}), ...(host.io ? { io: host.io } : {}) },
    };
    // each capability builds itself from the run's context, in the list's order
    const capabilities: Capability[] = [];
    for (const factory of CAPABILITIES) {
      const built = await factory(context);
      if (built) capabilities.push(built);
    }
    const parts: RunParts = Object.assign({}, ...capabilities.map((c) => c.parts ?? {}));
    const { background, goals, skills } = parts;
    if (!background || !goals || !skills) throw new Error('the capability list lacks background commands, goals or skills');
    const toolNames: string[] = [...tools.map((t) => t.name), ...capabilities.flatMap((c) => c.toolNames ?? [])];
    const promptHistory = host.promptHistory ?? promptHistoryBeside(config.dbPath);
    const openSession = async (info?: SessionInfo): Promise<Session> => {
      let cfg = config;
      let prov = provider;
      if (keepsOwnModel(info, config)) {
        cfg = ownConfig(info);
        prov = providerFor(cfg, env, undefined, onProviderWarning);
      }
      // the person's skill folders are readable like the project (their references, their scripts)
      const readPaths = [...cfg.permissions.readPaths, ...skills.readPaths()];
      return Session.open(
        {
          config: { ...cfg, permissions: { ...cfg.permissions, readPaths } },
          store,
          provider: prov,
          // each session builds its own, closed over what it lends them
          tools: (lent) => createTools({ bash }, lent),
          capabilities,
          counter,
          ...(approver ? { approver } : {}),
          providerFor: (c, purpose) => providerFor(c, env, purpose, onProviderWarning),
        },
        info,
      );
    };
    let session: Session;
    try {
      session = await openSession(resume);
    } catch (e) {
      if (!(e instanceof SessionInUseError) || !host.readsOnly || !resume) {
        throw e instanceof SessionInUseError ? Object.assign(new CliError(e.message, EXIT_USAGE), { cause: e }) : e;
      }
      session = await openSession(store.getSession(readOnlyCopy(store, resume, config.cwd).id));
    }
    for (const w of agents.warnings) session.loadNotes.push(`Agent file ${w}`);
    reportHook = (level, text) => runtime.session.notice(level, text);
    if (found && resume && found.id !== resume.id) session.loadNotes.unshift(`Forked session ${found.id} into ${resume.id}; this process continues the copy.`);
    debug('session ready', { id: session.id, resumed: resume !== undefined, model: config.model.name, provider: config.provider });
    const { custom, slash, warnings } = await runCommands(capabilities, config.cwd, env);
    config.warnings.push(...warnings);
    let closed = false;
    const runtime: Runtime = {
      config,
      store,
      session,
      promptHistory,
      commands: custom,
      slash,
      views: Object.assign({}, ...capabilities.map((c) => c.views ?? {})),
      keys: capabilities.flatMap((c) => c.keys ?? []),
      skills,
      toolNames,
      openSession,
      mcp: parts.mcp,
      background,
      sandbox,
      goals,
      close: () => {
        // once: a signal's shutdown and the front end's own ending may both come here
        if (closed) return;
        closed = true;
        runtime.session.close();
        if (host.readsOnly && resume && runtime.session.id !== resume.id) store.deleteSession(runtime.session.id);
        store.close();
        void sandbox?.close();
      },
    };
    return { runtime, resumed: resume !== undefined };
  } catch (e) {
    store.close();
    throw e;
  }
}
