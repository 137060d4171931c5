import { world } from '../runtime/world.js';
import type { AdapterOptions } from './adapter-common.js';
import { ProviderError } from './errors.js';
import { openaiApiFor, type OpenAIApi } from './openaiApi.js';
import type { CompactRequest, CompactResult, ModelDescription, ModelRequest, Provider, ProviderName, StreamEvent } from './provider.js';

// Builds a Provider without loading any SDK: the chosen adapter (and its SDK) is imported on
// the first request, so paths like `agent --version` never pay for them.

/** What createProvider takes: the adapters' options, with the provider's name and a default idle timeout. */
export interface ProviderOptions extends Omit<AdapterOptions, 'idleTimeoutMs'> {
  provider: ProviderName;
  /** A response stream silent for this long is abandoned as stream_cut. Default 5 minutes (reasoning models can think silently for long). */
  idleTimeoutMs?: number | undefined;
  /** OpenAI: the API to speak (.agentrc `api`); absent: Responses for OpenAI's own API, Chat Completions for any other server. */
  api?: OpenAIApi | undefined;
}

export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

export interface LazyProvider extends Provider {
  /** OpenAI: which API its requests go to (undefined for Anthropic). */
  readonly api: OpenAIApi | undefined;
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
    reasoningEffort: opts.reasoningEffort,
  };
  // without a base URL the SDK reads OPENAI_BASE_URL itself: decide on the URL it will use
  const api = opts.provider === 'openai' ? openaiApiFor(adapterOpts.baseURL ?? (world().env.OPENAI_BASE_URL || undefined), opts.api) : undefined;
  let loaded: Promise<Provider> | undefined;
  const load = (): Promise<Provider> =>
    (loaded ??=
      opts.provider === 'anthropic'
        ? import('./anthropic.js').then((m) => new m.AnthropicProvider(adapterOpts))
        : api === 'responses'
          ? import('./responses.js').then((m) => new m.ResponsesProvider(adapterOpts))
          : import('./openai.js').then((m) => new m.OpenAIProvider(adapterOpts)));
  return {
    name: opts.provider,
    api,
    baseURL: adapterOpts.baseURL,
    preload: async () => {
      await load();
    },
    async *stream(req: ModelRequest): AsyncGenerator<StreamEvent> {
      const provider = await load();
      yield* provider.stream(req);
    },
    ...(api === 'responses'
      ? {
          compact: async (req: CompactRequest): Promise<CompactResult> => {
            const provider = await load();
            if (!provider.compact) throw new Error('this provider cannot compact');
            return provider.compact(req);
          },
          countInputTokens: async (req: Omit<ModelRequest, 'maxTokens'>): Promise<number> => {
            const provider = await load();
            if (!provider.countInputTokens) throw new Error('this provider cannot count tokens');
            return provider.countInputTokens(req);
          },
        }
      : {}),
    async describeModel(model: string): Promise<ModelDescription> {
      const provider = await load();
      if (!provider.describeModel)
        throw new ProviderError({ kind: 'bad_request', provider: opts.provider, message: `${opts.provider} has no models endpoint this program reads` });
      return provider.describeModel(model);
    },
  };
}
