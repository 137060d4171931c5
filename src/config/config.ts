import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ProviderName } from '../llm/provider.js';
import { stripJsonComments } from './jsonc.js';
import { inferProvider, resolveModel, type ModelLimits, type ResolvedModel, type UserModelEntry } from './models.js';
import {
  BashSchema,
  CacheSchema,
  CompactionSchema,
  FileConfigSchema,
  PermissionsSchema,
  OutputSchema,
  RecallSchema,
  RetrySchema,
  TimeoutsSchema,
  type FileConfig,
  type PermissionMode,
} from './schema.js';
import type { z } from 'zod/mini';

/** A problem with configuration or flags: the CLI prints it and exits 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export interface Config {
  cwd: string;
  provider: ProviderName;
  model: ResolvedModel;
  /** Explicit base URL (config or flag); the SDKs' own *_BASE_URL variables apply otherwise. */
  baseURL?: string;
  /** Environment variable to read the key from, if the config names one. */
  apiKeyEnv?: string;
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
  dbPath: string;
  /** Files that were read, in order of increasing precedence. */
  sources: string[];
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

export function loadConfig(opts: LoadOptions): Config {
  const home = opts.home ?? homedir();
  const files = [join(home, '.agentrc'), join(opts.cwd, '.agentrc')];
  const unique = files.filter((f, i) => files.indexOf(f) === i);
  const sources: string[] = [];
  // Each file is validated on its own (so errors name it); the raw objects are merged, so a
  // default filled in by the working directory's file never hides a value set at home.
  let merged: Record<string, unknown> = {};
  for (const file of unique) {
    const raw = readRawConfig(file);
    if (raw) {
      validateConfig(file, raw);
      sources.push(file);
      merged = mergeRaw(merged, raw);
    }
  }
  return resolveConfig(FileConfigSchema.parse(merged), sources, opts);
}

/** Reads and validates one .agentrc; undefined when the file does not exist. */
export function readConfigFile(file: string): FileConfig | undefined {
  const raw = readRawConfig(file);
  return raw === undefined ? undefined : validateConfig(file, raw);
}

function readRawConfig(file: string): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`${file}: cannot read the file (${(e as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(stripJsonComments(text));
  } catch (e) {
    throw new ConfigError(`${file}: not valid JSON (${(e as Error).message})`);
  }
  if (!isObject(json)) throw new ConfigError(`${file}: must hold a JSON object ({ ... })`);
  return json;
}

function validateConfig(file: string, raw: unknown): FileConfig {
  const result = FileConfigSchema.safeParse(raw);
  if (!result.success) {
    throw new ConfigError(`${file}: ${describeIssue(result.error.issues[0]!)}`);
  }
  return result.data;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Later keys win; nested objects (models, permissions, compaction, ...) merge key by key. */
function mergeRaw(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const prev = out[k];
    out[k] = isObject(prev) && isObject(v) ? { ...prev, ...v } : v;
  }
  return out;
}

/** The field(s) an issue is about and what is wrong; each unknown key is named on its own. */
function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const fields = issue.keys.map((k) => `"${[...path, k].join('.')}"`);
    const one = fields.length === 1;
    return `${one ? 'field' : 'fields'} ${fields.join(', ')}: unknown key${one ? '' : 's'} (see .agentrc.example for the keys)`;
  }
  if (issue.code === 'invalid_key') {
    // a record's key (a model name under "models"): the path ends in the key itself
    const key = path.pop() ?? '';
    return `field "${path.join('.')}": the key ${JSON.stringify(key)} is not valid (${issue.issues[0]?.message ?? issue.message})`;
  }
  return `${path.length > 0 ? `field "${path.join('.')}": ` : ''}${messageOf(issue)}`;
}

/** zod's message; for a value that matches none of a union's forms, what each form expected. */
function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue.message;
  const expected = issue.errors.map((alt) => (alt[0]?.message ?? '').replace(/^Invalid input: /, '')).filter((m) => m !== '');
  return expected.length > 0 ? `Invalid input: ${expected.join(' or ')}` : issue.message;
}

function resolveConfig(file: FileConfig, sources: string[], opts: LoadOptions): Config {
  const { flags, env } = opts;
  const warnings: string[] = [];

  const flagProvider = flags.provider;
  if (flagProvider !== undefined && flagProvider !== 'anthropic' && flagProvider !== 'openai') {
    throw new ConfigError(`--provider: "${flagProvider}" is not a provider (use anthropic or openai)`);
  }
  const permissionMode = flags.permissionMode;
  if (permissionMode !== undefined && !['ask', 'acceptEdits', 'allow', 'deny'].includes(permissionMode)) {
    throw new ConfigError(`--permission-mode: "${permissionMode}" is not a mode (use ask, acceptEdits, allow or deny)`);
  }
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
      throw new ConfigError(
        `--model: cannot tell which provider serves "${modelName}"; pass --provider anthropic|openai, or set "provider" in .agentrc`,
      );
    }
  } else {
    provider = explicitProvider ?? (env.ANTHROPIC_API_KEY || !env.OPENAI_API_KEY ? 'anthropic' : 'openai');
    model = DEFAULT_MODELS[provider];
  }

  const resolved = resolveModel(model, userModels);
  if (resolved.source === 'default') {
    warnings.push(
      `Unknown model "${model}": assuming a ${resolved.contextWindow.toLocaleString('en-US')}-token context window and ${resolved.maxOutputTokens.toLocaleString('en-US')} output tokens. ` +
        `Describe it under "models" in .agentrc to set its real limits.`,
    );
  }

  const maxOutputTokens = outputTokensFor(resolved, file.maxOutputTokens);
  const addDirs = (flags.addDirs ?? []).map((d) => checkAddDir(opts.cwd, d));
  const permissions = PermissionsSchema.parse({
    ...file.permissions,
    ...(permissionMode ? { mode: permissionMode as PermissionMode } : {}),
    readPaths: [...(file.permissions?.readPaths ?? []), ...addDirs],
  });

  const dbPath = resolve(opts.cwd, flags.db ?? env.AGENT_DB ?? file.db ?? defaultDbPath(env, opts.home ?? homedir()));
  const baseURL = flags.baseURL ?? file.baseURL;

  return {
    cwd: opts.cwd,
    provider,
    model: resolved,
    ...(baseURL ? { baseURL } : {}),
    ...(file.apiKeyEnv ? { apiKeyEnv: file.apiKeyEnv } : {}),
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
    dbPath,
    sources,
    warnings,
  };
}

/** An --add-dir directory, absolute; one that is not there is a usage error. */
function checkAddDir(cwd: string, dir: string): string {
  const abs = resolve(cwd, dir.startsWith('~/') ? join(homedir(), dir.slice(2)) : dir);
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
 * variable, which were set for the first one; that family's own environment variables apply.
 */
export function withModel(config: Config, name: string): Config {
  const model = resolveModel(name, config.userModels);
  const provider = model.provider ?? config.provider;
  const next: Config = { ...config, provider, model, maxOutputTokens: outputTokensFor(model, config.maxOutputSetting) };
  if (provider === config.provider) return next;
  const { baseURL: _baseURL, apiKeyEnv: _apiKeyEnv, ...rest } = next;
  return rest;
}

export function defaultDbPath(env: NodeJS.ProcessEnv, home: string): string {
  const dataHome = env.XDG_DATA_HOME && env.XDG_DATA_HOME.startsWith('/') ? env.XDG_DATA_HOME : join(home, '.local', 'share');
  return join(dataHome, 'agent', 'agent.db');
}
