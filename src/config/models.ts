import type { Effort, ProviderName } from '../llm/provider.js';
import type { ThinkingSetting } from './thinking.js';

export interface ModelLimits {
  contextWindow: number;
  maxOutputTokens: number;
}

export interface ModelInfo extends ModelLimits {
  provider: ProviderName;
}

/**
 * Known models. Dated snapshots ("claude-sonnet-4-5-20250929", "gpt-4o-2024-08-06") resolve
 * to their family entry (see SNAPSHOT_SUFFIX); no other extension of a name does.
 */
export const BUILTIN_MODELS: Readonly<Record<string, ModelInfo>> = {
  // Anthropic: the Claude 5 family runs a native 1M window
  'claude-fable-5-2': { provider: 'anthropic', contextWindow: 1_000_000, maxOutputTokens: 128_000 },
  'claude-fable-5-1': { provider: 'anthropic', contextWindow: 1_000_000, maxOutputTokens: 128_000 },
  'claude-fable-5': { provider: 'anthropic', contextWindow: 1_000_000, maxOutputTokens: 128_000 },
  'claude-mythos-5-2': { provider: 'anthropic', contextWindow: 1_000_000, maxOutputTokens: 128_000 },
  'claude-mythos-5-1': { provider: 'anthropic', contextWindow: 1_000_000, maxOutputTokens: 128_000 },
  'claude-mythos-5': { provider: 'anthropic', contextWindow: 1_000_000, maxOutputTokens: 128_000 },
  'claude-opus-5-5': { provider: 'anthropic', contextWindow: 1_000_000, maxOutputTokens: 128_000 },
  'claude-opus-5': { provider: 'anthropic', contextWindow: 1_000_000, maxOutputTokens: 128_000 },
  'claude-sonnet-5-5': { provider: 'anthropic', contextWindow: 1_000_000, maxOutputTokens: 128_000 },
  'claude-sonnet-5': { provider: 'anthropic', contextWindow: 1_000_000, maxOutputTokens: 128_000 },
  'claude-haiku-5-5': { provider: 'anthropic', contextWindow: 1_000_000, maxOutputTokens: 128_000 },
  // Anthropic: Claude 4.x (200K unless the 1M beta is enabled, which this tool does not do)
  'claude-opus-4-8': { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-opus-4-7': { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-opus-4-6': { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-opus-4-5': { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-opus-4-1': { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 32_000 },
  'claude-opus-4': { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 32_000 },
  'claude-sonnet-4-6': { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-sonnet-4-5': { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-sonnet-4': { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-haiku-4-5': { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-3-7-sonnet': { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-3-5-haiku': { provider: 'anthropic', contextWindow: 200_000, maxOutputTokens: 8_192 },
  // OpenAI
  'gpt-5.4': { provider: 'openai', contextWindow: 400_000, maxOutputTokens: 128_000 },
  'gpt-5.2': { provider: 'openai', contextWindow: 400_000, maxOutputTokens: 128_000 },
  'gpt-5.1': { provider: 'openai', contextWindow: 400_000, maxOutputTokens: 128_000 },
  'gpt-5': { provider: 'openai', contextWindow: 400_000, maxOutputTokens: 128_000 },
  'gpt-5-mini': { provider: 'openai', contextWindow: 400_000, maxOutputTokens: 128_000 },
  'gpt-5-nano': { provider: 'openai', contextWindow: 400_000, maxOutputTokens: 128_000 },
  'gpt-4.1': { provider: 'openai', contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  'gpt-4.1-mini': { provider: 'openai', contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  'gpt-4.1-nano': { provider: 'openai', contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  'gpt-4o': { provider: 'openai', contextWindow: 128_000, maxOutputTokens: 16_384 },
  'gpt-4o-mini': { provider: 'openai', contextWindow: 128_000, maxOutputTokens: 16_384 },
  o3: { provider: 'openai', contextWindow: 200_000, maxOutputTokens: 100_000 },
  'o3-mini': { provider: 'openai', contextWindow: 200_000, maxOutputTokens: 100_000 },
  'o4-mini': { provider: 'openai', contextWindow: 200_000, maxOutputTokens: 100_000 },
};

/** Limits used for a model nobody described; stated in the warning shown to the user. */
export const UNKNOWN_MODEL_LIMITS: ModelLimits = { contextWindow: 32_768, maxOutputTokens: 4_096 };

export interface ResolvedModel extends ModelLimits {
  name: string;
  /** false: the model reads no images (models.<name>.images in .agentrc); each is sent as a note instead. */
  images?: boolean;
  provider?: ProviderName;
  /** Where the limits came from ('provider': its models endpoint, over the built-in table; config/learnedModel.ts). */
  source: 'config' | 'builtin' | 'default' | 'provider';
}

export interface UserModelEntry {
  contextWindow: number;
  maxOutputTokens: number;
  provider?: ProviderName | undefined;
  thinking?: ThinkingSetting | undefined;
  thinkingModes?: Array<'adaptive' | 'enabled' | 'off'> | undefined;
  effortLevels?: Effort[] | undefined;
  images?: boolean | undefined;
}

/** Looks a model up: the config's `models` first (exact name), then the built-in table by longest prefix. */
export function resolveModel(name: string, userModels: Readonly<Record<string, UserModelEntry>> = {}): ResolvedModel {
  const user = userModels[name];
  if (user) {
    return {
      name,
      contextWindow: user.contextWindow,
      maxOutputTokens: user.maxOutputTokens,
      source: 'config',
      ...(user.provider ? { provider: user.provider } : {}),
      ...(user.images === false ? { images: false } : {}),
    };
  }
  const key = longestPrefix(name, Object.keys(BUILTIN_MODELS));
  if (key) {
    const m = BUILTIN_MODELS[key]!;
    return { name, contextWindow: m.contextWindow, maxOutputTokens: m.maxOutputTokens, provider: m.provider, source: 'builtin' };
  }
  return { name, ...UNKNOWN_MODEL_LIMITS, source: 'default' };
}

/**
 * What may follow a known name: a dated snapshot (Anthropic "-20250929", Vertex "@20250929",
 * OpenAI "-2024-08-06") or the providers' "-latest" alias. Nothing else: "claude-opus-4.8" or
 * "claude-opus-4-9" are not Claude Opus 4 (made-up names would otherwise switch silently).
 */
const SNAPSHOT_SUFFIX = /^(?:[-@]\d{8}|-\d{4}-\d{2}-\d{2}|-latest)$/;

function longestPrefix(name: string, keys: string[]): string | undefined {
  let best: string | undefined;
  for (const k of keys) {
    if (name === k || (name.startsWith(k) && SNAPSHOT_SUFFIX.test(name.slice(k.length)))) {
      if (!best || k.length > best.length) best = k;
    }
  }
  return best;
}

/**
 * The known name that `name` extends at a word boundary without being it or a snapshot of it
 * ("claude-opus-4.8" → "claude-opus-4"): a made-up or mistyped name, refused rather than guessed.
 */
export function lookalikeOf(name: string): string | undefined {
  if (longestPrefix(name, Object.keys(BUILTIN_MODELS))) return undefined;
  let best: string | undefined;
  for (const k of Object.keys(BUILTIN_MODELS)) {
    if (name.startsWith(k) && /[-_:@.]/.test(name.charAt(k.length)) && (!best || k.length > best.length)) best = k;
  }
  return best;
}

/** Infers the provider from a model's name alone. */
export function inferProvider(model: string): ProviderName | undefined {
  if (/^claude-/i.test(model)) return 'anthropic';
  if (/^(gpt-|chatgpt-|o\d(-|$)|codex-)/i.test(model)) return 'openai';
  return undefined;
}
