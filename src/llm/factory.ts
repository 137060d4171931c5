import type { AdapterOptions } from './adapter-common.js';
import type { CacheSettings } from './cache.js';
import type { ModelRequest, Provider, ProviderName, StreamEvent } from './provider.js';

// Builds a Provider without loading any SDK: the chosen adapter (and its SDK) is imported on
// the first request, so paths like `agent --version` never pay for them.

export interface ProviderOptions {
  provider: ProviderName;
  apiKey: string;
  /** Explicit base URL (OpenAI-compatible servers: ends in /v1). Absent or empty: the SDK's default, or its ANTHROPIC_BASE_URL / OPENAI_BASE_URL variable. */
  baseURL?: string | undefined;
  /** Timeout until the response starts. Default: the SDK's (10 minutes). */
  timeoutMs?: number | undefined;
  /** A response stream silent for this long is abandoned as stream_cut. Default 5 minutes (reasoning models can think silently for long). */
  idleTimeoutMs?: number | undefined;
  /** Connecting to the server. Default: no separate limit. */
  connectTimeoutMs?: number | undefined;
  /** From sending the request until the response begins. Default: the SDK's timeout. */
  firstByteTimeoutMs?: number | undefined;
  /** Variable named in authentication errors; default ANTHROPIC_API_KEY / OPENAI_API_KEY. */
  apiKeyEnv?: string | undefined;
  /** SDK warnings (e.g. "model X is deprecated") that would otherwise be printed to the terminal. */
  onWarning?: ((message: string) => void) | undefined;
  /** OpenAI: force max_tokens or max_completion_tokens (default: by host, see tokenFieldFor). */
  tokenField?: 'max_tokens' | 'max_completion_tokens' | undefined;
  /** Prompt caching; default on with a 5m TTL. */
  cache?: CacheSettings | undefined;
}

export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

export interface LazyProvider extends Provider {
  /** Loads the adapter and its SDK now (e.g. while the user types the first prompt). */
  preload(): Promise<void>;
}

export function createProvider(opts: ProviderOptions): LazyProvider {
  const adapterOpts: AdapterOptions = {
    apiKey: opts.apiKey,
    // '' must not reach the SDK: it would override the *_BASE_URL variable with nothing
    baseURL: opts.baseURL ? opts.baseURL : undefined,
    timeoutMs: opts.timeoutMs,
    idleTimeoutMs: opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    connectTimeoutMs: opts.connectTimeoutMs,
    firstByteTimeoutMs: opts.firstByteTimeoutMs,
    apiKeyEnv: opts.apiKeyEnv,
    onWarning: opts.onWarning,
    tokenField: opts.tokenField,
    cache: opts.cache,
  };
  let loaded: Promise<Provider> | undefined;
  const load = (): Promise<Provider> =>
    (loaded ??=
      opts.provider === 'anthropic'
        ? import('./anthropic.js').then((m) => new m.AnthropicProvider(adapterOpts))
        : import('./openai.js').then((m) => new m.OpenAIProvider(adapterOpts)));
  return {
    name: opts.provider,
    baseURL: adapterOpts.baseURL,
    preload: async () => {
      await load();
    },
    async *stream(req: ModelRequest): AsyncGenerator<StreamEvent> {
      const provider = await load();
      yield* provider.stream(req);
    },
  };
}
