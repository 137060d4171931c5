import { ProviderError } from './errors.js';
import type { Block, Message, ReasoningBlock, Usage } from './messages.js';
import type { ProviderName } from './providerName.js';

export type { ProviderName } from './providerName.js';

/** A JSON Schema object as sent to the providers (type: 'object' at the top). */
export type JsonSchema = { type: 'object'; properties?: Record<string, unknown>; required?: string[]; [k: string]: unknown };

export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

export interface ModelRequest {
  model: string;
  system: string;
  messages: readonly Message[];
  tools: readonly ToolSpec[];
  maxTokens: number;
  /** OpenAI only: Anthropic's API version 2026-10-21 refuses every sampling parameter. */
  temperature?: number;
  /** How the model thinks (absent: the provider's default for the model). */
  thinking?: ThinkingRequest;
  signal?: AbortSignal;
  /** The session id: OpenAI's prompt_cache_key, where the server is OpenAI's (see cache.ts). */
  cacheKey?: string;
  /** Offer the provider's server-side web search (Anthropic Messages, OpenAI Responses; Chat Completions has none). */
  webSearch?: WebSearchRequest;
}

/** The web search tool's settings as requests carry them (.agentrc `webSearch`). */
export interface WebSearchRequest {
  /** Anthropic: searches per request (max_uses). */
  maxUses?: number | undefined;
  /** Only these domains (Anthropic allowed_domains, OpenAI filters.allowed_domains); empty: any. */
  allowedDomains?: string[] | undefined;
  /** Never these domains (Anthropic only); empty: none. */
  blockedDomains?: string[] | undefined;
}

/**
 * Why the model stopped. `context_window`: the provider stopped because the context
 * window filled (Anthropic `model_context_window_exceeded`). `pause_turn`: the provider paused
 * a long turn of server-side tools (Anthropic); the reply goes back as-is as the last message
 * and the next request continues the same turn.
 */
export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'context_window' | 'pause_turn' | 'other';

export type Effort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';

/**
 * The thinking settings of a request, provider-neutral. adaptive: the model decides when and
 * how much; enabled: manual thinking within budgetTokens; off: no thinking (where the model
 * can turn it off). display: whether the thinking text comes back (summarized) or only its
 * signature (omitted).
 */
export interface ThinkingRequest {
  mode: 'adaptive' | 'enabled' | 'off';
  budgetTokens?: number;
  effort?: Effort;
  display?: 'summarized' | 'omitted';
  /** The model also takes thinking off (a request whose open tool loop has no thinking to replay goes without). */
  canTurnOff?: boolean;
}

export type StreamEvent =
  | { type: 'text_delta'; text: string }
  /** Readable thinking as it streams (Anthropic thinking, OpenAI reasoning summaries); at a signed block's end, its signature. */
  | { type: 'thinking_delta'; text: string; signature?: string }
  | { type: 'tool_use_start'; id: string; name: string }
  | { type: 'tool_input_delta'; id: string; partialJson: string }
  /**
   * Always the last event of a successful stream. prefixHash: the hash of what the reply was
   * produced after (model, system, tools, messages as sent; thinkingReplay.ts), stored with the
   * reply so that its thinking is sent back only while that prefix is unchanged.
   */
  | { type: 'done'; blocks: Block[]; stopReason: StopReason; usage: Usage; model: string; prefixHash?: string };

/** What a provider's models endpoint says of a model (Anthropic: GET /v1/models/{id}). */
export interface ModelDescription {
  thinkingTypes: Array<'adaptive' | 'enabled' | 'disabled'>;
  efforts: Effort[];
  maxInputTokens?: number;
  maxOutputTokens?: number;
  /** active | deprecated (callable, headed for retirement) | retired (requests naming it fail). */
  lifecycle?: string;
  /** RFC 3339: when the model was deprecated, for a deprecated or retired one. */
  deprecatedAt?: string;
  /** RFC 3339: its scheduled (or past) retirement, where one is set. */
  retiresAt?: string;
}

/** A request to compact history on the provider's side (OpenAI responses.compact). */
export interface CompactRequest {
  model: string;
  system: string;
  messages: readonly Message[];
  signal?: AbortSignal;
  cacheKey?: string;
}

export interface CompactResult {
  /** The encrypted compaction item, to replay in later requests in place of what it summarizes. */
  block: ReasoningBlock & { item: 'compaction' };
  usage: Usage;
}

export interface Provider {
  readonly name: ProviderName;
  /** The server's base URL when one was given (flag, config or *_BASE_URL); undefined: the SDK's default, the provider's own API. */
  readonly baseURL?: string | undefined;
  /**
   * Streams one model response. Throws ProviderError (never an SDK error) on failure,
   * including a stream that ends before the response is complete (kind 'stream_cut').
   * Does not retry: the agent loop owns retries so that it can report them.
   */
  stream(req: ModelRequest): AsyncIterable<StreamEvent>;
  /** Present where the provider counts a request's input exactly without running it (OpenAI's Responses API); throws ProviderError. */
  countInputTokens?(req: Omit<ModelRequest, 'maxTokens'>): Promise<number>;
  /** Present where the provider can compact history itself (OpenAI's Responses API); throws ProviderError. */
  compact?(req: CompactRequest): Promise<CompactResult>;
  /** The model's capabilities from the provider's models endpoint, where it has one. Throws ProviderError. */
  describeModel?(model: string): Promise<ModelDescription>;
}

export type DoneEvent = Extract<StreamEvent, { type: 'done' }>;

/** Collects a stream into its final `done` event (used by the summarizer). */
export async function completeStream(provider: Provider, req: ModelRequest): Promise<DoneEvent> {
  for await (const ev of provider.stream(req)) {
    if (ev.type === 'done') return ev;
  }
  throw new ProviderError({ kind: 'stream_cut', provider: provider.name, message: 'the response stream ended without a final message' });
}
