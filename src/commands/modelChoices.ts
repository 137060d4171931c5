// The models /model offers: the .agentrc's own first, then the built-in table, with window and
// price; and the suggestions for a name nobody knows.
import type { Config } from '../config/config.js';
import { BUILTIN_MODELS, resolveModel } from '../config/models.js';
import { editDistance } from '../editDistance.js';
import { pricePerMillion } from '../session/pricing.js';
import type { ModelChoice } from '../protocol/views.js';

export function modelChoices(config: Config): ModelChoice[] {
  const out: ModelChoice[] = [];
  for (const [name, m] of Object.entries(config.userModels)) {
    out.push(choice(name, m.provider ?? config.provider, m.contextWindow, m.maxOutputTokens, 'config'));
  }
  for (const [name, m] of Object.entries(BUILTIN_MODELS)) {
    if (config.userModels[name]) continue;
    out.push(choice(name, m.provider, m.contextWindow, m.maxOutputTokens, 'builtin'));
  }
  return out;
}

function choice(name: string, provider: string, contextWindow: number, maxOutputTokens: number, source: ModelChoice['source']): ModelChoice {
  const price = pricePerMillion(name);
  return { name, provider, contextWindow, maxOutputTokens, source, ...(price ? { inputUsdPerM: price.input, outputUsdPerM: price.output } : {}) };
}

/** Whether /model should switch to a name: known to the table or the .agentrc, or served by a custom base URL (a local server names its own models). */
export function isKnownModel(config: Config, name: string): boolean {
  return resolveModel(name, config.userModels).source !== 'default' || config.baseURL !== undefined;
}

/** Up to three known names close to a mistyped one: those containing it first, then the nearest by edit distance. */
export function suggestModels(name: string, choices: readonly ModelChoice[]): string[] {
  const typed = name.toLowerCase();
  const containing = choices.filter((c) => c.name.includes(typed));
  if (containing.length > 0) return containing.slice(0, 3).map((c) => c.name);
  return choices
    .map((c) => ({ name: c.name, d: editDistance(typed, c.name) }))
    .filter((c) => c.d <= Math.max(3, Math.floor(typed.length / 2)))
    .sort((a, b) => a.d - b.d)
    .slice(0, 3)
    .map((c) => c.name);
}
