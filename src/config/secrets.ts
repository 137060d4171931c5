import type { Config } from './config.js';
import { withModel } from './config.js';

// Which environment variables hold secrets: every provider key variable this program knows
// (whatever provider the session uses), the configured apiKeyEnv, the compaction model's key
// variable, and bash.stripEnv. They are removed from Bash's environment (unless listed in
// bash.passEnv) and their values registered for redaction.

/** Key variables of the two SDKs and of the services people point OpenAI-compatible clients at. */
export const PROVIDER_KEY_VARS: readonly string[] = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'OPENAI_API_KEY',
  'OPENAI_ADMIN_KEY',
  'AZURE_OPENAI_API_KEY',
  'OPENROUTER_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'MISTRAL_API_KEY',
  'GROQ_API_KEY',
  'DEEPSEEK_API_KEY',
  'XAI_API_KEY',
  'TOGETHER_API_KEY',
  'FIREWORKS_API_KEY',
];

/** "NAME" matches itself; "PREFIX_*" every variable starting with PREFIX_. */
export const matchesVar = (pattern: string, name: string): boolean => (pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern);

/** The key variable of the compaction model when it is served by another provider or variable. */
function compactionKeyVar(config: Config): string | undefined {
  const model = config.compaction.model;
  if (!model) return undefined;
  try {
    const c = withModel(config, model);
    return c.apiKeyEnv ?? (c.provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY');
  } catch {
    return undefined;
  }
}

/** Every variable of `env` that holds a secret (passEnv does not change this: a passed key is still redacted). */
export function secretVars(config: Pick<Config, 'apiKeyEnv' | 'bash'> & Partial<Config>, env: NodeJS.ProcessEnv): string[] {
  const names = new Set<string>(PROVIDER_KEY_VARS);
  if (config.apiKeyEnv) names.add(config.apiKeyEnv);
  const compaction = config.compaction && config.userModels ? compactionKeyVar(config as Config) : undefined;
  if (compaction) names.add(compaction);
  for (const name of Object.keys(env)) if (config.bash.stripEnv.some((p) => matchesVar(p, name))) names.add(name);
  return [...names];
}

/** `env` without its secret variables: what a command the person configured (statusLine) or their editor runs with. */
export function withoutSecrets(config: Pick<Config, 'apiKeyEnv' | 'bash'> & Partial<Config>, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const secrets = new Set(secretVars(config, env));
  return Object.fromEntries(Object.entries(env).filter(([name]) => !secrets.has(name)));
}

/** The variables Bash commands must not see: the secret ones, minus bash.passEnv. */
export function hiddenFromShell(config: Pick<Config, 'apiKeyEnv' | 'bash'> & Partial<Config>, env: NodeJS.ProcessEnv): string[] {
  return secretVars(config, env).filter((name) => !config.bash.passEnv.some((p) => matchesVar(p, name)));
}
