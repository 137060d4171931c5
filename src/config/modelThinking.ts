// The thinking a model's requests send, resolved from the settings (.agentrc's top level, the
// model's own entry, a /effort override) and the model's capabilities (.agentrc's, what the
// provider said, the built-in table). It decides and refuses; it reads no file.
import type { ProviderName, ThinkingRequest } from '../llm/provider.js';
import { ConfigError } from './configFile.js';
import type { UserModelEntry } from './models.js';
import { builtinCapabilities, EFFORTS, thinkingFor, ThinkingSettingError, type ThinkingCapabilities, type ThinkingSetting } from './thinking.js';

/**
 * The thinking a model's requests send: the settings (the model's own over the top level)
 * checked against its capabilities (.agentrc's over what the provider said over the built-in
 * table). A setting the model cannot take is a ConfigError naming the setting and the model.
 */
export function resolveThinking(
  model: string,
  provider: ProviderName,
  userModels: Readonly<Record<string, UserModelEntry>>,
  top: ThinkingSetting,
  maxOutputTokens: number,
  learned?: ThinkingCapabilities,
  override?: ThinkingSetting,
): { capabilities?: ThinkingCapabilities; thinking?: ThinkingRequest } {
  if (provider !== 'anthropic') return {};
  const own = userModels[model];
  const base = learned ?? builtinCapabilities(model);
  const caps: ThinkingCapabilities | undefined =
    own?.thinkingModes || own?.effortLevels
      ? {
          types: own.thinkingModes ? own.thinkingModes.map((m) => (m === 'off' ? 'disabled' : m)) : (base?.types ?? ['adaptive', 'enabled', 'disabled']),
          efforts: own.effortLevels ?? base?.efforts ?? EFFORTS,
          keepsThinking: base?.keepsThinking ?? false,
          source: 'config',
        }
      : base;
  const setting: ThinkingSetting = { ...top, ...(own?.thinking ?? {}), ...(override ?? {}) };
  const where = (field: keyof ThinkingSetting): string =>
    override?.[field] !== undefined ? `/effort` : own?.thinking?.[field] !== undefined ? `models.${model}.thinking.${field}` : `thinking.${field}`;
  try {
    const thinking = thinkingFor(model, setting, caps, maxOutputTokens, where);
    return { ...(caps ? { capabilities: caps } : {}), ...(thinking ? { thinking } : {}) };
  } catch (e) {
    if (e instanceof ThinkingSettingError) throw new ConfigError(e.message);
    throw e;
  }
}
