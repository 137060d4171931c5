import type { Block } from '../../src/llm/messages.js';

export type WireProvider = 'anthropic' | 'openai';

/**
 * How a prompt over the context window is answered. On the Anthropic route only
 * 'anthropic' applies; on the OpenAI route every other value does.
 * ollama_silent: 200 OK, the prompt is "truncated" and usage.prompt_tokens capped at the window.
 */
export type OverflowFlavor = 'anthropic' | 'openai' | 'llamacpp' | 'vllm' | 'vllm_flat' | 'lmstudio' | 'lmstudio_old' | 'ollama_error' | 'ollama_silent';

/** Anthropic stop_reason names; on the OpenAI route they map to finish_reason (end_turn→stop, tool_use→tool_calls, max_tokens→length, refusal→content_filter). */
export type StopName = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'pause_turn' | 'model_context_window_exceeded';

export interface ToolCallReply {
  /** Generated when absent (toolu_… / call_…). */
  id?: string;
  name: string;
  input?: Record<string, unknown>;
  /** Raw JSON text streamed instead of JSON.stringify(input), e.g. JSON cut off by max_tokens. */
  json?: string;
}

export interface UsageReply {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/** Breaks a streamed reply after `afterFrames` SSE frames. */
export interface StreamCut {
  afterFrames: number;
  /**
   * drop: the socket is destroyed; end: the response ends cleanly, the reply unfinished;
   * stall: nothing more is sent (until the client gives up or maxStallMs); error: an
   * in-stream error frame (Anthropic overloaded_error, OpenAI server_error), then the end.
   */
  how: 'drop' | 'end' | 'stall' | 'error';
  /** Message of the in-stream error frame. */
  message?: string;
}

export interface MessageReply {
  type?: 'message';
  /** Streamed in several deltas (see chunkSize). */
  text?: string;
  /**
   * Anthropic route, when the request thinks (the 5 family by default, or thinking asked):
   * the thinking text (default: a generated sentence); false: this reply does not think.
   */
  thinking?: string | false;
  toolCalls?: ToolCallReply[];
  /** OpenAI route: a refusal streamed in delta.refusal (after any text). */
  refusal?: string;
  /** Default: tool_use when there are tool calls, else end_turn. */
  stop?: StopName;
  /** OpenAI route: a raw finish_reason overriding the mapping of `stop`. */
  finishReason?: string;
  /** Overrides of the reported usage; input defaults to the server's count, output to the count of the reply. */
  usage?: UsageReply;
  /** Model name reported; default the requested one. */
  model?: string;
  /** Characters per text delta (default 6). */
  chunkSize?: number;
  /** Characters per tool-input JSON fragment (default 7). */
  jsonChunkSize?: number;
  /**
   * OpenAI route, Ollama's stream shape: role on every delta, tool calls whole, fp_ollama.
   * ollama: all calls in one chunk (index 0, 1, ...); ollama_legacy: one chunk per call, every one at index 0 (older builds).
   */
  style?: 'ollama' | 'ollama_legacy';
  /** OpenAI route: tool calls come without ids (some local servers). */
  omitToolCallIds?: boolean;
  /** OpenAI route: never send the usage chunk even when include_usage was asked (servers that ignore stream_options). */
  omitUsage?: boolean;
  /**
   * Responses route, reasoning models: the reasoning summary of the reply's reasoning item
   * (default a short one; false: no reasoning item). Sent only when the request asked for a summary.
   */
  reasoning?: string | false;
  /** Responses route: reasoning tokens reported (part of the output tokens; default from the summary). */
  reasoningTokens?: number;
  /** Responses route: the phase of the assistant message. */
  phase?: 'commentary' | 'final_answer';
  /** Anthropic route: ping frames after message_start and after each text delta (true: one, N: N each time). */
  pings?: boolean | number;
  /** Milliseconds between frames (default 0). */
  frameDelayMs?: number;
  /** Streamed replies: milliseconds before the response starts (a slow summarizer; the request is counted and cached at once). */
  delayMs?: number;
  /** Streamed replies: the response never starts; the request stays open until the client gives up (cancels) or the server closes. */
  hang?: boolean;
  /** Streamed replies: the response starts once this settles (a summarizer the test releases); a client that gives up first is recorded (`cancelled`). */
  gate?: Promise<unknown>;
  cut?: StreamCut;
  /**
   * A server-side web search before the text (Anthropic server_tool_use + web_search_tool_result,
   * OpenAI web_search_call), the text citing the first result. Needs the request to offer the tool.
   */
  search?: SearchReply;
  /**
   * Anthropic route: the API pauses the turn (stop_reason pause_turn). With `search`, the reply's
   * text comes first and its server_tool_use last, without its result: the next request must
   * send this reply back as-is as its final assistant message (pause.ts; otherwise refused),
   * and its reply (the next scripted one) starts with the search's result, its text citing it.
   */
  pause?: boolean;
}

export interface SearchReply {
  query: string;
  /** Default: DEFAULT_SEARCH_RESULTS (websearch.ts). */
  results?: { url: string; title: string }[];
  /** The search failed with this error code (Anthropic web_search_tool_result_error). */
  error?: string;
}

export type InjectedError =
  /** The route's overflow error (flavor from `flavor` or the server's option), with the server's token figures unless given. */
  | 'overflow'
  /** Anthropic: 400 "input length and `max_tokens` exceed context limit: IN + MAX > LIMIT". */
  | 'overflow_max_tokens'
  /** Anthropic 413 request_too_large. */
  | 'request_too_large'
  /** 400 invalid_request_error with `message`. */
  | 'invalid_request'
  | 'auth'
  | 'permission'
  | 'not_found'
  | 'rate_limit'
  /** OpenAI 429 insufficient_quota; Anthropic 400 credit balance too low. */
  | 'quota'
  | 'server'
  /** Anthropic 529 overloaded_error; OpenAI 503. */
  | 'overloaded';

export interface ErrorReply {
  type: 'error';
  error: InjectedError;
  flavor?: OverflowFlavor;
  /** Replaces the default message text. */
  message?: string;
  /** retry-after header value (seconds or an HTTP date). */
  retryAfter?: string | number;
  /** retry-after-ms header value. */
  retryAfterMs?: number;
  /** Figures for overflow texts (default: the server's count and the model's window). */
  promptTokens?: number;
  limit?: number;
  /** Requested output used by the max_tokens wordings (default: the request's). */
  maxTokens?: number;
  /** x-should-retry header. */
  shouldRetry?: boolean;
}

export type Reply = MessageReply | ErrorReply;

/** What the fake server understood of a request, whatever the provider. */
export interface RequestView {
  model: string;
  /** System text (Anthropic `system`; OpenAI system/developer messages joined). */
  system: string;
  /** Messages in wire order as neutral blocks (an OpenAI tool message becomes a user message holding one tool_result). */
  messages: { role: 'user' | 'assistant'; blocks: Block[] }[];
  toolNames: string[];
  /** The web search tool the request offered, as sent (Anthropic web_search_2025xxxx, OpenAI web_search). */
  webSearchTool?: Record<string, unknown>;
  /** max_tokens / max_completion_tokens as sent. */
  maxTokens?: number;
  /** Which OpenAI field carried the limit. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  stream: boolean;
  /** OpenAI stream_options.include_usage. */
  includeUsage: boolean;
  temperature?: number;
  /** Anthropic: the request's thinking and effort fields as sent. */
  thinking?: unknown;
  effort?: string;
  /** The server's token count of the prompt (gpt-tokenizer × tokenMultiplier). */
  promptTokens: number;
  /** ollama_silent: the prompt exceeded the window and was "truncated". */
  truncated?: boolean;
}

export interface RecordedRequest {
  /** 1-based, in arrival order. */
  seq: number;
  provider: WireProvider | 'unknown';
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON body (undefined when absent or not JSON). */
  body: unknown;
  /** The body as it arrived, byte for byte (UTF-8). */
  raw?: string;
  /** Set when the request was well-formed enough to be understood. */
  view?: RequestView;
  /** The usage the server reported for a successful reply (input excludes cache reads and writes, as Anthropic reports it). */
  usage?: { inputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; outputTokens: number; thinkingTokens?: number };
  /** How the server answered (status 0, dropped: the client went away before its body arrived). */
  response?: { status: number; kind: 'stream' | 'json' | 'error' | 'dropped' | 'hung'; errorMessage?: string };
  /** The client closed the request while it waited at its reply's gate. */
  cancelled?: boolean;
}

/** A dynamic reply; return undefined to fall through to the queue. */
export type Responder = (req: RecordedRequest & { view: RequestView }) => Reply | undefined;
