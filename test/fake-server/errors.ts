import type { ErrorReply, OverflowFlavor } from './types.js';

// The real error responses of Anthropic, OpenAI and the local OpenAI-compatible servers
// (texts and shapes from WIRE_FORMATS.md). Bodies are objects, or a string sent as is.

export interface WireError {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Figures an error text is built from. */
export interface ErrorFigures {
  model: string;
  promptTokens: number;
  limit: number;
  /** Output tokens requested (0 when the request named none). */
  maxTokens: number;
  /** The key the client sent, for OpenAI's masked "Incorrect API key provided" text. */
  apiKey?: string;
}

export const anthropicBody = (type: string, message: string, requestId?: string): unknown => ({
  type: 'error',
  error: { type, message },
  ...(requestId ? { request_id: requestId } : {}),
});

export const openaiBody = (message: string, type: string, param: string | null = null, code: string | number | null = null): unknown => ({
  error: { message, type, param, code },
});

export const anthropicInvalid = (message: string): WireError => ({ status: 400, headers: {}, body: anthropicBody('invalid_request_error', message) });

export const openaiInvalid = (message: string, param: string | null = null, code: string | null = null): WireError => ({
  status: 400,
  headers: {},
  body: openaiBody(message, 'invalid_request_error', param, code),
});

export const promptTooLongText = (f: ErrorFigures): string => `prompt is too long: ${f.promptTokens} tokens > ${f.limit} maximum`;

export const inputAndMaxTokensText = (f: ErrorFigures): string =>
  `input length and \`max_tokens\` exceed context limit: ${f.promptTokens} + ${f.maxTokens} > ${f.limit}, decrease input length or \`max_tokens\` and try again`;

const ANTHROPIC_RATE_LIMIT =
  'Number of request tokens has exceeded your per-minute rate limit (https://docs.anthropic.com/en/api/rate-limits); see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase.';

export function maskKey(key: string | undefined): string {
  if (!key) return '';
  if (key.length <= 8) return '****';
  return `${key.slice(0, 3)}${'*'.repeat(Math.max(4, key.length - 7))}${key.slice(-4)}`;
}

function retryHeaders(reply: ErrorReply, defaults: Record<string, string> = {}): Record<string, string> {
  const h: Record<string, string> = { ...defaults };
  if (reply.retryAfter !== undefined) h['retry-after'] = String(reply.retryAfter);
  if (reply.retryAfterMs !== undefined) h['retry-after-ms'] = String(reply.retryAfterMs);
  if (reply.shouldRetry !== undefined) h['x-should-retry'] = String(reply.shouldRetry);
  return h;
}

export function anthropicError(reply: ErrorReply, f: ErrorFigures): WireError {
  const msg = (text: string): string => reply.message ?? text;
  const headers = retryHeaders(reply, reply.error === 'rate_limit' && reply.retryAfterMs === undefined ? { 'retry-after': '1' } : {});
  switch (reply.error) {
    case 'overflow':
      return { status: 400, headers, body: anthropicBody('invalid_request_error', msg(promptTooLongText(f))) };
    case 'overflow_max_tokens':
      return { status: 400, headers, body: anthropicBody('invalid_request_error', msg(inputAndMaxTokensText(f))) };
    case 'request_too_large':
      return {
        status: 413,
        headers,
        body: anthropicBody(
          'request_too_large',
          msg('Request exceeds the maximum allowed number of bytes. The maximum request size is 32 MB for standard API endpoints.'),
        ),
      };
    case 'invalid_request':
      return { status: 400, headers, body: anthropicBody('invalid_request_error', msg('Invalid request')) };
    case 'auth':
      return { status: 401, headers, body: anthropicBody('authentication_error', msg('invalid x-api-key')) };
    case 'permission':
      return { status: 403, headers, body: anthropicBody('permission_error', msg('Your API key does not have permission to use the specified resource.')) };
    case 'not_found':
      return { status: 404, headers, body: anthropicBody('not_found_error', msg(`model: ${f.model}`)) };
    case 'rate_limit':
      return { status: 429, headers, body: anthropicBody('rate_limit_error', msg(ANTHROPIC_RATE_LIMIT)) };
    case 'quota':
      return {
        status: 400,
        headers,
        body: anthropicBody(
          'invalid_request_error',
          msg('Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.'),
        ),
      };
    case 'server':
      return { status: 500, headers, body: anthropicBody('api_error', msg('Internal server error')) };
    case 'overloaded':
      return { status: 529, headers, body: anthropicBody('overloaded_error', msg('Overloaded')) };
  }
}

/** The overflow answer of an OpenAI-compatible server of the given flavor (undefined for ollama_silent, which does not fail). */
export function openaiOverflow(flavor: OverflowFlavor, f: ErrorFigures, forceRequested = false): WireError | undefined {
  const { promptTokens: p, limit, maxTokens: max } = f;
  switch (flavor) {
    case 'anthropic':
    case 'openai': {
      const requested = forceRequested || (max > 0 && p <= limit);
      const message = requested
        ? `This model's maximum context length is ${limit} tokens. However, you requested ${p + max} tokens (${p} in the messages, ${max} in the completion). Please reduce the length of the messages or completion.`
        : `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${p} tokens. Please reduce the length of the messages.`;
      return { status: 400, headers: {}, body: openaiBody(message, 'invalid_request_error', 'messages', 'context_length_exceeded') };
    }
    case 'llamacpp':
      return {
        status: 400,
        headers: {},
        body: {
          error: {
            code: 400,
            message: `request (${p} tokens) exceeds the available context size (${limit} tokens), try increasing it`,
            type: 'exceed_context_size_error',
            n_prompt_tokens: p,
            n_ctx: limit,
          },
        },
      };
    case 'vllm':
      return {
        status: 400,
        headers: {},
        body: openaiBody(
          `This model's maximum context length is ${limit} tokens. However, you requested ${max} output tokens and your prompt contains at least ${p} input tokens, for a total of at least ${p + max} tokens. Please reduce the length of the input prompt or the number of requested output tokens. (parameter=input_tokens, value=${p})`,
          'BadRequestError',
          'input_tokens',
          400,
        ),
      };
    case 'vllm_flat':
      return {
        status: 400,
        headers: {},
        body: {
          object: 'error',
          message: `This model's maximum context length is ${limit} tokens. However, you requested ${p + max} tokens (${p} in the messages, ${max} in the completion). Please reduce the length of the messages or completion.`,
          type: 'BadRequestError',
          param: null,
          code: 400,
        },
      };
    case 'lmstudio':
      return { status: 400, headers: {}, body: { error: `Cannot truncate prompt with n_keep (${p}) >= n_ctx (${limit})` } };
    case 'lmstudio_old':
      return {
        status: 400,
        headers: {},
        body: {
          error: `Trying to keep the first ${p} tokens when context the overflows. However, the model is loaded with context length of only ${limit} tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input.`,
        },
      };
    case 'ollama_error':
      return { status: 400, headers: {}, body: openaiBody('the input length exceeds the context length', 'invalid_request_error') };
    case 'ollama_silent':
      return undefined;
  }
}

export function openaiError(reply: ErrorReply, flavor: OverflowFlavor, f: ErrorFigures): WireError {
  const msg = (text: string): string => reply.message ?? text;
  const headers = retryHeaders(reply);
  switch (reply.error) {
    case 'overflow':
    case 'overflow_max_tokens': {
      const fl = reply.flavor ?? flavor;
      const err = openaiOverflow(fl === 'ollama_silent' ? 'ollama_error' : fl, f, reply.error === 'overflow_max_tokens')!;
      return { ...err, headers: { ...err.headers, ...headers } };
    }
    case 'request_too_large':
      return { status: 413, headers, body: openaiBody(msg('Request exceeds the maximum allowed number of bytes.'), 'invalid_request_error') };
    case 'invalid_request':
      return { status: 400, headers, body: openaiBody(msg('Invalid request'), 'invalid_request_error') };
    case 'auth':
      return {
        status: 401,
        headers,
        body: openaiBody(
          msg(`Incorrect API key provided: ${maskKey(f.apiKey)}. You can find your API key at https://platform.openai.com/account/api-keys.`),
          'invalid_request_error',
          null,
          'invalid_api_key',
        ),
      };
    case 'permission':
      return { status: 403, headers, body: openaiBody(msg(`You are not allowed to sample from this model`), 'invalid_request_error') };
    case 'not_found':
      return {
        status: 404,
        headers,
        body: openaiBody(msg(`The model \`${f.model}\` does not exist or you do not have access to it.`), 'invalid_request_error', null, 'model_not_found'),
      };
    case 'rate_limit':
      return {
        status: 429,
        headers,
        body: openaiBody(
          msg(
            `Rate limit reached for ${f.model} in organization org-fake on tokens per min (TPM): Limit 200000, Used 162960, Requested 42288. Please try again in 1.574s. Visit https://platform.openai.com/account/rate-limits to learn more.`,
          ),
          'tokens',
          null,
          'rate_limit_exceeded',
        ),
      };
    case 'quota':
      return {
        status: 429,
        headers,
        body: openaiBody(
          msg(
            'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
          ),
          'insufficient_quota',
          null,
          'insufficient_quota',
        ),
      };
    case 'server':
      return {
        status: 500,
        headers,
        body: openaiBody(msg('The server had an error while processing your request. Sorry about that!'), 'server_error'),
      };
    case 'overloaded':
      return { status: 503, headers, body: openaiBody(msg('The engine is currently overloaded, please try again later'), 'server_error') };
  }
}
