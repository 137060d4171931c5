import type { LoopOptions } from '../agent/loop.js';
import type { Config } from '../config/config.js';
import type { WebSearchRequest } from '../llm/provider.js';
import type { ChildSpec } from './children.js';

/** What a turn's loop takes straight from the configuration in effect. */
export function loopSettings(
  config: Config,
): Pick<LoopOptions, 'model' | 'maxSteps' | 'retry' | 'giveUpAfterMs' | 'maxOutputRecoveries' | 'cwd' | 'thinking' | 'images' | 'webSearch'> {
  return {
    model: config.model.name,
    maxSteps: config.maxSteps,
    retry: config.retry,
    giveUpAfterMs: config.timeouts.totalMs,
    maxOutputRecoveries: config.compaction.maxOutputRecoveries,
    cwd: config.cwd,
    ...(config.model.images === false ? { images: false } : {}),
    ...(config.thinking ? { thinking: config.thinking } : {}),
    ...(config.webSearch.enabled ? { webSearch: webSearchRequest(config.webSearch) } : {}),
  };
}

/** The .agentrc settings as requests carry them (the adapters that have no search, Chat Completions, leave them out). */
function webSearchRequest(s: Config['webSearch']): WebSearchRequest {
  return {
    ...(s.maxUses !== undefined ? { maxUses: s.maxUses } : {}),
    ...(s.allowedDomains.length > 0 ? { allowedDomains: s.allowedDomains } : {}),
    ...(s.blockedDomains.length > 0 ? { blockedDomains: s.blockedDomains } : {}),
  };
}

/** The provider's cache key: the session id; children of one agent share one (OpenAI routes by it), as they share the prefix. */
export function cacheKeyOf(sessionId: string, child: Pick<ChildSpec, 'parent'> | undefined): string {
  return child ? `${child.parent.id}:${child.parent.agent}` : sessionId;
}
