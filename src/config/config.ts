import { homeDir } from '../runtime/world.js';
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openaiApiFor, type ReasoningEffort } from '../llm/openaiApi.js';
import type { Effort, ProviderName, ThinkingRequest } from '../llm/provider.js';
import type { ThinkingCapabilities, ThinkingSetting } from './thinking.js';
import { ConfigError, mergeRaw, readRawConfig, validateConfig } from './configFile.js';
import { resolveThinking } from './modelThinking.js';
import { claudeHookSources } from './claudeSettings.js';
import { sandboxSettings, type SandboxSettings } from './sandboxSettings.js';
import type { z } from 'zod/mini';
import { editDistance } from '../editDistance.js';
import { withLearnedLimits, type LearnedModel } from './learnedModel.js';
import { BUILTIN_MODELS, inferProvider, lookalikeOf, resolveModel, type ModelLimits, type ResolvedModel, type UserModelEntry } from './models.js';
import {
  BashSchema,
  CacheSchema,
  AgentsSchema,
  ToolsSchema,
  CompactionSchema,
  FileConfigSchema,
  McpSchema,
  WebSchema,
  CheckpointsSchema,
  WebSearchSchema,
  type WebSearchConfig,
  flattenHooks,
  PermissionsSchema,
  OutputSchema,
  RecallSchema,
  RetrySchema,
  TimeoutsSchema,
  type FileConfig,
  type McpServerFileEntry,
  type HookSource,
  type PermissionMode,
  PERMISSION_MODES,
  PERMISSION_MODE_ALIASES,
} from './schema.js';
import { fmtInt } from '../tools/format.js';

export { ConfigError, readConfigFile } from './configFile.js';
export type { HookSource } from './schema.js';

export interface Config {
  cwd: string;
  provider: ProviderName;
  model: ResolvedModel;
  /** Explicit base URL (config or flag); the SDKs' own *_BASE_URL variables apply otherwise. */
  baseURL?: string;
  /** Environment variable to read the key from, if the config names one. */
  apiKeyEnv?: string;
  /** OpenAI: which API to speak, as .agentrc set it; absent: Responses for api.openai.com, Chat Completions elsewhere. */
  api?: 'responses' | 'chat';
  /** OpenAI reasoning models on the Responses API: reasoning.effort, as .agentrc set it (absent: "medium"). */
  reasoningEffort?: ReasoningEffort;
  maxOutputTokens: number;
  /** maxOutputTokens as .agentrc set it (absent: the model's own, capped), kept for /model switches. */
  maxOutputSetting?: number;
  maxSteps: number;
  userModels: Record<string, UserModelEntry>;
  permissions: z.infer<typeof PermissionsSchema>;
  compaction: z.infer<typeof CompactionSchema>;
  bash: z.infer<typeof BashSchema>;
  recall: z.infer<typeof RecallSchema>;
  output: z.infer<typeof OutputSchema>;
  retry: z.infer<typeof RetrySchema>;
  timeouts: z.infer<typeof TimeoutsSchema>;
  cache: z.infer<typeof CacheSchema>;
  agents: z.infer<typeof AgentsSchema>;
  /** Optional tools (.agentrc `tools`); absent: the defaults. */
  tools?: z.infer<typeof ToolsSchema>;
  mcp: z.infer<typeof McpSchema>;
  web: z.infer<typeof WebSchema>;
  sandbox?: SandboxSettings;
  checkpoints: z.infer<typeof CheckpointsSchema>;
  webSearch: WebSearchConfig;
  /** MCP servers from .agentrc files (home, then project), each with the file it came from. */
  mcpServers: { name: string; file: string; entry: McpServerFileEntry }[];
  /** The top-level .agentrc thinking settings (models.<name>.thinking goes over them). */
  thinkingSetting: ThinkingSetting;
  /** What the model can do with thinking (undefined: not known). */
  capabilities?: ThinkingCapabilities;
  /** The thinking every request of this model sends (undefined: none, the provider's default). */
  thinking?: ThinkingRequest;
  /** Settings changed in the session (/effort), over .agentrc's. */
  thinkingOverride?: ThinkingSetting;
  /** What the provider's models endpoint said of models (thinking, limits), by name: a /model switch back keeps it. */
  learned?: Record<string, LearnedModel>;
  dbPath: string;
  /** Files that were read, in order of increasing precedence. */
  sources: string[];
  /** Each file's hooks apart, .agentrc's and Claude Code's settings files' (a project's need the person's approval; home's do not). */
  hookSources?: HookSource[];
  /** The statusLine command of the person's own ~/.agentrc (a project's would run unapproved: ignored, with a warning). */
  statusLine?: { command: string; timeoutMs: number };
  /** Things the user should see (unknown model, ...). */
  warnings: string[];
}

export interface ConfigFlags {
  provider?: string;
  model?: string;
  baseURL?: string;
  db?: string;
  permissionMode?: string;
  maxSteps?: number;
  /** --allowed-tools: more tools (or patterns like mcp__github__*) that run without asking. */
  allowedTools?: string[];
  /** --mcp-trust: run a project's MCP servers without asking. */
  mcpTrust?: boolean;
  /** --add-dir: more directories the read-only tools may read without asking. */
  addDirs?: string[];
}

export interface LoadOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  flags: ConfigFlags;
  /** Home directory (tests point it elsewhere). */
  home?: string;
}

export const DEFAULT_MAX_STEPS = 50;
const DEFAULT_OUTPUT_CAP = 32_000;
const DEFAULT_MODELS: Record<ProviderName, string> = { anthropic: 'claude-sonnet-5-5', openai: 'gpt-5' };

/**
 * The database path alone (`agent sessions`: listing, showing and removing stored sessions need
 * no provider): the files are read and validated as loadConfig reads them, no model is resolved.
 */
export function loadDbPath(opts: LoadOptions): string {
  const home = opts.home ?? homeDir();
  let db: string | undefined;
  for (const file of new Set([join(home, '.agentrc'), join(opts.cwd, '.agentrc')])) {
    const read = readRawConfig(file);
    if (read) db = validateConfig(file, read.json, read).db ?? db;
  }
  return resolve(opts.cwd, opts.flags.db ?? opts.env.AGENT_DB ?? db ?? defaultDbPath(opts.env, home));
}

export function loadConfig(opts: LoadOptions): Config {
  const home = opts.home ?? homeDir();
  const files = [join(home, '.agentrc'), join(opts.cwd, '.agentrc')];
  const unique = files.filter((f, i) => files.indexOf(f) === i);
  const sources: string[] = [];
  // Each file is validated on its own (so errors name it); the raw objects are merged, so a
  // default filled in by the working directory's file never hides a value set at home.
  let merged: Record<string, unknown> = {};
  const mcpFiles = new Map<string, string>();
  const hookSources: HookSource[] = [];
  const projectWarnings: string[] = [];
  for (const file of unique) {
    const read = readRawConfig(file);
    if (read) {
      const raw = read.json;
      const valid = validateConfig(file, raw, read);
      for (const name of Object.keys(valid.mcpServers ?? {})) mcpFiles.set(name, file);
      // a repository may not vouch for its own servers: mcp.trustProject counts only in the person's home file
      if (file !== files[0] && valid.mcp?.trustProject !== undefined) {
        const { trustProject: _ignored, ...rest } = valid.mcp;
        raw.mcp = rest;
      }
      if (file !== files[0] && valid.statusLine !== undefined) {
        delete raw.statusLine;
        projectWarnings.push(`${file}: statusLine is read from ~/.agentrc only (a project's command would run without your approval); ignored`);
      }
      sources.push(file);
      merged = mergeRaw(merged, raw);
      const dir = file === unique[0] ? home : opts.cwd;
      const hooks = valid.hooks ? flattenHooks(valid.hooks) : {};
      if (Object.values(hooks).some((l) => l.length > 0)) hookSources.push({ file, scope: file === unique[0] ? 'user' : 'project', dir, hooks });
    }
  }
  const file = FileConfigSchema.parse(merged);
  // Claude Code's settings files carry hooks too: read as Claude Code reads them (claudeSettings.ts)
  const claude = claudeHookSources(home, opts.cwd);
  const sandbox = sandboxSettings(opts.cwd, home, projectWarnings);
  const config: Config = { ...resolveConfig(file, sources, opts), hookSources: [...hookSources, ...claude.sources], sandbox };
  config.warnings.push(...claude.warnings, ...projectWarnings);
  if (file.statusLine) config.statusLine = { command: file.statusLine.command, timeoutMs: file.statusLine.timeoutMs ?? 2_000 };
  config.mcpServers = Object.entries(file.mcpServers ?? {}).map(([name, entry]) => ({ name, file: mcpFiles.get(name) ?? '.agentrc', entry }));
  return config;
}

function resolveConfig(file: FileConfig, sources: string[], opts: LoadOptions): Config {
  const { flags, env } = opts;
  const warnings: string[] = [];

  const flagProvider = flags.provider;
  if (flagProvider !== undefined && flagProvider !== 'anthropic' && flagProvider !== 'openai') {
    throw new ConfigError(`--provider: "${flagProvider}" is not a provider (use anthropic or openai)`);
  }
  const permissionMode = flags.permissionMode === undefined ? undefined : readPermissionMode(flags.permissionMode);
  if (flags.baseURL !== undefined && !URL.canParse(flags.baseURL)) {
    throw new ConfigError(`--base-url: "${flags.baseURL}" is not a URL`);
  }

  const userModels: Record<string, UserModelEntry> = file.models ?? {};
  const explicitProvider = (flagProvider as ProviderName | undefined) ?? file.provider;
  const modelName = flags.model ?? file.model;
  let provider: ProviderName;
  let model: string;
  if (modelName) {
    model = modelName;
    const inferred = userModels[modelName]?.provider ?? inferProvider(modelName);
    if (explicitProvider) provider = explicitProvider;
    else if (inferred) provider = inferred;
    else if (flags.baseURL ?? file.baseURL ?? env.OPENAI_BASE_URL) provider = 'openai';
    else {
      throw new ConfigError(`--model: cannot tell which provider serves "${modelName}"; pass --provider anthropic|openai, or set "provider" in .agentrc`);
    }
  } else {
    provider = explicitProvider ?? (env.ANTHROPIC_API_KEY || !env.OPENAI_API_KEY ? 'anthropic' : 'openai');
    model = DEFAULT_MODELS[provider];
  }

  const resolved = resolveModel(model, userModels);
  const baseURLSet = (flags.baseURL ?? file.baseURL ?? env.OPENAI_BASE_URL) !== undefined;
  const lookalike = resolved.source === 'default' && !baseURLSet ? lookalikeOf(model) : undefined;
  if (lookalike !== undefined) {
    const near = Object.keys(BUILTIN_MODELS)
      .filter((k) => k.startsWith(lookalike))
      .sort((a, b) => editDistance(model, a) - editDistance(model, b))
      .slice(0, 3);
    throw new ConfigError(
      `${flags.model !== undefined ? '--model' : 'field "model" (.agentrc)'}: unknown model "${model}" — did you mean ${near.join(', ')}? ` +
        `Only a dated snapshot (${lookalike}-YYYYMMDD) extends a known name; describe another model under "models" in .agentrc, or use --base-url for a local server.`,
    );
  }
  if (resolved.source === 'default') {
    warnings.push(
      `Unknown model "${model}": assuming a ${fmtInt(resolved.contextWindow)}-token context window and ${fmtInt(resolved.maxOutputTokens)} output tokens. ` +
        `Describe it under "models" in .agentrc to set its real limits.`,
    );
  }

  const onResponses = provider === 'openai' && openaiApiFor(flags.baseURL ?? file.baseURL ?? env.OPENAI_BASE_URL, file.api) === 'responses';
  if (file.compaction?.engine === 'provider' && !onResponses) {
    warnings.push(
      `compaction.engine "provider" applies to OpenAI models on the Responses API (api.openai.com, or "api": "responses"); ${model} compacts with the agent's own summarizer.`,
    );
  }

  if (file.webSearch?.allowedDomains?.length && file.webSearch.blockedDomains?.length)
    throw new ConfigError('field "webSearch" (.agentrc): set allowedDomains or blockedDomains, not both (the providers take one list)');
  if (file.webSearch?.enabled === true && provider === 'openai' && !onResponses) {
    warnings.push(
      `webSearch.enabled: web search goes through Anthropic's Messages API and OpenAI's Responses API (api.openai.com, or "api": "responses"); ${model} on Chat Completions gets no search.`,
    );
  }

  const maxOutputTokens = outputTokensFor(resolved, file.maxOutputTokens);
  const thinkingSetting: ThinkingSetting = file.thinking ?? {};
  const thinking = resolveThinking(model, provider, userModels, thinkingSetting, maxOutputTokens);
  const addDirs = (flags.addDirs ?? []).map((d) => checkAddDir(opts.cwd, d));
  const permissions = PermissionsSchema.parse({
    ...file.permissions,
    ...(flags.allowedTools && flags.allowedTools.length > 0 ? { allowTools: [...(file.permissions?.allowTools ?? []), ...flags.allowedTools] } : {}),
    ...(permissionMode ? { mode: permissionMode } : {}),
    readPaths: [...(file.permissions?.readPaths ?? []), ...addDirs],
  });

  const dbPath = resolve(opts.cwd, flags.db ?? env.AGENT_DB ?? file.db ?? defaultDbPath(env, opts.home ?? homeDir()));
  const baseURL = flags.baseURL ?? file.baseURL;

  return {
    cwd: opts.cwd,
    provider,
    model: resolved,
    ...(baseURL ? { baseURL } : {}),
    ...(file.apiKeyEnv ? { apiKeyEnv: file.apiKeyEnv } : {}),
    ...(file.api ? { api: file.api } : {}),
    ...(file.reasoningEffort ? { reasoningEffort: file.reasoningEffort } : {}),
    maxOutputTokens,
    ...(file.maxOutputTokens !== undefined ? { maxOutputSetting: file.maxOutputTokens } : {}),
    maxSteps: flags.maxSteps ?? file.maxSteps ?? DEFAULT_MAX_STEPS,
    userModels,
    permissions,
    compaction: CompactionSchema.parse(file.compaction ?? {}),
    bash: BashSchema.parse(file.bash ?? {}),
    recall: RecallSchema.parse(file.recall ?? {}),
    output: OutputSchema.parse(file.output ?? {}),
    retry: RetrySchema.parse(file.retry ?? {}),
    timeouts: TimeoutsSchema.parse(file.timeouts ?? {}),
    cache: CacheSchema.parse(file.cache ?? {}),
    agents: AgentsSchema.parse(file.agents ?? {}),
    tools: ToolsSchema.parse(file.tools ?? {}),
    mcp: McpSchema.parse({ ...file.mcp, ...(flags.mcpTrust ? { trustProject: true } : {}) }),
    web: WebSchema.parse(file.web ?? {}),
    checkpoints: CheckpointsSchema.parse(file.checkpoints ?? {}),
    webSearch: WebSearchSchema.parse(file.webSearch ?? {}),
    mcpServers: [],
    thinkingSetting,
    ...thinking,
    dbPath,
    sources,
    warnings,
  };
}

/** An --add-dir directory, absolute; one that is not there is a usage error. */
function checkAddDir(cwd: string, dir: string): string {
  const abs = resolve(cwd, dir.startsWith('~/') ? join(homeDir(), dir.slice(2)) : dir);
  let isDir = false;
  try {
    isDir = statSync(abs).isDirectory();
  } catch {
    throw new ConfigError(`--add-dir: ${dir} does not exist`);
  }
  if (!isDir) throw new ConfigError(`--add-dir: ${dir} is not a directory`);
  return abs;
}

/** Tokens a reply may use: the configured figure, else the model's max output capped, never above the model's max. */
function outputTokensFor(model: ModelLimits, setting: number | undefined): number {
  return Math.min(setting ?? Math.min(model.maxOutputTokens, DEFAULT_OUTPUT_CAP), model.maxOutputTokens);
}

/**
 * The same config with another model (/model, compaction.model): limits, provider and reply size
 * resolved as at start-up. A model of the other provider family drops the base URL and key
 * variable, which were set for the first one (`api` stays: it only applies to OpenAI); that family's own environment variables apply.
 */
/**
 * The configuration with another thinking effort (/effort, an agent file's `effort`): Anthropic's
 * output_config.effort through the thinking settings (a level the model cannot take is a
 * ConfigError naming it), OpenAI's reasoning effort (max is its xhigh).
 */
export function withEffort(c: Config, effort: Effort): Config {
  if (c.provider === 'openai') return { ...c, reasoningEffort: effort === 'max' ? 'xhigh' : effort };
  const override = { ...c.thinkingOverride, effort };
  const { thinking: _t, capabilities: _c, ...base } = c;
  return {
    ...base,
    thinkingOverride: override,
    ...resolveThinking(
      c.model.name,
      c.provider,
      c.userModels,
      c.thinkingSetting,
      c.maxOutputTokens,
      c.capabilities?.source === 'provider' ? c.capabilities : undefined,
      override,
    ),
  };
}

/**
 * `learned`: what the provider's models endpoint said of the model (default what it said before,
 * Config.learned): its limits stand in for the built-in table's (never for .agentrc's), its
 * thinking capabilities likewise.
 */
export function withModel(config: Config, name: string, learned: LearnedModel | undefined = config.learned?.[name]): Config {
  const model = withLearnedLimits(resolveModel(name, config.userModels), learned?.limits);
  const provider = model.provider ?? config.provider;
  const maxOutputTokens = outputTokensFor(model, config.maxOutputSetting);
  const { thinking: _t, capabilities: _c, ...base } = config;
  const known = learned ? { learned: { ...config.learned, [name]: learned } } : {};
  const next: Config = {
    ...base,
    ...known,
    provider,
    model,
    maxOutputTokens,
    ...resolveThinking(name, provider, config.userModels, config.thinkingSetting, maxOutputTokens, learned?.capabilities, config.thinkingOverride),
  };
  if (provider === config.provider) return next;
  const { baseURL: _baseURL, apiKeyEnv: _apiKeyEnv, ...rest } = next;
  return rest;
}

export function defaultDbPath(env: NodeJS.ProcessEnv, home: string): string {
  const dataHome = env.XDG_DATA_HOME?.startsWith('/') ? env.XDG_DATA_HOME : join(home, '.local', 'share');
  return join(dataHome, 'agent', 'agent.db');
}

/** --permission-mode as written: this program's names or Claude Code's (default, bypassPermissions, dontAsk). */
function readPermissionMode(written: string): PermissionMode {
  if ((PERMISSION_MODES as readonly string[]).includes(written)) return written as PermissionMode;
  const alias = PERMISSION_MODE_ALIASES[written];
  if (alias) return alias;
  throw new ConfigError(
    `--permission-mode: "${written}" is not a mode (use ask, acceptEdits, plan, allow or deny; Claude Code's default, bypassPermissions and dontAsk work too)`,
  );
}
