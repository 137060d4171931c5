import { dirname, join } from 'node:path';
import { CliError, EXIT_USAGE } from './cliError.js';
import type { GlobalOptions } from './cliOptions.js';
import { TokenCounter } from './compaction/tokens.js';
import { ConfigError, loadConfig, withModel, type Config, type ConfigFlags } from './config/config.js';
import { capabilitiesFrom, CAPABILITIES_TTL_MS } from './config/thinking.js';
import { MissingKeyError, resolveCredentials } from './config/credentials.js';
import { hiddenFromShell, secretVars } from './config/secrets.js';
import { createProvider } from './llm/factory.js';
import type { ModelDescription, Provider } from './llm/provider.js';
import { debug, DebugLogError, enableDebugLog, registerSecret } from './log.js';
import { newId } from './llm/messages.js';
import { SessionInUseError } from './session/lease.js';
import { PromptHistory } from './session/promptHistory.js';
import { Session } from './session/session.js';
import { isStoreError, openStore, type SessionInfo, type Store } from './store/index.js';
import type { Approver } from './tools/permissions.js';
import { createTools } from './tools/registry.js';

// Turns flags, config files and the environment into a ready Session (shared by print
// mode and the TUI).

export interface Runtime {
  config: Config;
  store: Store;
  session: Session;
  promptHistory: PromptHistory;
  /** Opens another stored session (or a new one) with the same store and settings. */
  openSession(resume?: SessionInfo): Promise<Session>;
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
  };
}

export function configFor(opts: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig({ cwd: process.cwd(), env, flags: flagsOf(opts) });
}

export function openStoreFor(config: Config): Store {
  return openStore(config.dbPath);
}

/** A session by id, unique prefix or the short id the footer shows; an ambiguous one is a usage error that says so. */
export function lookUpSession(store: Store, id: string, what: string): SessionInfo | undefined {
  try {
    return store.getSession(id);
  } catch (e) {
    if (isStoreError(e) && e.kind === 'not_found') throw new CliError(`${what}: ${e.message}`, EXIT_USAGE);
    throw e;
  }
}

/** Which stored session --resume <id> / --continue name; undefined for a new session. */
export function findSessionToResume(store: Store, config: Config, opts: GlobalOptions): SessionInfo | undefined {
  if (typeof opts.resume === 'string') {
    const info = lookUpSession(store, opts.resume, '--resume');
    if (!info) throw new CliError(`--resume: no session with id "${opts.resume}" in ${config.dbPath} (list them with \`agent sessions\`)`, EXIT_USAGE);
    return info;
  }
  if (opts.continue) {
    const info = store.latestSession(config.cwd);
    if (!info) throw new CliError(`--continue: no earlier session in ${config.cwd} (start one with \`agent\`)`, EXIT_USAGE);
    return info;
  }
  return undefined;
}

/** --fork: a copy of the stored session under a new id, which this process then continues. */
export function forkSession(store: Store, from: SessionInfo, cwd: string): SessionInfo {
  return store.forkSession(from.id, {
    id: newId('s'),
    cwd,
    provider: from.provider,
    model: from.model,
    ...(from.title ? { title: `${from.title} (fork)` } : {}),
  });
}

/**
 * A provider for the config's family; `purpose` names the setting that asked for it, for a missing key.
 * SDK warnings (e.g. a deprecated model) go to the debug log and to `onWarning`, the caller's notices.
 */
export function providerFor(config: Config, env: NodeJS.ProcessEnv = process.env, purpose?: string, onWarning?: (message: string) => void): Provider {
  let creds;
  try {
    creds = resolveCredentials(config, env);
  } catch (e) {
    if (e instanceof MissingKeyError) throw new CliError(purpose ? `${purpose} is served by ${config.provider}, and there is ${e.message}` : e.message, EXIT_USAGE);
    throw e;
  }
  registerSecret(creds.apiKey);
  return createProvider({
    provider: config.provider,
    apiKey: creds.apiKey,
    ...(creds.baseURL ? { baseURL: creds.baseURL } : {}),
    ...(creds.keyVar ? { apiKeyEnv: creds.keyVar } : {}),
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
}

/**
 * The model's capabilities as its provider described them (cached in the store with their
 * date) over the built-in table; a description missing or older than a week is asked for in
 * the background for the next start, so a start never waits on it and works offline.
 */
function withLearnedCapabilities(store: Store, config: Config, provider: Provider): Config {
  const name = config.model.name;
  if (config.provider !== 'anthropic' || !provider.describeModel) return config;
  let next = config;
  let cached: { body: string; fetchedAt: number } | undefined;
  try {
    cached = store.modelCapabilities(config.provider, name);
  } catch (e) {
    debug('model capabilities unreadable', { error: String(e) });
  }
  if (cached) {
    try {
      next = withModel(config, name, capabilitiesFrom(name, JSON.parse(cached.body) as ModelDescription, cached.fetchedAt));
    } catch (e) {
      if (e instanceof ConfigError) throw new CliError(`${e.message} (as ${config.provider} described the model on ${new Date(cached.fetchedAt).toISOString().slice(0, 10)})`, EXIT_USAGE);
      debug('model capabilities unusable', { error: String(e) });
    }
  }
  if (!cached || Date.now() - cached.fetchedAt > CAPABILITIES_TTL_MS) {
    const providerName = config.provider;
    provider
      .describeModel(name)
      .then((d) => store.saveModelCapabilities(providerName, name, JSON.stringify(d), Date.now()))
      .catch((e: unknown) => debug('model capabilities not learned', { model: name, error: String(e) }));
  }
  return next;
}

export async function createRuntime(opts: GlobalOptions, host: RuntimeHost = {}, env: NodeJS.ProcessEnv = process.env): Promise<{ runtime: Runtime; resumed: boolean }> {
  const { approver, onProviderWarning } = host;
  let config = configFor(opts, env);
  if (opts.debug) {
    try {
      enableDebugLog(typeof opts.debug === 'string' ? opts.debug : join(dirname(config.dbPath), 'agent-debug.log'));
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
    const ownConfig = (info: SessionInfo): Config => loadConfig({ cwd: process.cwd(), env, flags: { ...flagsOf(opts), model: info.model, provider: info.provider } });
    const found = findSessionToResume(store, config, opts);
    const resume = found && opts.fork ? forkSession(store, found, config.cwd) : found;
    if (keepsOwnModel(resume, config)) config = ownConfig(resume);
    const provider = providerFor(config, env, undefined, onProviderWarning);
    config = withLearnedCapabilities(store, config, provider);
    // the tokenizer loads only once a request could come near a compaction threshold
    const counter = new TokenCounter();
    const hidden = new Set(hiddenFromShell(config, env));
    const tools = createTools({ bash: { ...config.bash, hideEnv: (name) => hidden.has(name) } });
    const promptHistory = new PromptHistory(join(dirname(config.dbPath), 'prompt-history.jsonl'));
    const openSession = async (info?: SessionInfo): Promise<Session> => {
      let cfg = config;
      let prov = provider;
      if (keepsOwnModel(info, config)) {
        cfg = ownConfig(info);
        prov = providerFor(cfg, env, undefined, onProviderWarning);
      }
      return Session.open({ config: cfg, store, provider: prov, tools, counter, ...(approver ? { approver } : {}), providerFor: (c, purpose) => providerFor(c, env, purpose, onProviderWarning) }, info);
    };
    let session: Session;
    try {
      session = await openSession(resume);
    } catch (e) {
      if (e instanceof SessionInUseError) throw new CliError(e.message, EXIT_USAGE);
      throw e;
    }
    if (found && resume && found.id !== resume.id) session.loadNotes.unshift(`Forked session ${found.id} into ${resume.id}; this process continues the copy.`);
    debug('session ready', { id: session.id, resumed: resume !== undefined, model: config.model.name, provider: config.provider });
    const runtime: Runtime = {
      config,
      store,
      session,
      promptHistory,
      openSession,
      close: () => {
        runtime.session.close();
        store.close();
      },
    };
    return { runtime, resumed: resume !== undefined };
  } catch (e) {
    store.close();
    throw e;
  }
}
