import type { Block } from '../../src/llm/messages.js';
import { chunk } from './anthropic-wire.js';
import { keyOf, type Segment } from './cache.js';
import { countBlock, countPrompt, countText, countTool, MESSAGE_OVERHEAD, type CountableTool } from './tokens.js';
import type { MessageReply, RequestView } from './types.js';
import { OPENAI_IMAGE_ERROR, openaiImageProblem } from './images.js';

// OpenAI Chat Completions as the fake server speaks it (also standing in for llama.cpp,
// vLLM, LM Studio and Ollama): request validation with OpenAI's 400 texts, and the
// chunks of a streamed reply.

/** segments: the prompt in cache order (tools, then each message), for the prompt-cache simulation. */
export type Parsed =
  | { ok: true; view: RequestView; tools: CountableTool[]; segments: Segment[]; promptCacheKey?: string }
  | { ok: false; message: string; param: string | null; code: string | null };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface OpenAIParseOptions {
  tokenMultiplier: number;
  /** Refuse max_tokens for o-series and gpt-5 models, as api.openai.com does. */
  rejectMaxTokensForReasoningModels: boolean;
}

function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (isObj(p) && typeof p.text === 'string' ? p.text : '')).join('');
  return undefined;
}

export function parseOpenAIRequest(body: unknown, opts: OpenAIParseOptions): Parsed {
  const fail = (message: string, param: string | null = null, code: string | null = null): Parsed => ({ ok: false, message, param, code });
  if (!isObj(body)) return fail('We could not parse the JSON body of your request.');
  if (typeof body.model !== 'string' || body.model.length === 0) return fail('you must provide a model parameter');
  if (body.messages === undefined) return fail("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  if (!Array.isArray(body.messages)) return fail("Invalid type for 'messages': expected an array, but got an object instead.", 'messages', 'invalid_type');
  if (body.messages.length === 0)
    return fail("Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'messages', 'empty_array');
  if (body.stream_options !== undefined && body.stream !== true)
    return fail("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
  if (opts.rejectMaxTokensForReasoningModels && body.max_tokens !== undefined && /^(o\d|gpt-5)/.test(body.model))
    return fail(
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      'max_tokens',
      'unsupported_parameter',
    );
  if (body.reasoning_effort !== undefined) {
    if (!/^(o\d|gpt-5)/.test(body.model) || /-chat\b/.test(body.model))
      return fail("Unsupported parameter: 'reasoning_effort' is not supported with this model.", 'reasoning_effort', 'unsupported_parameter');
    if (!['none', 'minimal', 'low', 'medium', 'high', 'xhigh'].includes(String(body.reasoning_effort)))
      return fail(
        `Invalid value: '${String(body.reasoning_effort)}'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high', and 'xhigh'.`,
        'reasoning_effort',
        'invalid_value',
      );
  }

  const tools: CountableTool[] = [];
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return fail("Invalid type for 'tools': expected an array.", 'tools', 'invalid_type');
    for (const [i, t] of body.tools.entries()) {
      if (!isObj(t) || t.type !== 'function' || !isObj(t.function))
        return fail(`Missing required parameter: 'tools[${i}].function'.`, `tools[${i}].function`, 'missing_required_parameter');
      if (typeof t.function.name !== 'string')
        return fail(`Missing required parameter: 'tools[${i}].function.name'.`, `tools[${i}].function.name`, 'missing_required_parameter');
      const schema = t.function.parameters ?? {};
      if (isObj(schema) && schema.type !== undefined && schema.type !== 'object')
        return fail(
          `Invalid schema for function '${t.function.name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${String(schema.type)}"'.`,
          `tools[${i}].function.parameters`,
          'invalid_function_parameters',
        );
      tools.push({ name: t.function.name, description: typeof t.function.description === 'string' ? t.function.description : '', schema });
    }
  }

  const systemParts: string[] = [];
  const messages: RequestView['messages'] = [];
  // ids of the latest assistant tool_calls still waiting for tool messages
  let open: { index: number; ids: string[]; answered: Set<string> } | undefined;
  const closeOpen = (): Parsed | undefined => {
    if (!open) return undefined;
    const missing = open.ids.filter((id) => !open!.answered.has(id));
    const at = open.index;
    open = undefined;
    if (missing.length > 0)
      return fail(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`,
        `messages.[${at}].role`,
      );
    return undefined;
  };

  for (const [i, m] of body.messages.entries()) {
    if (!isObj(m)) return fail(`Invalid type for 'messages[${i}]': expected an object.`, `messages[${i}]`, 'invalid_type');
    const role = m.role;
    if (role !== 'tool') {
      const err = closeOpen();
      if (err) return err;
    }
    switch (role) {
      case 'system':
      case 'developer': {
        const text = contentText(m.content);
        if (text === undefined) return fail(`Invalid value for 'content': expected a string, got null.`, `messages.[${i}].content`);
        systemParts.push(text);
        break;
      }
      case 'user': {
        const blocks: Block[] = [];
        if (typeof m.content === 'string') blocks.push({ type: 'text', text: m.content });
        else if (Array.isArray(m.content)) {
          for (const [j, p] of m.content.entries()) {
            if (isObj(p) && p.type === 'text' && typeof p.text === 'string') blocks.push({ type: 'text', text: p.text });
            else if (isObj(p) && p.type === 'image_url' && isObj(p.image_url) && typeof p.image_url.url === 'string') {
              if (openaiImageProblem(p.image_url.url)) return fail(OPENAI_IMAGE_ERROR, `messages.[${i}].content.[${j}].image_url`, 'invalid_image_format');
              const d = /^data:([^;]+);base64,(.*)$/s.exec(p.image_url.url);
              blocks.push({ type: 'image', mediaType: d?.[1] ?? 'url', data: d?.[2] ?? p.image_url.url });
            } else
              return fail(
                `Invalid value: '${isObj(p) ? String(p.type) : typeof p}'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', 'audio', and 'file'.`,
                `messages[${i}].content[${j}].type`,
                'invalid_value',
              );
          }
        } else return fail(`Invalid value for 'content': expected a string, got null.`, `messages.[${i}].content`);
        messages.push({ role: 'user', blocks });
        break;
      }
      case 'assistant': {
        const blocks: Block[] = [];
        const text = contentText(m.content);
        const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
        if ((text === undefined || text === '') && calls.length === 0 && m.content !== '')
          return fail(`Invalid value for 'content': expected a string, got null.`, `messages.[${i}].content`);
        if (text) blocks.push({ type: 'text', text });
        const ids: string[] = [];
        for (const [j, c] of calls.entries()) {
          if (!isObj(c) || typeof c.id !== 'string')
            return fail(
              `Missing required parameter: 'messages[${i}].tool_calls[${j}].id'.`,
              `messages[${i}].tool_calls[${j}].id`,
              'missing_required_parameter',
            );
          if (!isObj(c.function) || typeof c.function.name !== 'string' || typeof c.function.arguments !== 'string')
            return fail(
              `Missing required parameter: 'messages[${i}].tool_calls[${j}].function'.`,
              `messages[${i}].tool_calls[${j}].function`,
              'missing_required_parameter',
            );
          let input: Record<string, unknown> = {};
          try {
            const parsed: unknown = JSON.parse(c.function.arguments);
            if (isObj(parsed)) input = parsed;
          } catch {
            // the real API stores arguments as an opaque string
          }
          blocks.push({ type: 'tool_use', id: c.id, name: c.function.name, input });
          ids.push(c.id);
        }
        messages.push({ role: 'assistant', blocks });
        if (ids.length > 0) open = { index: i, ids, answered: new Set() };
        break;
      }
      case 'tool': {
        if (!open)
          return fail("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", `messages.[${i}].role`);
        if (typeof m.tool_call_id !== 'string')
          return fail("Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.", `messages.[${i}].tool_call_id`);
        if (!open.ids.includes(m.tool_call_id))
          return fail(
            `Invalid parameter: 'tool_call_id' of '${m.tool_call_id}' not found in 'tool_calls' of previous message.`,
            `messages.[${i}].tool_call_id`,
          );
        open.answered.add(m.tool_call_id);
        messages.push({ role: 'user', blocks: [{ type: 'tool_result', toolUseId: m.tool_call_id, content: contentText(m.content) ?? '', isError: false }] });
        break;
      }
      default:
        return fail(
          `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
          `messages[${i}].role`,
          'invalid_value',
        );
    }
  }
  const err = closeOpen();
  if (err) return err;

  const system = systemParts.join('\n\n');
  const view: RequestView = {
    model: body.model,
    system,
    messages,
    toolNames: tools.map((t) => t.name),
    stream: body.stream === true,
    includeUsage: isObj(body.stream_options) && body.stream_options.include_usage === true,
    promptTokens: countPrompt(system, messages, tools, opts.tokenMultiplier),
  };
  if (typeof body.max_completion_tokens === 'number') {
    view.maxTokens = body.max_completion_tokens;
    view.maxTokensField = 'max_completion_tokens';
  } else if (typeof body.max_tokens === 'number') {
    view.maxTokens = body.max_tokens;
    view.maxTokensField = 'max_tokens';
  }
  if (typeof body.temperature === 'number') view.temperature = body.temperature;
  if (body.prompt_cache_key !== undefined && body.prompt_cache_key !== null && typeof body.prompt_cache_key !== 'string')
    return fail("Invalid type for 'prompt_cache_key': expected a string.", 'prompt_cache_key', 'invalid_type');
  const segments: Segment[] = tools.map((t, i) => ({ key: keyOf({ tool: (body.tools as unknown[])[i] }), tokens: countTool(t) }));
  let k = 0;
  for (const m of body.messages as Record<string, unknown>[]) {
    const isSystem = m.role === 'system' || m.role === 'developer';
    const tokens = isSystem ? countText(contentText(m.content) ?? '') : MESSAGE_OVERHEAD + (messages[k++]?.blocks ?? []).reduce((n, b) => n + countBlock(b), 0);
    segments.push({ key: keyOf(m), tokens });
  }
  return { ok: true, view, tools, segments, ...(typeof body.prompt_cache_key === 'string' ? { promptCacheKey: body.prompt_cache_key } : {}) };
}

export interface ChunkFigures {
  completionId: string;
  created: number;
  model: string;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  finishReason: string;
  toolIds: (string | undefined)[];
  toolJson: string[];
  includeUsage: boolean;
}

export const openaiFrame = (obj: unknown): string => `data: ${typeof obj === 'string' ? obj : JSON.stringify(obj)}\n\n`;

function usageOf(f: ChunkFigures): unknown {
  return {
    prompt_tokens: f.promptTokens,
    completion_tokens: f.completionTokens,
    total_tokens: f.promptTokens + f.completionTokens,
    prompt_tokens_details: { cached_tokens: f.cachedTokens, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

/** The SSE frames of a streamed chat completion, ending with data: [DONE]. */
export function openaiFrames(reply: MessageReply, f: ChunkFigures): string[] {
  const ollama = reply.style === 'ollama' || reply.style === 'ollama_legacy';
  const base = (delta: Record<string, unknown>, finish: string | null = null): Record<string, unknown> => ({
    id: f.completionId,
    object: 'chat.completion.chunk',
    created: f.created,
    model: f.model,
    system_fingerprint: ollama ? 'fp_ollama' : 'fp_fake',
    choices: [{ index: 0, delta: ollama ? { role: 'assistant', ...delta } : delta, logprobs: null, finish_reason: finish }],
    ...(f.includeUsage && !ollama ? { usage: null } : {}),
  });
  const frames: string[] = [];
  if (!ollama) frames.push(openaiFrame(base({ role: 'assistant', content: '', refusal: null })));
  for (const piece of chunk(reply.text ?? '', reply.chunkSize ?? 6)) frames.push(openaiFrame(base({ content: piece })));
  for (const piece of chunk(reply.refusal ?? '', reply.chunkSize ?? 6)) frames.push(openaiFrame(base({ refusal: piece })));
  const calls = reply.toolCalls ?? [];
  const whole = (c: { name: string }, k: number, index: number): Record<string, unknown> => ({
    ...(f.toolIds[k] !== undefined ? { id: f.toolIds[k] } : {}),
    index,
    type: 'function',
    function: { name: c.name, arguments: f.toolJson[k] ?? '' },
  });
  if (reply.style === 'ollama_legacy') {
    for (const [k, c] of calls.entries()) frames.push(openaiFrame(base({ content: '', tool_calls: [whole(c, k, 0)] })));
  } else if (ollama && calls.length > 0) {
    frames.push(openaiFrame(base({ content: '', tool_calls: calls.map((c, k) => whole(c, k, k)) })));
  } else {
    for (const [k, c] of calls.entries()) {
      const first: Record<string, unknown> = { index: k, type: 'function', function: { name: c.name, arguments: '' } };
      if (f.toolIds[k] !== undefined) first.id = f.toolIds[k];
      frames.push(openaiFrame(base({ tool_calls: [first] })));
      for (const piece of chunk(f.toolJson[k] ?? '', reply.jsonChunkSize ?? 7))
        frames.push(openaiFrame(base({ tool_calls: [{ index: k, function: { arguments: piece } }] })));
    }
  }
  frames.push(openaiFrame(base(ollama ? { content: '' } : {}, f.finishReason)));
  if (f.includeUsage && !reply.omitUsage) {
    frames.push(
      openaiFrame({
        id: f.completionId,
        object: 'chat.completion.chunk',
        created: f.created,
        model: f.model,
        system_fingerprint: ollama ? 'fp_ollama' : 'fp_fake',
        choices: [],
        usage: usageOf(f),
      }),
    );
  }
  frames.push(openaiFrame('[DONE]'));
  return frames;
}

/** The non-streaming ChatCompletion body of the same reply. */
export function openaiCompletion(reply: MessageReply, f: ChunkFigures): unknown {
  const calls = reply.toolCalls ?? [];
  return {
    id: f.completionId,
    object: 'chat.completion',
    created: f.created,
    model: f.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text ?? (calls.length > 0 || reply.refusal ? null : ''),
          refusal: reply.refusal ?? null,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((c, k) => ({
                  id: f.toolIds[k] ?? `call_${k}`,
                  type: 'function',
                  function: { name: c.name, arguments: f.toolJson[k] ?? '' },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: f.finishReason,
      },
    ],
    usage: usageOf(f),
  };
}

export const openaiInStreamError = (message: string): string => openaiFrame({ error: { message, type: 'server_error', param: null, code: null } });
