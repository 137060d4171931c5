// What a provider's models endpoint says of a model beyond its thinking (llm/provider.ts
// ModelDescription): its input and output limits, which stand in for the built-in table's
// unless .agentrc describes the model under "models" (the person's word wins), and its
// lifecycle, told to the person once at start when the model is deprecated or retired.
import type { ModelDescription } from '../llm/provider.js';
import type { ThinkingCapabilities } from './thinking.js';
import type { ModelLimits, ResolvedModel } from './models.js';
import { fmtInt } from '../tools/format.js';

/** A model's limits as its provider stated them (either may be missing). */
export type LearnedLimits = Partial<ModelLimits>;

/** What was learned of one model: the thinking it takes and its limits. */
export interface LearnedModel {
  capabilities?: ThinkingCapabilities | undefined;
  limits?: LearnedLimits | undefined;
}

export function limitsOf(d: ModelDescription): LearnedLimits {
  const ok = (n: number | undefined): n is number => typeof n === 'number' && Number.isInteger(n) && n > 0;
  return { ...(ok(d.maxInputTokens) ? { contextWindow: d.maxInputTokens } : {}), ...(ok(d.maxOutputTokens) ? { maxOutputTokens: d.maxOutputTokens } : {}) };
}

/** The model's limits: the provider's over the built-in table's, never over what .agentrc sets. */
export function withLearnedLimits(model: ResolvedModel, learned: LearnedLimits | undefined): ResolvedModel {
  if (!learned || model.source === 'config') return model;
  const contextWindow = learned.contextWindow ?? model.contextWindow;
  const maxOutputTokens = learned.maxOutputTokens ?? model.maxOutputTokens;
  if (contextWindow === model.contextWindow && maxOutputTokens === model.maxOutputTokens) return model;
  return { ...model, contextWindow, maxOutputTokens, source: 'provider' };
}

/**
 * maxOutputTokens (.agentrc) above the model's output limit: replies are capped at the limit (a
 * request over it is a 400), and the person is told which setting and which limit.
 */
export function outputLimitWarning(model: ResolvedModel, setting: number | undefined): string | undefined {
  if (setting === undefined || setting <= model.maxOutputTokens) return undefined;
  const whose =
    model.source === 'provider'
      ? 'as its provider describes it'
      : model.source === 'config'
        ? `models["${model.name}"].maxOutputTokens`
        : model.source === 'builtin'
          ? 'the built-in model table'
          : 'assumed for an unknown model';
  return `maxOutputTokens: ${fmtInt(setting)} is above ${model.name}'s output limit of ${fmtInt(model.maxOutputTokens)} tokens (${whose}); replies are capped at ${fmtInt(model.maxOutputTokens)}.`;
}

const day = (iso: string | undefined): string | undefined => (iso && /^\d{4}-\d{2}-\d{2}/.test(iso) ? iso.slice(0, 10) : undefined);

/** What to tell the person of a deprecated or retired model (undefined for an active one). */
export function lifecycleNotice(model: string, provider: string, d: ModelDescription): string | undefined {
  const since = day(d.deprecatedAt);
  const retires = day(d.retiresAt);
  if (d.lifecycle === 'deprecated') {
    const when = retires ? `it retires on ${retires}` : 'it will be retired';
    return `${model} is deprecated${since ? ` since ${since}` : ''} (${provider}): ${when}, after which requests naming it fail. Choose another model with /model or --model.`;
  }
  if (d.lifecycle === 'retired') {
    return `${model} is retired${retires ? ` since ${retires}` : ''} (${provider}): requests naming it fail. Choose another model with /model or --model.`;
  }
  return undefined;
}
