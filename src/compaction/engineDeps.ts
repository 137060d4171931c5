import type { ModelLimits } from '../config/models.js';
import type { ThinkingRequest } from '../llm/provider.js';
import type { CompactionConfig } from '../config/schema.js';
import type { DescribeToolUse } from './micro.js';
import type { MicroPolicy } from './microPolicy.js';
import type { RequestParts } from './meter.js';
import type { ReadFile } from './restore.js';
import type { SummarizerModel } from './summarize.js';
import type { TokenCounter } from './tokens.js';

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
  /** Watch replies for a server that truncated the prompt silently (OpenAI-compatible servers only); default true. */
  silentOverflowDetection?: boolean;
}

export type CompactionContext = RequestParts;
