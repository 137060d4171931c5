import type { OverflowInfo } from './errors.js';

// Pure parsers for the "prompt does not fit the context window" texts of the real
// providers and local OpenAI-compatible servers (see WIRE_FORMATS.md). Compaction sizes
// its retry from the gap `promptTokens - limit`, so when a provider counts the requested
// output in its total, promptTokens includes it (and requestedOutputTokens says how much).

const num = (s: string | undefined): number | undefined => {
  if (s === undefined) return undefined;
  const n = Number(s.replace(/,/g, ''));
  return Number.isFinite(n) ? n : undefined;
};

type Parser = (text: string) => OverflowInfo | undefined;

/** A text that states the input and the requested output separately: the gap counts both. */
const inputPlusOutput = (input: string | undefined, output: string | undefined, limit: string | undefined): OverflowInfo => {
  const i = num(input);
  const o = num(output);
  return { promptTokens: i !== undefined && o !== undefined ? i + o : undefined, limit: num(limit), requestedOutputTokens: o };
};

/** Anthropic: "prompt is too long: 200251 tokens > 200000 maximum". */
export const parseAnthropicPromptTooLong: Parser = (text) => {
  const m = /prompt is too long:\s*([\d,]+)\s*tokens\s*>\s*([\d,]+)\s*maximum/i.exec(text);
  return m ? { promptTokens: num(m[1]), limit: num(m[2]) } : undefined;
};

/** Anthropic: "input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, ...". */
export const parseAnthropicInputAndMaxTokens: Parser = (text) => {
  const m = /input length and `?max_tokens`? exceed context limit:\s*([\d,]+)\s*\+\s*([\d,]+)\s*>\s*([\d,]+)/i.exec(text);
  return m ? inputPlusOutput(m[1], m[2], m[3]) : undefined;
};

/** OpenAI: "This model's maximum context length is 128000 tokens. However, your messages resulted in 204308 tokens. ..." */
export const parseOpenAIMessagesResulted: Parser = (text) => {
  const m = /maximum context length is\s*([\d,]+)\s*tokens\.?\s*However, your messages resulted in\s*([\d,]+)\s*tokens/i.exec(text);
  return m ? { promptTokens: num(m[2]), limit: num(m[1]) } : undefined;
};

/**
 * OpenAI (and old vLLM, DeepSeek): "This model's maximum context length is 8192 tokens. However, you requested
 * 8256 tokens (64 in the messages, 8192 in the completion). ..."
 */
export const parseOpenAIRequested: Parser = (text) => {
  const m =
    /maximum context length is\s*([\d,]+)\s*tokens\.?\s*However, you requested\s*([\d,]+)\s*tokens\s*\(\s*([\d,]+)\s*in the messages,\s*([\d,]+)\s*in the completion\)/i.exec(
      text,
    );
  return m ? { promptTokens: num(m[2]), limit: num(m[1]), requestedOutputTokens: num(m[4]) } : undefined;
};

/**
 * vLLM (current): "This model's maximum context length is 40960 tokens. However, you requested 0 output tokens and
 * your prompt contains at least 40961 input tokens, for a total of at least 40961 tokens. ... (parameter=input_tokens, value=40961)"
 */
export const parseVllmAtLeast: Parser = (text) => {
  const m =
    /maximum context length is\s*([\d,]+)\s*tokens\.?\s*However, you requested\s*([\d,]+)\s*output tokens and your prompt contains at least\s*([\d,]+)\s*input tokens, for a total of at least\s*([\d,]+)\s*tokens/i.exec(
      text,
    );
  return m ? { promptTokens: num(m[4]), limit: num(m[1]), requestedOutputTokens: num(m[2]) } : undefined;
};

/** vLLM (late 2025): "This model's maximum context length is 4096 tokens. However, your request has 5000 input tokens. ..." */
export const parseVllmRequestHas: Parser = (text) => {
  const m = /maximum context length is\s*([\d,]+)\s*tokens\.?\s*However, your request has\s*([\d,]+)\s*input tokens/i.exec(text);
  return m ? { promptTokens: num(m[2]), limit: num(m[1]) } : undefined;
};

/**
 * vLLM: "'max_tokens' or 'max_completion_tokens' is too large: 8000. This model's maximum context length is 4096
 * tokens and your request has 2778 input tokens (8000 > 4096 - 2778)."
 */
export const parseVllmMaxTokensTooLarge: Parser = (text) => {
  const m =
    /'max_tokens' or 'max_completion_tokens' is too large:\s*([\d,]+)\.?\s*This model's maximum context length is\s*([\d,]+)\s*tokens and your request has\s*([\d,]+)\s*input tokens/i.exec(
      text,
    );
  return m ? inputPlusOutput(m[3], m[1], m[2]) : undefined;
};

/** llama.cpp: "request (9412 tokens) exceeds the available context size (8192 tokens), try increasing it". */
export const parseLlamaCpp: Parser = (text) => {
  const m = /request \(\s*([\d,]+)\s*tokens\s*\) exceeds the available context size \(\s*([\d,]+)\s*tokens\s*\)/i.exec(text);
  if (m) return { promptTokens: num(m[1]), limit: num(m[2]) };
  const single = /input \(\s*([\d,]+)\s*tokens\s*\) is (?:larger than the max context size|too large to process)/i.exec(text);
  return single ? { promptTokens: num(single[1]) } : undefined;
};

/** LM Studio (0.4+): "Cannot truncate prompt with n_keep (14169) >= n_ctx (4096)". */
export const parseLmStudioNKeep: Parser = (text) => {
  const m = /n_keep\s*\(\s*([\d,]+)\s*\)\s*>=\s*n_ctx\s*\(\s*([\d,]+)\s*\)/i.exec(text);
  return m ? { promptTokens: num(m[1]), limit: num(m[2]) } : undefined;
};

/**
 * LM Studio (older): "Trying to keep the first 111490 tokens when context the overflows. However, the model is
 * loaded with context length of only 32768 tokens, which is not enough. ..."
 */
export const parseLmStudioTryingToKeep: Parser = (text) => {
  const m = /Trying to keep the first\s*([\d,]+)\s*tokens[\s\S]*?context length of only\s*([\d,]+)\s*tokens/i.exec(text);
  return m ? { promptTokens: num(m[1]), limit: num(m[2]) } : undefined;
};

/** Ollama with truncation off: "the input length exceeds the context length" (no figures). */
export const parseOllama: Parser = (text) => (/the input length exceeds the context length/i.test(text) ? {} : undefined);

/** Anthropic 413 request_too_large: "Request exceeds the maximum allowed number of bytes..." (no token figures). */
export const parseRequestTooLarge: Parser = (text) => (/request exceeds the maximum allowed number of bytes|request_too_large/i.test(text) ? {} : undefined);

/** Any other "maximum context length is N tokens" wording: at least the limit is known. */
const parseGenericMaximumContext: Parser = (text) => {
  const m = /maximum context length is\s*([\d,]+)\s*tokens/i.exec(text);
  return m ? { limit: num(m[1]) } : undefined;
};

const PARSERS: readonly Parser[] = [
  parseAnthropicPromptTooLong,
  parseAnthropicInputAndMaxTokens,
  parseOpenAIMessagesResulted,
  parseOpenAIRequested,
  parseVllmAtLeast,
  parseVllmRequestHas,
  parseVllmMaxTokensTooLarge,
  parseLlamaCpp,
  parseLmStudioNKeep,
  parseLmStudioTryingToKeep,
  parseOllama,
  parseRequestTooLarge,
  parseGenericMaximumContext,
];

/**
 * Recognises a context-overflow error text from any supported provider. Returns the figures it
 * carries ({} when it names none), or undefined when the text is not an overflow.
 */
export function parseOverflow(text: string): OverflowInfo | undefined {
  for (const parse of PARSERS) {
    const info = parse(text);
    if (info) {
      // vLLM appends "(parameter=input_tokens, value=N)": the exact prompt size when nothing else gave one
      const input = /\(parameter=input_tokens, value=([\d,]+)\)/.exec(text);
      if (info.promptTokens === undefined && input) info.promptTokens = num(input[1]);
      return dropUndefined(info);
    }
  }
  return undefined;
}

export const isOverflowText = (text: string): boolean => parseOverflow(text) !== undefined;

function dropUndefined(info: OverflowInfo): OverflowInfo {
  const out: OverflowInfo = {};
  if (info.promptTokens !== undefined) out.promptTokens = info.promptTokens;
  if (info.limit !== undefined) out.limit = info.limit;
  if (info.requestedOutputTokens !== undefined) out.requestedOutputTokens = info.requestedOutputTokens;
  return out;
}
