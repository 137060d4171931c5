// Prompt-caching decisions shared by the adapters (no SDK imports here): where Anthropic's
// cache_control breakpoints go, and whether a server is OpenAI's own.

export type CacheTtl = '5m' | '1h';

export interface CacheSettings {
  /** false: requests carry no caching hints at all. */
  enabled: boolean;
  /** Anthropic breakpoint TTL. */
  ttl: CacheTtl;
  /** OpenAI prompt_cache_key: 'auto' sends it only to api.openai.com. */
  promptCacheKey: 'auto' | boolean;
}

export const DEFAULT_CACHE: CacheSettings = { enabled: true, ttl: '5m', promptCacheKey: 'auto' };

/** Anthropic allows at most this many cache_control breakpoints per request. */
export const MAX_BREAKPOINTS = 4;
/** From each breakpoint Anthropic looks back about this many blocks for an earlier cached prefix. */
export const LOOKBACK_BLOCKS = 20;

/** True when the base URL is OpenAI's own API (absent: the SDK's default, which is). */
export function isOpenAIHost(baseURL: string | undefined): boolean {
  if (baseURL === undefined || baseURL === '') return true;
  try {
    return new URL(baseURL).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

/**
 * Only OpenAI-compatible servers (Ollama, llama.cpp, …) may truncate an over-long prompt
 * silently instead of refusing it. Anthropic and OpenAI proper refuse, so a low count from
 * them is tokenizer drift to calibrate, never a sign of a smaller window.
 */
export function mayTruncateSilently(provider: { name: 'anthropic' | 'openai'; baseURL?: string | undefined }): boolean {
  return provider.name === 'openai' && !isOpenAIHost(provider.baseURL);
}

/** Whether a request to this server carries prompt_cache_key. */
export function sendsPromptCacheKey(cache: CacheSettings, baseURL: string | undefined): boolean {
  if (!cache.enabled || cache.promptCacheKey === false) return false;
  return cache.promptCacheKey === true || isOpenAIHost(baseURL);
}

/**
 * Which wire messages get a breakpoint on their last block (indexes, ascending). The tools and
 * system prompt take one breakpoint of their own; the messages get at most two more:
 * - the last message: this request writes the prefix up to here, for the next one to read;
 * - the message before the last assistant reply: the previous request ended there and wrote its
 *   prefix there, so marking it reads that entry exactly, however many blocks the newest
 *   exchange appended (a reply with 15 parallel tool calls adds 30 blocks, more than the
 *   20-block lookback of the last breakpoint alone).
 * Marking it only when it is further back than the lookback reaches would save nothing: a
 * breakpoint costs nothing where nothing new is written.
 */
export function messageBreakpoints(roles: readonly ('user' | 'assistant')[]): number[] {
  const last = roles.length - 1;
  if (last < 0) return [];
  const marks = new Set<number>([last]);
  for (let i = last; i >= 0; i--) {
    if (roles[i] !== 'assistant') continue;
    if (i - 1 >= 0 && i - 1 < last) marks.add(i - 1);
    break;
  }
  return [...marks].sort((a, b) => a - b);
}
