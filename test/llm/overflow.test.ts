import { describe, expect, it } from 'vitest';
import { isOverflowText, parseOverflow } from '../../src/llm/overflow.js';

// Every text below is a real provider message quoted in WIRE_FORMATS.md.
describe('parseOverflow on the real texts', () => {
  const cases: [string, string, ReturnType<typeof parseOverflow>][] = [
    ['Anthropic prompt too long', 'prompt is too long: 200251 tokens > 200000 maximum', { promptTokens: 200251, limit: 200000 }],
    ['Anthropic prompt too long (older limit)', 'prompt is too long: 209353 tokens > 199999 maximum', { promptTokens: 209353, limit: 199999 }],
    [
      'Anthropic input + max_tokens',
      'input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again',
      { promptTokens: 207951, limit: 200000, requestedOutputTokens: 8192 },
    ],
    [
      'Anthropic input + max_tokens (64k)',
      'input length and `max_tokens` exceed context limit: 143653 + 64000 > 200000, decrease input length or `max_tokens` and try again',
      { promptTokens: 207653, limit: 200000, requestedOutputTokens: 64000 },
    ],
    [
      'OpenAI messages resulted',
      "This model's maximum context length is 4097 tokens. However, your messages resulted in 4294 tokens. Please reduce the length of the messages.",
      { promptTokens: 4294, limit: 4097 },
    ],
    [
      'OpenAI messages resulted, as the Node SDK prints it',
      "400 This model's maximum context length is 128000 tokens. However, your messages resulted in 204308 tokens. Please reduce the length of the messages.",
      { promptTokens: 204308, limit: 128000 },
    ],
    [
      'OpenAI requested (messages + completion)',
      "This model's maximum context length is 8192 tokens. However, you requested 8256 tokens (64 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.",
      { promptTokens: 8256, limit: 8192, requestedOutputTokens: 8192 },
    ],
    [
      'vLLM current, 0 output tokens',
      "This model's maximum context length is 40960 tokens. However, you requested 0 output tokens and your prompt contains at least 40961 input tokens, for a total of at least 40961 tokens. Please reduce the length of the input prompt or the number of requested output tokens. (parameter=input_tokens, value=40961)",
      { promptTokens: 40961, limit: 40960, requestedOutputTokens: 0 },
    ],
    [
      'vLLM current, with output tokens',
      "This model's maximum context length is 32768 tokens. However, you requested 8192 output tokens and your prompt contains at least 24577 input tokens, for a total of at least 32769 tokens. Please reduce the length of the input prompt or the number of requested output tokens.",
      { promptTokens: 32769, limit: 32768, requestedOutputTokens: 8192 },
    ],
    [
      'vLLM late 2025 input tokens',
      "This model's maximum context length is 4096 tokens. However, your request has 5000 input tokens. Please reduce the length of the input messages.",
      { promptTokens: 5000, limit: 4096 },
    ],
    [
      'vLLM max_tokens too large',
      "'max_tokens' or 'max_completion_tokens' is too large: 8000. This model's maximum context length is 4096 tokens and your request has 2778 input tokens (8000 > 4096 - 2778). None",
      { promptTokens: 10778, limit: 4096, requestedOutputTokens: 8000 },
    ],
    ['llama.cpp', 'request (9412 tokens) exceeds the available context size (8192 tokens), try increasing it', { promptTokens: 9412, limit: 8192 }],
    ['llama.cpp older build', 'request (4476 tokens) exceeds the available context size (4096 tokens)', { promptTokens: 4476, limit: 4096 }],
    ['llama.cpp non-splittable input', 'input (9000 tokens) is larger than the max context size', { promptTokens: 9000 }],
    ['LM Studio n_keep', 'Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)', { promptTokens: 15028, limit: 7424 }],
    ['LM Studio n_keep, quoted as the SDK prints it', '400 "Cannot truncate prompt with n_keep (14169) >= n_ctx (4096)"', { promptTokens: 14169, limit: 4096 }],
    [
      'LM Studio older',
      'Trying to keep the first 111490 tokens when context the overflows. However, the model is loaded with context length of only 32768 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input.',
      { promptTokens: 111490, limit: 32768 },
    ],
    ['Ollama with truncation off', 'the input length exceeds the context length', {}],
    ['Anthropic 413', 'Request exceeds the maximum allowed number of bytes. The maximum request size is 32 MB for standard API endpoints.', {}],
    [
      'DeepSeek-style wording',
      "This model's maximum context length is 65536 tokens. However, you requested 70000 tokens (60000 in the messages, 10000 in the completion). Please reduce the length of the messages or completion.",
      { promptTokens: 70000, limit: 65536, requestedOutputTokens: 10000 },
    ],
  ];
  for (const [name, text, expected] of cases) {
    it(name, () => {
      expect(parseOverflow(text)).toEqual(expected);
      expect(isOverflowText(text)).toBe(true);
    });
  }

  it('the gap closes what must be cut, also when the output was counted', () => {
    const info = parseOverflow(
      'input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again',
    )!;
    expect(info.promptTokens! - info.limit!).toBe(199759 + 8192 - 200000);
  });

  it('an unknown "maximum context length" wording still gives the limit', () => {
    expect(parseOverflow("This model's maximum context length is 16385 tokens, but something else happened.")).toEqual({ limit: 16385 });
  });
});

describe('texts that are not overflows', () => {
  const others = [
    'max_tokens: 128000 > 64000, which is the maximum allowed number of output tokens for claude-3-7-sonnet-20250219',
    'max_tokens is too large: 8192. This model supports at most 4096 completion tokens, whereas you provided 8192.',
    'Overloaded',
    'invalid x-api-key',
    'messages.1: all messages must have non-empty content except for the optional final assistant message',
    'Rate limit reached for o4-mini in organization org-**** on tokens per min (TPM): Limit 200000, Used 162960, Requested 42288. Please try again in 1.574s.',
    'You exceeded your current quota, please check your plan and billing details.',
  ];
  for (const text of others) {
    it(text.slice(0, 50), () => {
      expect(parseOverflow(text)).toBeUndefined();
      expect(isOverflowText(text)).toBe(false);
    });
  }
});
