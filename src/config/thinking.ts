// What each model can do with thinking, and the person's thinking settings checked against it
// up front: a setting the model cannot take is refused here with the setting and the model
// named (exit 2 in -p), never left to a 400 from the provider. Capabilities come from, in
// order of precedence: .agentrc (models.<name>.thinkingTypes / effortLevels), the provider's
// models endpoint (cached in SQLite with its date: store/capabilities.ts), the built-in table.
import type { Effort, ModelDescription, ThinkingRequest } from '../llm/provider.js';

export const EFFORTS: readonly Effort[] = ['low', 'medium', 'high', 'xhigh', 'max'];
export type ThinkingType = 'adaptive' | 'enabled' | 'disabled';

export interface ThinkingCapabilities {
  /** Thinking types the model accepts. */
  types: readonly ThinkingType[];
  /** Effort levels it accepts (output_config.effort); empty: none. */
  efforts: readonly Effort[];
  /** Replayed thinking is bound to its prefix and stays in context (billed as input): the 5 family. */
  keepsThinking: boolean;
  source: 'config' | 'provider' | 'builtin';
  /** When the provider said so (epoch ms), for source 'provider'. */
  fetchedAt?: number;
}

/** The built-in table, by family; undefined for a model it does not know (no thinking settings sent). */
export function builtinCapabilities(model: string): ThinkingCapabilities | undefined {
  if (/^claude-(fable|mythos|opus|sonnet|haiku)-5(-|$)/.test(model)) return { types: ['adaptive'], efforts: EFFORTS, keepsThinking: true, source: 'builtin' };
  if (/^claude-(opus|sonnet)-4-[78](-|$)/.test(model)) return { types: ['adaptive', 'disabled'], efforts: EFFORTS, keepsThinking: false, source: 'builtin' };
  if (/^claude-(opus|sonnet)-4-6(-|$)/.test(model))
    return { types: ['adaptive', 'enabled', 'disabled'], efforts: ['low', 'medium', 'high', 'max'], keepsThinking: false, source: 'builtin' };
  if (/^claude-/.test(model)) return { types: ['enabled', 'disabled'], efforts: [], keepsThinking: false, source: 'builtin' };
  return undefined;
}

/** The thinking settings as .agentrc (top level, or per model) gives them. */
export interface ThinkingSetting {
  mode?: 'adaptive' | 'enabled' | 'off' | undefined;
  budgetTokens?: number | undefined;
  effort?: Effort | undefined;
  display?: 'summarized' | 'omitted' | undefined;
}

export class ThinkingSettingError extends Error {
  override readonly name = 'ThinkingSettingError';
}

const MIN_BUDGET = 1_024;

/**
 * The request's thinking for a model: the setting checked against the capabilities, with the
 * defaults filled in (adaptive and summarized where the model takes adaptive; none sent
 * otherwise, unless asked). `where` names a setting where it was set ("thinking.effort", "models.X.thinking.mode").
 * Throws ThinkingSettingError naming the setting and the model.
 */
export function thinkingFor(
  model: string,
  setting: ThinkingSetting,
  caps: ThinkingCapabilities | undefined,
  maxOutputTokens: number,
  where: (field: keyof ThinkingSetting) => string = (f) => `thinking.${f}`,
): ThinkingRequest | undefined {
  if (!caps) {
    if (setting.mode === undefined && setting.effort === undefined && setting.budgetTokens === undefined) return undefined;
    // a model nobody described: send what was asked and let the provider judge
    return {
      mode: setting.mode ?? (setting.budgetTokens !== undefined ? 'enabled' : 'adaptive'),
      ...(setting.budgetTokens !== undefined ? { budgetTokens: setting.budgetTokens } : {}),
      ...(setting.effort ? { effort: setting.effort } : {}),
      ...(setting.display ? { display: setting.display } : {}),
    };
  }
  // a budget without a mode asks for thinking with that budget (mode "enabled"), where the model takes one
  if (setting.mode === undefined && setting.budgetTokens !== undefined && !caps.types.includes('enabled')) {
    const takes = caps.types.filter((t) => t !== 'disabled').join(', ');
    const instead = caps.efforts.length > 0 ? `; set ${where('effort')} instead` : '';
    throw new ThinkingSettingError(`${where('budgetTokens')}: a budget asks for mode "enabled", which ${model} does not take (it takes ${takes}${instead})`);
  }
  const mode = setting.mode ?? (setting.budgetTokens !== undefined ? 'enabled' : caps.types.includes('adaptive') ? 'adaptive' : undefined);
  const type: ThinkingType | undefined = mode === 'off' ? 'disabled' : mode;
  if (type !== undefined && !caps.types.includes(type)) {
    const takes = caps.types.map((t) => (t === 'disabled' ? 'off' : t)).join(', ');
    const why = type === 'disabled' ? 'it cannot turn thinking off' : `it takes ${takes}`;
    throw new ThinkingSettingError(`${where('mode')}: "${mode}" is not supported by ${model} (${why})`);
  }
  if (mode === 'enabled') {
    const budget = setting.budgetTokens;
    if (budget === undefined)
      throw new ThinkingSettingError(`${where('budgetTokens')}: required with mode "enabled" (${model}): at least ${MIN_BUDGET} and below the output limit`);
    if (budget < MIN_BUDGET) throw new ThinkingSettingError(`${where('budgetTokens')}: ${budget} is under the minimum of ${MIN_BUDGET} (${model})`);
    if (budget >= maxOutputTokens)
      throw new ThinkingSettingError(
        `${where('budgetTokens')}: ${budget} is not below the output limit of ${maxOutputTokens} tokens (${model}; raise maxOutputTokens or lower the budget)`,
      );
  } else if (setting.budgetTokens !== undefined && mode !== undefined) {
    throw new ThinkingSettingError(`${where('budgetTokens')}: only used with mode "enabled" (${model} is set to "${mode}")`);
  }
  if (setting.effort !== undefined && !caps.efforts.includes(setting.effort)) {
    const takes = caps.efforts.length > 0 ? `it takes ${caps.efforts.join(', ')}` : 'it takes no effort setting';
    throw new ThinkingSettingError(`${where('effort')}: "${setting.effort}" is not supported by ${model} (${takes})`);
  }
  if (mode === undefined) return undefined;
  if (mode === 'off') return { mode: 'off' };
  return {
    mode,
    ...(mode === 'enabled' ? { budgetTokens: setting.budgetTokens! } : {}),
    ...(setting.effort ? { effort: setting.effort } : {}),
    display: setting.display ?? 'summarized',
    // (a model that takes "enabled" always takes off: llm/anthropic.ts withoutReplay)
    ...(mode === 'adaptive' && caps.types.includes('disabled') ? { canTurnOff: true } : {}),
  };
}

/** The footer's mark for the thinking in effect: "thinking high", "thinking 4k", "thinking off"; empty when none is sent. */
export function thinkingMark(t: ThinkingRequest | undefined): string {
  if (!t) return '';
  if (t.mode === 'off') return 'thinking off';
  if (t.mode === 'enabled') return `thinking ${Math.round((t.budgetTokens ?? 0) / 1000)}k`;
  return `thinking ${t.effort ?? 'high'}`;
}

/** How long a provider's description is trusted before it is asked again. */
export const CAPABILITIES_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Capabilities from the provider's description; whether replayed thinking stays in context is the built-in table's (the endpoint does not say). */
export function capabilitiesFrom(model: string, d: ModelDescription, fetchedAt: number): ThinkingCapabilities {
  return { types: d.thinkingTypes, efforts: d.efforts, keepsThinking: builtinCapabilities(model)?.keepsThinking ?? false, source: 'provider', fetchedAt };
}
