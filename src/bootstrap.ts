import { world } from './runtime/world.js';
import { dirname, join } from 'node:path';
import { CliError, EXIT_USAGE } from './cliError.js';
import { findSessionToResume, forkSession, readOnlyCopy, removeLeftoverCopies } from './sessionLookup.js';
import type { GlobalOptions } from './cliOptions.js';
import { TokenCounter } from './compaction/tokens.js';
import { loadConfig, loadDbPath, type Config, type ConfigFlags } from './config/config.js';
import { MissingKeyError, resolveCredentials } from './config/credentials.js';
import { hiddenFromShell, secretVars } from './config/secrets.js';
import { createProvider } from './llm/factory.js';
import type { Provider } from './llm/provider.js';
import { withLearnedModel } from './modelLearning.js';
import { debug, DebugLogError, enableDebugLog, redact, registerSecret } from './log.js';
import { SessionInUseError } from './session/lease.js';
import { PromptHistory } from './session/promptHistory.js';
import { Session } from './session/session.js';
import { openStore, type SessionInfo, type Store } from './store/index.js';
import type { McpServerFileEntry } from './config/schema.js';
import type { Approver } from './tools/permissions.js';
import type { ToolIo } from './tools/types.js';
import { createTools, registerTools } from './tools/registry.js';
import { loadAgents } from './agents/agentFiles.js';
import { subagentCapability } from './agents/capability.js';
import type { Capability } from './capability/capability.js';
import { hooksCapability } from './hooks/capability.js';
import { mcpCapability } from './mcp/capability.js';
import { McpManager } from './mcp/manager.js';
import { mcpServers, passedVars } from './mcp/config.js';
import { ProjectTrust, trustFilePath } from './trust/projectTrust.js';
import { hookEnv, Hooks, type HooksAnswer, type HooksApprovalRequest } from './hooks/hooks.js';
import { commandDirs, loadCustomCommands, type CustomCommand } from './commands/custom.js';
import { COMMANDS } from './commands/registry.js';
import { findSkills, type SkillCatalog } from './skills/catalog.js';
import { withSkillCommands } from './skills/commands.js';
import { skillsCapability } from './skills/capability.js';
import { editorCapability } from './acp/capability.js';
import { planCapability } from './plan/capability.js';
import { webCapability } from './web/capability.js';
import { TOOL } from './tools/toolNames.js';
import { backgroundCapability } from './background/capability.js';
import { checkpointsCapability } from './checkpoints/capability.js';
import { BackgroundCommands } from './background/commands.js';
import { goalsCapability } from './goals/capability.js';
import { bashCheck } from './goals/check.js';
import { Goals } from './goals/goals.js';
import { backgroundSection } from './background/ledgerSection.js';
import { ledgerSections } from './ledger/registry.js';
import type { SandboxRuntime } from './sandbox/runtime.js';
import { startSandbox } from './sandbox/start.js';

/** The person is asked through the approval prompt: remember for the project, this session only, or not at all. */
async function askHooksApproval(approver: Approver, req: HooksApprovalRequest, signal: AbortSignal): Promise<HooksAnswer> {
  const answer = await approver(
    {
      toolName: 'Hooks',
      toolUseId: `hooks-approval-${req.file}`,
      input: {},
      summary: req.hooks.join('\n'),
      projectCode: { what: 'hooks', name: req.file, file: req.file, changed: req.changed },
    },
    signal,
  );
  return answer.kind === 'allow_tool' ? 'remember' : answer.kind === 'allow_once' ? 'session' : 'no';
}

/** A project skill's code asks through the same prompt as a project's hooks. */
async function askSkillApproval(
  approver: Approver,
  question: string,
  skill: { name: string; file: string; changed: boolean },
  signal: AbortSignal,
): Promise<HooksAnswer> {
  const answer = await approver(
    { toolName: TOOL.Skill, toolUseId: `skill-approval-${skill.file}`, input: {}, summary: question, projectCode: { what: 'skill', ...skill } },
    signal,
  );
  return answer.kind === 'allow_tool' ? 'remember' : answer.kind === 'allow_once' ? 'session' : 'no';
}

// Turns flags, config files and the environment into a ready Session (shared by print
// mode and the TUI).

export interface Runtime {
  config: Config;
  store: Store;
  session: Session;
  promptHistory: PromptHistory;
  /** Custom slash commands (.agent/commands, .claude/commands, ~/.config/agent/commands). */
  commands: CustomCommand[];
  /** The skills in force (/skills). */
  skills: SkillCatalog;
  /** The tools' names (for custom commands' allowed-tools). */
  toolNames: string[];
  /** Opens another stored session (or a new one) with the same store and settings. */
  openSession(resume?: SessionInfo): Promise<Session>;
  /** The MCP servers of this run (undefined when none are configured). */
  mcp: McpManager | undefined;
  /** Every session's background commands (print mode stops them after the result, the TUI lists them in /tasks). */
  background: BackgroundCommands;
  /** The OS sandbox Bash runs in (undefined when sandbox.enabled is not set): /sandbox, the footer. */
  sandbox: SandboxRuntime | undefined;
  /** Every session's goal (/goal; the front ends drive its turns and show it). */
  goals: Goals;
  /** Closes the session and the store; the MCP servers are stopped by `mcp.close()`, which the front ends await. */
  close(): void;
}

export function flagsOf(opts: GlobalOptions): ConfigFlags {
  return {
    ...(opts.provider ? { provider: opts.provider } : {}),
    ...(opts.model ? { model: opts.model } : {}),
    ...(opts.baseUrl ? { baseURL: opts.baseUrl } : {}),
    ...(opts.db ? { db: opts.db } : {}),
    ...(opts.permissionMode ? { permissionMode: opts.permissionMode } : {}),
    ...(opts.maxSteps ? { maxSteps: opts.maxSteps } : {}),
    ...(opts.addDir && opts.addDir.length > 0 ? { addDirs: opts.addDir } : {}),
    ...(opts.allowedTools && opts.allowedTools.length > 0
      ? {
          allowedTools: opts.allowedTools
            .flatMap((t) => t.split(','))
            .map((t) => t.trim())
            .filter((t) => t !== ''),
        }
      : {}),
    ...(opts.mcpTrust ? { mcpTrust: true } : {}),
  };
}

export function configFor(opts: GlobalOptions, env: NodeJS.ProcessEnv = world().env): Config {
  return loadConfig({ cwd: world().cwd, env, flags: flagsOf(opts) });
}

export function openStoreFor(config: Config): Store {
  return openStore(config.dbPath);
}

/** The database alone (`agent sessions`): no model or provider is resolved, so none is needed. */
export function openStoreOnly(opts: GlobalOptions, env: NodeJS.ProcessEnv = world().env): Store {
  return openStore(loadDbPath({ cwd: world().cwd, env, flags: flagsOf(opts) }));
}

/**
 * A provider for the config's family; `purpose` names the setting that asked for it, for a missing key.
 * SDK warnings (e.g. a deprecated model) go to the debug log and to `onWarning`, the caller's notices.
 */
export function providerFor(config: Config, env: NodeJS.ProcessEnv = world().env, purpose?: string, onWarning?: (message: string) => void): Provider {
  let creds;
  try {
    creds = resolveCredentials(config, env);
  } catch (e) {
    if (e instanceof MissingKeyError)
      throw new CliError(purpose ? `${purpose} is served by ${config.provider}, and there is ${e.message}` : e.message, EXIT_USAGE);
    throw e;
  }
  registerSecret(creds.apiKey);
  return createProvider({
    provider: config.provider,
    apiKey: creds.apiKey,
    ...(creds.baseURL ? { baseURL: creds.baseURL } : {}),
    ...(creds.keyVar ? { apiKeyEnv: creds.keyVar } : {}),
    ...(config.api ? { api: config.api } : {}),
    ...(config.reasoningEffort ? { reasoningEffort: config.reasoningEffort } : {}),
    connectTimeoutMs: config.timeouts.connectMs,
    firstByteTimeoutMs: config.timeouts.firstByteMs,
    idleTimeoutMs: config.timeouts.idleMs,
    cache: config.cache,
    onWarning: (message) => {
      debug(`provider warning: ${message}`);
      onWarning?.(message);
    },
  });
}

/** What the front end lends the runtime: who approves tools, who shows the providers' warnings. */
export interface RuntimeHost {
  approver?: Approver;
  onProviderWarning?: (message: string) => void;
  /** MCP servers the front end brings (an ACP editor's, from session/new). */
  mcpServers?: ReadonlyArray<{ name: string; entry: McpServerFileEntry }>;
  /** Where the tools reach files and run commands, when the front end lends its own (an ACP editor's buffers and terminals). */
  io?: ToolIo;
  /** The run only reads the session (-p /todos): a session another process writes is read from a copy (its id is not the one resumed), removed at close. */
  readsOnly?: boolean;
}

export async function createRuntime(
  opts: GlobalOptions,
  host: RuntimeHost = {},
  env: NodeJS.ProcessEnv = world().env,
): Promise<{ runtime: Runtime; resumed: boolean }> {
  const { approver, onProviderWarning } = host;
  let config = configFor(opts, env);
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
    // agent files (.agent/agents, .claude/agents, the personal ones): a bad one is a warning, not a failure
    const tools = createTools({ bash });
    // an agent file may name the built-in tools, Task, and TodoWrite (a sub-agent keeps its own task list)
    const agents = await loadAgents({ cwd: config.cwd }, [...tools.map((t) => t.name), TOOL.Task, TOOL.TodoWrite]);
    // skills (.claude/skills, .agents/skills, …): a broken SKILL.md is a warning; a project skill's code runs once trusted
    const skills = await findSkills(config.cwd, env, {
      cwd: config.cwd,
      trust: new ProjectTrust(trustFilePath(env)),
      trustProject: opts.hooksTrust === true,
      ...(approver
        ? {
            askApproval: (question: string, skill: { name: string; file: string; changed: boolean }, signal: AbortSignal) =>
              askSkillApproval(approver, question, skill, signal),
          }
        : {}),
      report: (level, text) => reportHook(level, text),
    });
    // MCP servers and hooks never see a key, not even one bash.passEnv lets Bash see
    const secrets = new Set(secretVars(config, env));
    const mcp = mcpFor(config, env, counter, secrets, host.mcpServers);
    let reportHook: (level: 'info' | 'warning', text: string) => void = (level, text) =>
      world().stderr.write(`agent: ${level === 'warning' ? 'warning: ' : ''}${text}\n`);
    const hooksFor = (sessionId: string): Hooks | undefined =>
      config.hookSources && config.hookSources.length > 0
        ? new Hooks({
            sources: config.hookSources,
            sessionId,
            cwd: config.cwd,
            env: hookEnv(env, (name) => secrets.has(name)),
            toolNames,
            trust: new ProjectTrust(trustFilePath(env)),
            trustProject: opts.hooksTrust === true,
            ...(approver ? { askApproval: (req: HooksApprovalRequest, signal: AbortSignal) => askHooksApproval(approver, req, signal) } : {}),
            report: (level, text) => reportHook(level, text),
          })
        : undefined;
    // what the session brings beyond the built-in tools, in this order (the Task tool follows them, MCP's tools come last)
    const background = new BackgroundCommands({ root: join(dirname(config.dbPath), 'background'), maxRunning: config.bash.maxBackground, redact });
    ledgerSections().register(backgroundSection);
    const goals = new Goals(
      bashCheck(
        tools.find((t) => t.name === TOOL.Bash),
        config.cwd,
        config.bash.maxTimeoutMs,
      ),
    );
    const capabilities: Capability[] = [
      subagentCapability(agents),
      backgroundCapability(background),
      skillsCapability(skills, (host) => host.subagents(agents)),
      ...(mcp ? [mcpCapability(mcp)] : []),
      hooksCapability(hooksFor),
      planCapability({ tasks: config.tools?.tasks ?? 'auto', contextWindow: config.model.contextWindow }),
      webCapability(config.web),
      ...(host.io ? [editorCapability(host.io)] : []),
      goalsCapability(goals),
      // the project at every turn boundary, for /rewind (a read-only database keeps no session to tie them to)
      ...(config.checkpoints.enabled && !store.readonly ? [checkpointsCapability(config.cwd, dirname(config.dbPath), config.checkpoints)] : []),
    ];
    const toolNames = [...tools.map((t) => t.name), ...capabilities.flatMap((c) => c.toolNames ?? [])];
    const promptHistory = new PromptHistory(join(dirname(config.dbPath), 'prompt-history.jsonl'));
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
    const loaded = await loadCustomCommands(
      commandDirs(config.cwd, env),
      COMMANDS.map((c) => c.name),
    );
    const merged = withSkillCommands(
      loaded.commands,
      skills,
      COMMANDS.map((c) => c.name),
    );
    config.warnings.push(...loaded.warnings, ...skills.warnings, ...merged.warnings);
    let closed = false;
    const runtime: Runtime = {
      config,
      store,
      session,
      promptHistory,
      commands: merged.commands,
      skills,
      toolNames,
      openSession,
      mcp,
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

/** The MCP servers of .mcp.json and .agentrc, not yet started (undefined when there are none); `agent doctor` starts them too. */
export function mcpFor(
  config: Config,
  env: NodeJS.ProcessEnv,
  counter: TokenCounter,
  secrets: ReadonlySet<string>,
  fromClient: RuntimeHost['mcpServers'] = [],
): McpManager | undefined {
  const isSecret = (name: string): boolean => secrets.has(name);
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
