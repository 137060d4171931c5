import type { ModelLimits } from '../config/models.js';
import type { ThinkingRequest } from '../llm/provider.js';
import type { CompactionConfig } from '../config/schema.js';
import type { LedgerSource } from './ledgerStep.js';
import type { DescribeToolUse } from './micro.js';
import type { MicroPolicy } from './microPolicy.js';
import type { RequestParts } from './meter.js';
import type { ReadFile } from './restore.js';
import type { SummarizerModel } from './summarize.js';
import type { TokenCounter } from './tokens.js';
import type { ThinkingRoom } from './thinkingRoom.js';
import type { Message, ReasoningBlock, Usage } from '../llm/messages.js';

export interface ProviderCompaction {
  /** The model that compacts (the session's). */
  model: string;
  compact(messages: readonly Message[], signal: AbortSignal): Promise<{ block: ReasoningBlock; usage: Usage }>;
}

export interface EngineDeps {
  config: CompactionConfig;
  /** The session model's limits (a ResolvedModel's `name` is used when `model` is absent). */
  limits: ModelLimits & { name?: string };
  /** The session model's name: the key of its calibration ratio. Default limits.name, else the summarizer's model. */
  model?: string;
  /** Who writes summaries: compaction.model, or the session's model. */
  summarizer: SummarizerModel;
  counter: TokenCounter;
  /** Tools whose old results micro compaction may clear. */
  compactableTools: readonly string[];
  /** Tools whose `path` input is a file read or edited (restored after compaction); default FileRead, Edit, Write. */
  fileReadTools?: readonly string[];
  /** Key argument of a tool call for placeholders (the Tool's `summarize`); default: command / path / pattern / query. */
  describeToolUse?: DescribeToolUse;
  readFile?: ReadFile;
  now?: () => number;
  /**
   * Set when the summarizer is the session's own model and prompt caching is on: the summary is
   * asked of the session's request as it stands (inPlace.ts), so it reads the prompt cache.
   */
  inPlaceSummary?: { cacheKey?: string | undefined; thinking?: ThinkingRequest | undefined } | undefined;
  /** Prompt caching is on with entries living this long: micro compaction minds the cache (microPolicy.ts). */
  cacheTtlMs?: number | undefined;
  /** 'every-call' clears whenever something is clearable (for comparison in the benchmark). */
  microPolicy?: MicroPolicy | undefined;
  /**
   * compaction.engine "provider": the provider compacts the head itself (OpenAI responses.compact)
   * into an encrypted item the checkpoint carries; the summarizer stays the fallback.
   */
  providerCompaction?: ProviderCompaction | undefined;
  /**
   * The provider's exact count of a request (OpenAI responses.inputTokens.count), asked only when
   * the estimate lands near the auto threshold, once per history (see CompactionEngine.beforeCall).
   */
  countExact?: ((parts: CompactionContext, signal: AbortSignal) => Promise<number>) | undefined;
  /** The instructions every summary request of a compaction gets, given the person's focus (compaction.instructions, PreCompact hooks); default the focus alone. */
  instructions?: ((trigger: 'auto' | 'reactive' | 'manual', focus: string | undefined, signal: AbortSignal) => Promise<string | undefined>) | undefined;
  /**
   * Which replayed thinking the model keeps in context (thinkingRoom.ts): 'current-turn' where
   * the API strips finished turns' thinking (Claude before the 5 family); default 'all'.
   */
  thinkingRoom?: ThinkingRoom | undefined;
  /**
   * The working-state ledger (ledger/): derived from the log and carried beside every checkpoint
   * of an LLM compaction; absent, or compaction.ledger false, the checkpoint carries the summary alone.
   */
  ledger?: LedgerSource | undefined;
  /**
   * The warm-up request of a background compaction's swap (background.ts): the compacted
   * history written to the provider's cache before it is swapped in. Absent where caching does
   * not apply: the swap is not warmed.
   */
  warm?: Warm | undefined;
  /** A background compaction (or its warm-up) settled: a session at rest may swap it in now (CompactionEngine.atRest). */
  backgroundSettled?: (() => void) | undefined;
  /** Watch replies for a server that truncated the prompt silently (OpenAI-compatible servers only); default true. */
  silentOverflowDetection?: boolean;
}

export type CompactionContext = RequestParts;

/** A warm-up request: the compacted history written to the provider's cache (its usage billed by whoever sends it). */
export type Warm = (messages: readonly Message[], signal: AbortSignal) => Promise<void>;
