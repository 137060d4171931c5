// Start-up's use of the provider's models endpoint: the session model's description, cached in
// the store with its date, gives the model's thinking capabilities and limits over the built-in
// table (config/learnedModel.ts). A description older than a week, or none, is asked for in the
// background for the next start, so a start does not wait on it and works offline; only where
// the built-in table cannot be trusted to give a valid request (a model it does not know, a
// configured maxOutputTokens or thinking budget that the real output limit may refuse) does a
// model's first start wait for it, at most FIRST_WAIT_MS. A deprecated or retired model is told
// to the person once: at start from the description, or when a first description arrives.
import { CliError, EXIT_USAGE } from './cliError.js';
import { ConfigError, withModel, type Config } from './config/config.js';
import { lifecycleNotice, limitsOf, outputLimitWarning } from './config/learnedModel.js';
import { capabilitiesFrom, CAPABILITIES_TTL_MS } from './config/thinking.js';
import type { ModelDescription, Provider } from './llm/provider.js';
import { debug } from './log.js';
import type { Store } from './store/index.js';

/** How long the first start of a model waits for its description, where it waits. */
export const FIRST_WAIT_MS = 1_500;

/** The built-in table may be wrong in a way a request would be refused for: the first start waits for the description. */
const waitsForDescription = (c: Config): boolean => c.model.source === 'default' || c.maxOutputSetting !== undefined || c.thinking?.mode === 'enabled';

type Stored = { body: string; fetchedAt: number };

/** Asks the provider and stores the answer; undefined on failure (logged). */
async function ask(store: Store, provider: Provider, providerName: string, name: string): Promise<Stored | undefined> {
  try {
    const d = await provider.describeModel!(name);
    const stored = { body: JSON.stringify(d), fetchedAt: Date.now() };
    store.saveModelCapabilities(providerName, name, stored.body, stored.fetchedAt);
    return stored;
  } catch (e) {
    debug('model capabilities not learned', { model: name, error: String(e) });
    return undefined;
  }
}

/**
 * The config with what the provider said of its model, and the start-up warnings that follow
 * from it (maxOutputTokens over the model's output limit, a deprecated model). `tell` shows a
 * notice that arrives after start (the first description of a deprecated model).
 */
export async function withLearnedModel(
  store: Store,
  config: Config,
  provider: Provider,
  tell: (message: string) => void,
  firstWaitMs = FIRST_WAIT_MS,
): Promise<Config> {
  const name = config.model.name;
  const providerName = config.provider;
  let next = config;
  let cached: Stored | undefined;
  const describes = config.provider === 'anthropic' && provider.describeModel !== undefined;
  if (describes) {
    try {
      cached = store.modelCapabilities(config.provider, name);
    } catch (e) {
      debug('model capabilities unreadable', { error: String(e) });
    }
  }
  let told = false;
  let asking: Promise<Stored | undefined> | undefined;
  if (describes && (!cached || Date.now() - cached.fetchedAt > CAPABILITIES_TTL_MS)) asking = ask(store, provider, providerName, name);
  if (!cached && asking && waitsForDescription(config)) {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), firstWaitMs);
      timer.unref();
    });
    cached = await Promise.race([asking, waited]);
    clearTimeout(timer);
    if (cached) asking = undefined;
  }
  if (cached) {
    try {
      const d = JSON.parse(cached.body) as ModelDescription;
      next = withModel(config, name, { capabilities: capabilitiesFrom(name, d, cached.fetchedAt), limits: limitsOf(d) });
      const notice = lifecycleNotice(name, config.provider, d);
      if (notice) {
        told = true;
        next = { ...next, warnings: [...next.warnings, notice] };
      }
    } catch (e) {
      if (e instanceof ConfigError)
        throw new CliError(`${e.message} (as ${config.provider} described the model on ${new Date(cached.fetchedAt).toISOString().slice(0, 10)})`, EXIT_USAGE);
      debug('model capabilities unusable', { error: String(e) });
    }
  }
  if (next.model.source === 'provider' && config.model.source === 'default') {
    // the provider described the model the table did not know: its limits are no longer guessed
    next = { ...next, warnings: next.warnings.filter((w) => !w.startsWith(`Unknown model "${name}"`)) };
  }
  const over = outputLimitWarning(next.model, next.maxOutputSetting);
  if (over) next = { ...next, warnings: [...next.warnings, over] };
  // an answer after start serves the next one; a deprecation not yet told is told now
  void asking?.then((late) => {
    if (!late || told) return;
    try {
      const notice = lifecycleNotice(name, providerName, JSON.parse(late.body) as ModelDescription);
      if (notice) tell(notice);
    } catch {
      // stored as the provider sent it; unusable here, read again at the next start
    }
  });
  return next;
}
