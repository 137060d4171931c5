import type { ProviderName } from '../llm/provider.js';
import type { Config } from './config.js';

/** A missing key is a setup problem: the message names the variable to set. */
export class MissingKeyError extends Error {
  override readonly name = 'MissingKeyError';
}

const KEY_VARS: Record<ProviderName, string> = { anthropic: 'ANTHROPIC_API_KEY', openai: 'OPENAI_API_KEY' };
const BASE_URL_VARS: Record<ProviderName, string> = { anthropic: 'ANTHROPIC_BASE_URL', openai: 'OPENAI_BASE_URL' };

/** Local OpenAI-compatible servers (Ollama, llama.cpp, vLLM, LM Studio) need no key, but the SDK insists on one. */
const NO_KEY_PLACEHOLDER = 'no-key-needed';

export interface Credentials {
  apiKey: string;
  /** The variable the key came from (for messages), or undefined for a keyless local server. */
  keyVar?: string;
  baseURL?: string;
}

export function resolveCredentials(config: Pick<Config, 'provider' | 'apiKeyEnv' | 'baseURL'>, env: NodeJS.ProcessEnv): Credentials {
  const keyVar = config.apiKeyEnv ?? KEY_VARS[config.provider];
  const apiKey = env[keyVar]?.trim();
  const baseURL = config.baseURL ?? env[BASE_URL_VARS[config.provider]];
  const base = baseURL ? { baseURL } : {};
  if (apiKey) return { apiKey, keyVar, ...base };
  if (config.provider === 'openai' && baseURL && !isOfficialOpenAI(baseURL)) return { apiKey: NO_KEY_PLACEHOLDER, ...base };
  const hint = config.provider === 'openai' ? ` (for a local OpenAI-compatible server, set OPENAI_BASE_URL or --base-url instead)` : '';
  throw new MissingKeyError(
    `no API key for ${config.provider}: set ${keyVar}, e.g. \`export ${keyVar}=...\`${hint}. ` +
      `To read the key from another variable, set "apiKeyEnv" in .agentrc.`,
  );
}

function isOfficialOpenAI(url: string): boolean {
  try {
    return new URL(url).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}
