import type { Block } from '../../src/llm/messages.js';
import { isReasoningModel } from '../../src/llm/openaiApi.js';
import { keyOf, type Segment } from './cache.js';
import { countBlock, countPrompt, countText, countTool, MESSAGE_OVERHEAD, type CountableTool } from './tokens.js';
import type { RequestView } from './types.js';
import { OPENAI_IMAGE_ERROR, openaiImageProblem } from './images.js';
import { responsesSearchItem, responsesServerToolError } from './websearch.js';

// OpenAI's Responses API (POST /v1/responses) as the fake server understands a request: the
// checks the real service makes on a stateless (store: false) input, with its 400 texts, and
// the neutral view tests read. The reply side is in responses-frames.ts.

export interface ResponsesRequest {
  view: RequestView;
  tools: CountableTool[];
  segments: Segment[];
  promptCacheKey?: string;
  /** include held 'reasoning.encrypted_content': reasoning items come back with it. */
  includeEncrypted: boolean;
  /** include held 'web_search_call.action.sources': a search's item lists the URLs it read. */
  includeSources: boolean;
  /** reasoning.summary was asked for: reasoning items carry a summary. */
  wantsSummary: boolean;
  /** reasoning.effort as sent; 'none': the model does not reason (no reasoning item). */
  effort?: string;
  reasoningModel: boolean;
  /** The reasoning items the request replayed (id and encrypted content), in order. */
  replayedReasoning: { id: string; encrypted: string }[];
}

export type ResponsesParsed = ({ ok: true } & ResponsesRequest) | { ok: false; message: string; param: string | null; code: string | null };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The encrypted content the fake issues for a reasoning item: only it can read it back. */
export const sealReasoning = (id: string, model: string): string => Buffer.from(JSON.stringify({ fake: 'reasoning', id, model })).toString('base64');

/** The encrypted content of a compaction item: it stands for `tokens` tokens of context. */
export const sealCompaction = (id: string, tokens: number): string => Buffer.from(JSON.stringify({ fake: 'compaction', id, tokens })).toString('base64');

function openedCompaction(encrypted: string, id: string): number | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(encrypted, 'base64').toString('utf8'));
    return isObj(v) && v.fake === 'compaction' && v.id === id && typeof v.tokens === 'number' ? v.tokens : undefined;
  } catch {
    return undefined;
  }
}

function opened(encrypted: string, id: string): boolean {
  try {
    const v: unknown = JSON.parse(Buffer.from(encrypted, 'base64').toString('utf8'));
    return isObj(v) && v.fake === 'reasoning' && v.id === id;
  } catch {
    return false;
  }
}

function contentBlocks(content: unknown, role: string): Block[] | string {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return 'content';
  const blocks: Block[] = [];
  for (const p of content) {
    if (!isObj(p)) return 'content';
    if ((p.type === 'input_text' || p.type === 'output_text') && typeof p.text === 'string') {
      if (p.type === 'output_text' && role !== 'assistant') return `content: 'output_text' is only allowed in assistant messages`;
      blocks.push({ type: 'text', text: p.text });
    } else if (p.type === 'refusal' && typeof p.refusal === 'string') blocks.push({ type: 'text', text: p.refusal });
    else if (p.type === 'input_image' && typeof p.image_url === 'string') {
      if (openaiImageProblem(p.image_url)) return OPENAI_IMAGE_ERROR;
      const d = /^data:([^;]+);base64,(.*)$/s.exec(p.image_url);
      blocks.push({ type: 'image', mediaType: d?.[1] ?? 'url', data: d?.[2] ?? p.image_url });
    } else
      return `Invalid value: '${String(p.type)}'. Supported values are: 'input_text', 'input_image', 'output_text', 'refusal', 'input_file', 'computer_screenshot', and 'summary_text'.`;
  }
  return blocks;
}

export function parseResponsesRequest(body: unknown, tokenMultiplier: number): ResponsesParsed {
  const fail = (message: string, param: string | null = null, code: string | null = null): ResponsesParsed => ({ ok: false, message, param, code });
  if (!isObj(body)) return fail('We could not parse the JSON body of your request.');
  if (typeof body.model !== 'string' || body.model.length === 0) return fail("Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
  const model = body.model;
  const reasoningModel = isReasoningModel(model);
  const include = Array.isArray(body.include) ? body.include : [];
  const includeEncrypted = include.includes('reasoning.encrypted_content');
  if (includeEncrypted && !reasoningModel) return fail('Encrypted content is not supported with this model.', 'include', 'unsupported_parameter');
  if (body.temperature !== undefined && reasoningModel)
    return fail("Unsupported parameter: 'temperature' is not supported with this model.", 'temperature', 'unsupported_parameter');
  if (body.reasoning !== undefined && !reasoningModel && isObj(body.reasoning) && body.reasoning.effort !== undefined)
    return fail("Unsupported parameter: 'reasoning.effort' is not supported with this model.", 'reasoning.effort', 'unsupported_parameter');
  if (body.max_output_tokens !== undefined && (typeof body.max_output_tokens !== 'number' || body.max_output_tokens < 16))
    return fail(
      `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got ${String(body.max_output_tokens)} instead.`,
      'max_output_tokens',
      'integer_below_min_value',
    );
  const store = body.store !== false;

  const tools: CountableTool[] = [];
  let webSearchTool: Record<string, unknown> | undefined;
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return fail("Invalid type for 'tools': expected an array.", 'tools', 'invalid_type');
    for (const [i, t] of body.tools.entries()) {
      if (isObj(t) && t.type !== 'function') {
        const error = responsesServerToolError(t, i);
        if (error) return fail(error, `tools[${i}]`, 'invalid_value');
        webSearchTool = t;
        tools.push({ name: 'web_search', schema: t });
        continue;
      }
      if (!isObj(t) || t.type !== 'function') return fail(`Invalid value for 'tools[${i}].type'.`, `tools[${i}].type`, 'invalid_value');
      if (typeof t.name !== 'string') return fail(`Missing required parameter: 'tools[${i}].name'.`, `tools[${i}].name`, 'missing_required_parameter');
      const schema = t.parameters ?? {};
      if (isObj(schema) && schema.type !== undefined && schema.type !== 'object')
        return fail(
          `Invalid schema for function '${t.name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${String(schema.type)}"'.`,
          `tools[${i}].parameters`,
          'invalid_function_parameters',
        );
      if (t.strict === true && isObj(schema) && schema.additionalProperties !== false)
        return fail(
          `Invalid schema for function '${t.name}': In context=(), 'additionalProperties' is required to be supplied and to be false.`,
          `tools[${i}].parameters`,
          'invalid_function_parameters',
        );
      tools.push({ name: t.name, description: typeof t.description === 'string' ? t.description : '', schema });
    }
  }

  const items: Record<string, unknown>[] = typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : [];
  if (typeof body.input !== 'string') {
    if (!Array.isArray(body.input)) return fail("Invalid type for 'input': expected one of a string or array of input items.", 'input', 'invalid_type');
    for (const [i, it] of body.input.entries()) {
      if (!isObj(it)) return fail(`Invalid type for 'input[${i}]': expected an object.`, `input[${i}]`, 'invalid_type');
      items.push(it);
    }
  }

  const systemParts: string[] = typeof body.instructions === 'string' && body.instructions.length > 0 ? [body.instructions] : [];
  const messages: RequestView['messages'] = [];
  const itemBlocks: Block[][] = [];
  const replayedReasoning: ResponsesRequest['replayedReasoning'] = [];
  const calls = new Set<string>();
  const answered = new Set<string>();
  let compactionTokens = 0;
  const add = (role: 'user' | 'assistant', blocks: Block[]): void => {
    itemBlocks.push(blocks);
    const last = messages.at(-1);
    if (last && last.role === role) last.blocks.push(...blocks);
    else messages.push({ role, blocks: [...blocks] });
  };
  for (const [i, it] of items.entries()) {
    const type = it.type ?? (it.role !== undefined ? 'message' : undefined);
    switch (type) {
      case 'message': {
        const role = it.role;
        if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'developer')
          return fail(
            `Invalid value: '${String(role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`,
            `input[${i}].role`,
            'invalid_value',
          );
        const blocks = contentBlocks(it.content, role);
        if (blocks === OPENAI_IMAGE_ERROR) return fail(blocks, `input[${i}].content`, 'invalid_image_format');
        if (typeof blocks === 'string')
          return fail(blocks.startsWith('Invalid') ? blocks : `Invalid '${`input[${i}].${blocks}`}'.`, `input[${i}].content`, 'invalid_value');
        if (it.phase !== undefined && it.phase !== null && (role !== 'assistant' || (it.phase !== 'commentary' && it.phase !== 'final_answer')))
          return fail(`Invalid value for 'input[${i}].phase'.`, `input[${i}].phase`, 'invalid_value');
        if (role === 'system' || role === 'developer') {
          systemParts.push(blocks.map((b) => (b.type === 'text' ? b.text : '')).join(''));
          itemBlocks.push(blocks);
        } else add(role, blocks);
        break;
      }
      case 'function_call': {
        if (typeof it.call_id !== 'string' || typeof it.name !== 'string' || typeof it.arguments !== 'string')
          return fail(`Missing required parameter: 'input[${i}].call_id'.`, `input[${i}]`, 'missing_required_parameter');
        let input: Record<string, unknown> = {};
        try {
          const v: unknown = JSON.parse(it.arguments);
          if (isObj(v)) input = v;
        } catch {
          // the real API keeps arguments as an opaque string
        }
        calls.add(it.call_id);
        add('assistant', [{ type: 'tool_use', id: it.call_id, name: it.name, input }]);
        break;
      }
      case 'function_call_output': {
        if (typeof it.call_id !== 'string')
          return fail(`Missing required parameter: 'input[${i}].call_id'.`, `input[${i}].call_id`, 'missing_required_parameter');
        if (!calls.has(it.call_id)) return fail(`No tool call found for function call output with call_id ${it.call_id}.`, 'input', null);
        answered.add(it.call_id);
        const output = typeof it.output === 'string' ? it.output : JSON.stringify(it.output ?? '');
        add('user', [{ type: 'tool_result', toolUseId: it.call_id, content: output, isError: false }]);
        break;
      }
      case 'reasoning': {
        const id = typeof it.id === 'string' ? it.id : '';
        const enc = typeof it.encrypted_content === 'string' ? it.encrypted_content : undefined;
        if (enc === undefined && !store)
          return fail(
            `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
            'input',
            null,
          );
        if (enc !== undefined && !opened(enc, id))
          return fail(`The encrypted content for item ${id} could not be verified.`, 'input', 'invalid_encrypted_content');
        const next = items[i + 1];
        const follows =
          next !== undefined &&
          (next.type === 'function_call' ||
            next.type === 'web_search_call' ||
            (next.type === 'message' && next.role === 'assistant') ||
            next.type === 'reasoning');
        if (!follows) return fail(`Item '${id}' of type 'reasoning' was provided without its required following item.`, 'input', null);
        if (!reasoningModel) return fail(`Reasoning input items are not supported for model ${model}.`, 'input', null);
        replayedReasoning.push({ id, encrypted: enc ?? '' });
        const summary = Array.isArray(it.summary) ? it.summary.flatMap((s) => (isObj(s) && typeof s.text === 'string' ? [s.text] : [])) : [];
        add('assistant', [{ type: 'reasoning', id, summary, ...(enc !== undefined ? { encryptedContent: enc } : {}) }]);
        break;
      }
      case 'web_search_call': {
        const block = responsesSearchItem(it, i);
        if (typeof block === 'string') return fail(block, 'input', null);
        add('assistant', [block]);
        break;
      }
      case 'compaction': {
        const id = typeof it.id === 'string' ? it.id : '';
        const tokens = typeof it.encrypted_content === 'string' ? openedCompaction(it.encrypted_content, id) : undefined;
        if (tokens === undefined) return fail(`The encrypted content for item ${id} could not be verified.`, 'input', 'invalid_encrypted_content');
        compactionTokens += tokens;
        add('user', [{ type: 'reasoning', id, summary: [], encryptedContent: it.encrypted_content as string, item: 'compaction' }]);
        break;
      }
      default:
        return fail(
          `Invalid value: '${String(type)}'. Supported values are: 'message', 'function_call', 'function_call_output', 'reasoning', 'compaction', and others.`,
          `input[${i}].type`,
          'invalid_value',
        );
    }
  }
  const unanswered = [...calls].find((c) => !answered.has(c));
  if (unanswered !== undefined) return fail(`No tool output found for function call ${unanswered}.`, 'input', null);

  const system = systemParts.join('\n\n');
  const view: RequestView = {
    model,
    system,
    messages,
    toolNames: tools.filter((t) => t.schema !== webSearchTool).map((t) => t.name),
    ...(webSearchTool ? { webSearchTool } : {}),
    stream: body.stream === true,
    includeUsage: true,
    promptTokens: countPrompt(system, messages, tools, tokenMultiplier) + compactionTokens,
  };
  if (typeof body.max_output_tokens === 'number') view.maxTokens = body.max_output_tokens;
  if (typeof body.temperature === 'number') view.temperature = body.temperature;
  if (body.prompt_cache_key !== undefined && body.prompt_cache_key !== null && typeof body.prompt_cache_key !== 'string')
    return fail("Invalid type for 'prompt_cache_key': expected a string.", 'prompt_cache_key', 'invalid_type');
  // cache order: tools, instructions, then each input item
  const segments: Segment[] = tools.map((t, i) => ({ key: keyOf({ tool: (body.tools as unknown[])[i] }), tokens: countTool(t) }));
  segments.push({ key: keyOf({ instructions: body.instructions ?? '' }), tokens: countText(typeof body.instructions === 'string' ? body.instructions : '') });
  for (const [i, it] of items.entries()) {
    const sealed = it.type === 'compaction' && typeof it.encrypted_content === 'string' ? (openedCompaction(it.encrypted_content, String(it.id)) ?? 0) : 0;
    segments.push({ key: keyOf(it), tokens: MESSAGE_OVERHEAD + sealed + (itemBlocks[i] ?? []).reduce((n, b) => n + countBlock(b), 0) });
  }
  const reasoning = isObj(body.reasoning) ? body.reasoning : undefined;
  return {
    ok: true,
    view,
    tools,
    segments,
    includeEncrypted,
    includeSources: include.includes('web_search_call.action.sources'),
    wantsSummary: reasoning !== undefined && reasoning.summary !== undefined && reasoning.summary !== null,
    ...(reasoning !== undefined && typeof reasoning.effort === 'string' ? { effort: reasoning.effort } : {}),
    reasoningModel,
    replayedReasoning,
    ...(typeof body.prompt_cache_key === 'string' ? { promptCacheKey: body.prompt_cache_key } : {}),
  };
}
