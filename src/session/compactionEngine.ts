// The compaction engine as a session wires it: its summarizer (compaction.model, or the
// session's own model reading the prompt cache in place), the provider's own compaction and
// exact counts where they exist, the working-state ledger from the session's log and
// capabilities, and the warm-up request that writes a background compaction's history to the
// cache before its swap. It builds the engine; the compactor (compactor.ts) owns it.
import { CompactionEngine } from '../compaction/engine.js';
import type { CompactionContext, ProviderCompaction } from '../compaction/engineDeps.js';
import { thinkingRoomOf } from '../compaction/thinkingRoom.js';
import { withModel, type Config } from '../config/config.js';
import { ledgerSectionList } from '../ledger/sections.js';
import { mayTruncateSilently } from '../llm/cache.js';
import { userMessage, type Message } from '../llm/messages.js';
import type { ModelRequest, Provider, ToolSpec } from '../llm/provider.js';
import { withoutImages } from '../llm/withoutImages.js';
import type { Usage } from '../llm/messages.js';
import type { TokenCounter } from '../compaction/tokens.js';
import type { EngineDeps } from '../compaction/engine.js';
import type { AnyTool } from '../tools/types.js';
import type { Capabilities } from './capabilities.js';
import type { SessionLog } from './sessionLog.js';
import { readForRestore } from './restoreRead.js';
import WARM_UP_PROMPT from './warmUp.md';

/** How long a provider keeps a prompt-cache entry without a hit (OpenAI: at least 5 minutes). */
const CACHE_TTL_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;

/** Output tokens a warm-up request asks for: it exists to write the prompt to the cache. */
const WARM_TOKENS = 16;

/** What of the session the engine's wiring reads (the compactor's deps). */
interface WiringDeps {
  sessionId: string;
  cacheKey: string;
  counter: TokenCounter;
  log: Pick<SessionLog, 'archived'>;
  caps: Pick<Capabilities, 'summaryInstructions' | 'ledgerSections'>;
  bill: (model: string, usage: Usage) => void;
  engine?: Pick<EngineDeps, 'now' | 'microPolicy'> | undefined;
}

/** What of the session the engine's wiring reads (when it is called, never copied): the turn's frame's, the compactor's. */
export interface EngineWiring {
  deps: WiringDeps;
  /** Names of the tools whose old results micro compaction may clear (a list the frame extends). */
  compactable: readonly string[];
  system: () => string;
  toolSpecs: () => readonly ToolSpec[];
  /** The tools in force, whose key argument labels a placeholder. */
  tools: () => readonly AnyTool[];
  otherProvider: (config: Config, purpose: string) => Provider;
  backgroundSettled: () => void;
  cwd: () => string;
  instructions: () => string | undefined;
}

/**
 * The summarizer is compaction.model (default the session's model). A model of the other
 * provider family (a cheap OpenAI model summarizing a Claude session, say) gets its own provider.
 */
export function compactionEngine(w: EngineWiring, state: unknown, config: Config, provider: Provider): CompactionEngine {
  const { deps } = w;
  const summarizerModel = config.compaction.model ?? config.model.name;
  // the session's own model keeps the limits this session learned (a window the provider stated)
  const summarizerConfig = summarizerModel === config.model.name ? config : withModel(config, summarizerModel);
  const summarizerProvider =
    summarizerConfig.provider === config.provider ? provider : w.otherProvider(summarizerConfig, `compaction.model "${summarizerModel}"`);
  return new CompactionEngine(
    {
      config: config.compaction,
      limits: config.model,
      summarizer: { provider: summarizerProvider, model: summarizerModel, limits: summarizerConfig.model, retry: config.retry },
      counter: deps.counter,
      compactableTools: w.compactable,
      describeToolUse: (name, input) => describeToolUse(w.tools(), name, input),
      readFile: (path) => readForRestore(w.cwd(), path),
      silentOverflowDetection: mayTruncateSilently(provider),
      inPlaceSummary: summarizerModel === config.model.name && config.cache.enabled ? { cacheKey: deps.sessionId, thinking: config.thinking } : undefined,
      cacheTtlMs: config.cache.enabled ? CACHE_TTL_MS[config.cache.ttl] : undefined,
      providerCompaction: config.compaction.engine === 'provider' ? providerCompaction(provider, config.model.name, deps.sessionId, w.system) : undefined,
      // the provider's exact count of the next request (tools as the loop sends them)
      countExact: provider.countInputTokens
        ? (parts: CompactionContext, signal: AbortSignal) =>
            provider.countInputTokens!({ model: config.model.name, system: parts.system, tools: parts.tools, messages: parts.history, signal })
        : undefined,
      // older Claude models strip finished turns' thinking; the 5 family keeps it (config/thinking.ts)
      thinkingRoom: thinkingRoomOf(config.capabilities?.keepsThinking),
      instructions: (trigger, focus, signal) => deps.caps.summaryInstructions(w.instructions(), trigger, focus, signal),
      ledger: { archived: () => deps.log.archived(), sections: () => ledgerSectionList(deps.caps.ledgerSections()) },
      // the compacted history is written to the cache before the swap, where prompt caching is on
      warm: config.cache.enabled ? (messages, signal) => warmUp(provider, warmRequest(w, config, warmMessages(messages), signal), deps.bill) : undefined,
      backgroundSettled: w.backgroundSettled,
      ...deps.engine,
    },
    state,
  );
}

/** The tool's own key argument (a command, a path), for placeholders and archive labels. */
function describeToolUse(tools: readonly AnyTool[], name: string, input: Record<string, unknown>): string {
  const tool = tools.find((t) => t.name === name);
  if (!tool) return '';
  try {
    return tool.summarize(tool.parse(input));
  } catch {
    return '';
  }
}

/** A provider for another provider family (/model, a compaction.model of the other family), where the session can make one. */
export function otherProvider(providerFor: ((config: Config, purpose?: string) => Provider) | undefined, config: Config, purpose: string): Provider {
  if (!providerFor) throw new Error(`${purpose}: cannot reach ${config.provider} from this session`);
  return providerFor(config, purpose);
}

/**
 * What a warm-up sends. Inside a tool loop the history ends with the tool results: the loop's
 * next request as it is. At rest it ends with the model's reply, and a request cannot (with
 * thinking on, the API refuses a final assistant message that does not begin with thinking;
 * cutting back to the last user message would reopen a finished tool loop): a short user message
 * follows it. Its breakpoints (llm/cache.ts) fall on that message and on the one before the
 * reply, which the next request marks too: it reads what this one wrote.
 */
function warmMessages(messages: readonly Message[]): readonly Message[] {
  return messages.at(-1)?.role === 'assistant' ? [...messages, userMessage(WARM_UP_PROMPT.trim())] : messages;
}

/** The warm-up request: the loop's next request, byte for byte, asking for a few output tokens. */
function warmRequest(w: EngineWiring, config: Config, messages: readonly Message[], signal: AbortSignal): ModelRequest {
  const t = config.thinking;
  return {
    model: config.model.name,
    system: w.system(),
    messages: config.model.images === false ? withoutImages(messages) : messages,
    tools: w.toolSpecs(),
    // thinking within a budget needs room above it; the reply is discarded either way
    maxTokens: Math.min(config.maxOutputTokens, WARM_TOKENS + (t?.mode === 'enabled' ? (t.budgetTokens ?? 0) : 0)),
    signal,
    cacheKey: w.deps.cacheKey,
    ...(t ? { thinking: t } : {}),
    ...(config.webSearch.enabled ? { webSearch: config.webSearch } : {}),
  };
}

/** Sends a warm-up request and bills what it consumed (/cost). */
async function warmUp(provider: Provider, req: ModelRequest, bill: WiringDeps['bill']): Promise<void> {
  if (req.messages.length === 0) return;
  for await (const ev of provider.stream(req)) if (ev.type === 'done') bill(req.model, ev.usage);
}

/** compaction.engine "provider" where the provider can compact (OpenAI's Responses API); elsewhere the agent's own summarizer. */
function providerCompaction(provider: Provider, model: string, cacheKey: string, system: () => string): ProviderCompaction | undefined {
  const compact = provider.compact?.bind(provider);
  if (!compact) return undefined;
  return {
    model,
    // the session's instructions, so the compaction request reads the prompt cache of the session's own
    compact: async (messages, signal) => compact({ model, system: system(), messages, signal, cacheKey }),
  };
}
