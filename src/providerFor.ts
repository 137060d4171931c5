// A provider for a configuration: its key resolved (a missing one is a usage error naming the
// setting that asked for it), registered as a secret, and the SDK client made with the config's
// timeouts and cache settings. The session's model, a summarizer of the other family, the run's start.
import { CliError, EXIT_USAGE } from './cliError.js';
import type { Config } from './config/config.js';
import { MissingKeyError, resolveCredentials, type Credentials } from './config/credentials.js';
import { createProvider } from './llm/factory.js';
import type { Provider } from './llm/provider.js';
import { debug, registerSecret } from './log.js';
import { world } from './runtime/world.js';

/**
 * A provider for the config's family; `purpose` names the setting that asked for it, for a missing key.
 * SDK warnings (e.g. a deprecated model) go to the debug log and to `onWarning`, the caller's notices.
 */
export function providerFor(config: Config, env: NodeJS.ProcessEnv = world().env, purpose?: string, onWarning?: (message: string) => void): Provider {
  const creds = credentialsFor(config, env, purpose);
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

/** The config's key and address; a missing key is a usage error naming the setting that asked for it (the TUI asks before its first frame). */
export function credentialsFor(config: Config, env: NodeJS.ProcessEnv = world().env, purpose?: string): Credentials {
  try {
    return resolveCredentials(config, env);
  } catch (e) {
    if (e instanceof MissingKeyError)
      throw new CliError(purpose ? `${purpose} is served by ${config.provider}, and there is ${e.message}` : e.message, EXIT_USAGE);
    throw e;
  }
}
