import type OpenAI from 'openai';
import type {
  EasyInputMessage,
  FunctionTool,
  Response,
  ResponseCreateParamsStreaming,
  ResponseInputContent,
  ResponseInputItem,
  ResponseOutputItem,
  ResponseStreamEvent,
  ResponseUsage,
  Tool,
} from 'openai/resources/responses/responses';
import { responsesCitations, responsesSearchBlock, responsesWebSearchTool, withCitedTitles } from './responsesWebSearch.js';
import { finalToolInput, SdkAdapter, withWarningsTo, type AdapterOptions, type RequestContext } from './adapter-common.js';
import { DEFAULT_CACHE } from './cache.js';
import { ProviderError } from './errors.js';
import { withCutNotes } from './cutReplies.js';
import { emptyUsage, type Block, type Message, type ReasoningBlock, type TextBlock, type Usage } from './messages.js';
import { OPENAI_SDK } from './openai.js';
import { allowsStrict, DEFAULT_REASONING_EFFORT, isReasoningModel, type ReasoningEffort } from './openaiApi.js';
import type { CompactRequest, CompactResult, ModelRequest, Provider, StopReason, StreamEvent } from './provider.js';

// The OpenAI Responses API adapter, used statelessly (store: false) as Codex does: the whole
// history goes in `input` each time, reasoning items come back with their encrypted content and
// are replayed in place, so a reasoning model keeps its reasoning across the requests of a tool
// loop. It only translates: which messages a request carries is decided before it gets here.

/** A tool error has no flag in a function_call_output: say it in the output. */
const toolOutput = (content: string, isError: boolean): string => (isError && !/^error\b/i.test(content) ? `Error: ${content}` : content);

function userContent(blocks: readonly Block[]): ResponseInputContent[] {
  const parts: ResponseInputContent[] = [];
  for (const b of blocks) {
    if (b.type === 'text' && b.text.length > 0) parts.push({ type: 'input_text', text: b.text });
    if (b.type === 'image') parts.push({ type: 'input_image', detail: 'auto', image_url: `data:${b.mediaType};base64,${b.data}` });
    // a tool's images follow its function_call_output, in the user message after the outputs
    if (b.type === 'tool_result')
      for (const i of b.images ?? []) parts.push({ type: 'input_image', detail: 'auto', image_url: `data:${i.mediaType};base64,${i.data}` });
  }
  return parts;
}

/** An OpenAI compaction item (the encrypted summary of what it replaced), as received. */
const compactionItem = (b: ReasoningBlock): ResponseInputItem[] =>
  b.encryptedContent !== undefined ? [{ type: 'compaction', id: b.id, encrypted_content: b.encryptedContent }] : [];

function assistantText(b: TextBlock): EasyInputMessage {
  return { type: 'message', role: 'assistant', content: b.text, ...(b.phase ? { phase: b.phase } : {}) };
}

/**
 * Neutral history → Responses input items, in order. A user message's tool results become
 * function_call_output items and its text and images a user message after them. An assistant
 * message's blocks become items in the order they came: text → assistant message (with its
 * phase), tool_use → function_call, reasoning → the reasoning item as received. Reasoning goes
 * only to a reasoning model, only with its encrypted content (store: false keeps nothing on the
 * server), and only when an item of its own reply follows it (the API refuses a reasoning item
 * without its following item). Anthropic thinking never goes to OpenAI.
 */
export function toResponsesInput(messages: readonly Message[], model: string): ResponseInputItem[] {
  const reasoning = isReasoningModel(model);
  const out: ResponseInputItem[] = [];
  for (const m of withCutNotes(messages)) {
    if (m.role === 'user') {
      for (const b of m.blocks) {
        if (b.type === 'tool_result') out.push({ type: 'function_call_output', call_id: b.toolUseId, output: toolOutput(b.content, b.isError) });
      }
      const content = userContent(m.blocks);
      if (content.length > 0) out.push({ type: 'message', role: 'user', content });
      // a checkpoint's compaction item follows its text, as responses.compact returns them
      for (const b of m.blocks) if (b.type === 'reasoning' && b.item === 'compaction') out.push(...compactionItem(b));
      continue;
    }
    let held: ResponseInputItem[] = [];
    const push = (item: ResponseInputItem): void => {
      out.push(...held, item);
      held = [];
    };
    for (const b of m.blocks) {
      if (b.type === 'reasoning' && b.item === 'compaction') {
        out.push(...compactionItem(b));
      } else if (b.type === 'reasoning') {
        if (reasoning && b.encryptedContent !== undefined)
          held.push({
            type: 'reasoning',
            id: b.id,
            summary: b.summary.map((text) => ({ type: 'summary_text' as const, text })),
            encrypted_content: b.encryptedContent,
          });
      } else if (b.type === 'text') {
        if (b.text.length > 0) push(assistantText(b));
      } else if (b.type === 'tool_use') {
        push({ type: 'function_call', call_id: b.id, name: b.name, arguments: JSON.stringify(b.input) });
      } else if (b.type === 'web_search' && b.provider === 'openai') {
        // the web_search_call item as received, as reasoning items are carried back (Anthropic's searches stay with Anthropic)
        for (const item of b.wire) push(item as unknown as ResponseInputItem);
      }
    }
  }
  return out;
}

/** `promptCacheKey`: the session id, sent unless caching hints are off (a server that speaks Responses knows the field). */
export function toResponsesParams(
  req: ModelRequest,
  promptCacheKey?: string,
  effort: ReasoningEffort = DEFAULT_REASONING_EFFORT,
): ResponseCreateParamsStreaming {
  const reasoning = isReasoningModel(req.model);
  const tools: Tool[] = req.tools.map(
    (t): FunctionTool => ({
      type: 'function',
      name: t.name,
      description: t.description,
      parameters: t.inputSchema,
      strict: allowsStrict(t.inputSchema),
    }),
  );
  if (req.webSearch) tools.push(responsesWebSearchTool(req.webSearch));
  const include = [
    ...(reasoning ? ['reasoning.encrypted_content' as const] : []),
    // the URLs a search read, shown and archived with it
    ...(req.webSearch ? ['web_search_call.action.sources' as const] : []),
  ];
  return {
    model: req.model,
    stream: true,
    store: false,
    ...(req.system.length > 0 ? { instructions: req.system } : {}),
    input: toResponsesInput(req.messages, req.model),
    max_output_tokens: req.maxTokens,
    ...(tools.length > 0 ? { tools, tool_choice: 'auto' as const, parallel_tool_calls: true } : {}),
    ...(reasoning ? { reasoning: { effort, summary: 'auto' as const } } : {}),
    ...(include.length > 0 ? { include } : {}),
    // reasoning models refuse temperature
    ...(req.temperature !== undefined && !reasoning ? { temperature: req.temperature } : {}),
    ...(promptCacheKey !== undefined ? { prompt_cache_key: promptCacheKey } : {}),
  };
}

/** Responses usage → neutral: input_tokens counts cached reads and cache writes; they are split out as for Anthropic. */
export function usageOf(u: ResponseUsage | null | undefined): Usage {
  if (!u) return emptyUsage();
  const cached = u.input_tokens_details?.cached_tokens ?? 0;
  const written = u.input_tokens_details?.cache_write_tokens ?? 0;
  const reasoning = u.output_tokens_details?.reasoning_tokens ?? 0;
  return {
    inputTokens: Math.max(0, u.input_tokens - cached - written),
    outputTokens: u.output_tokens,
    cacheReadTokens: cached,
    cacheWriteTokens: written,
    ...(reasoning > 0 ? { thinkingTokens: reasoning } : {}),
  };
}

/** A finished response's output items → neutral blocks, in order. */
export function blocksOf(output: readonly ResponseOutputItem[], maybeTruncated: boolean): Block[] {
  const blocks: Block[] = [];
  for (const item of output) {
    if (item.type === 'reasoning') {
      blocks.push({
        type: 'reasoning',
        id: item.id,
        summary: item.summary.map((s) => s.text),
        ...(typeof item.encrypted_content === 'string' ? { encryptedContent: item.encrypted_content } : {}),
      });
    } else if (item.type === 'message') {
      const text = item.content.map((c) => (c.type === 'output_text' ? c.text : c.refusal)).join('');
      const citations = item.content.flatMap((c) => (c.type === 'output_text' ? responsesCitations(c.annotations) : []));
      if (text.length > 0) blocks.push({ type: 'text', text, ...(item.phase ? { phase: item.phase } : {}), ...(citations.length > 0 ? { citations } : {}) });
    } else if (item.type === 'web_search_call') {
      blocks.push(responsesSearchBlock(item));
    } else if (item.type === 'function_call') {
      const input = finalToolInput(item.arguments, maybeTruncated || item.status === 'incomplete');
      if (input) blocks.push({ type: 'tool_use', id: item.call_id, name: item.name, input });
    }
  }
  return withCitedTitles(blocks);
}

/** A stream `error` event or a failed response, as the ProviderError the loop acts on (an overflow compacts). */
function streamFailure(code: string | null | undefined, message: string): ProviderError {
  if (code === 'context_length_exceeded') return new ProviderError({ kind: 'context_overflow', provider: 'openai', message, overflow: {} });
  if (code === 'rate_limit_exceeded') return new ProviderError({ kind: 'rate_limit', provider: 'openai', message });
  if (code === 'insufficient_quota') return new ProviderError({ kind: 'quota', provider: 'openai', message });
  if (code === 'server_error' || code === null || code === undefined) return new ProviderError({ kind: 'server', provider: 'openai', message });
  return new ProviderError({ kind: 'bad_request', provider: 'openai', message: `${message} (${code})` });
}

function stopOf(r: Response, blocks: readonly Block[]): StopReason {
  if (r.status === 'incomplete') return r.incomplete_details?.reason === 'content_filter' ? 'refusal' : 'max_tokens';
  if (blocks.some((b) => b.type === 'tool_use')) return 'tool_use';
  return 'end_turn';
}

export class ResponsesProvider extends SdkAdapter<OpenAI> implements Provider {
  readonly name = 'openai' as const;

  constructor(opts: AdapterOptions) {
    super(opts, OPENAI_SDK);
  }

  /** The exact input tokens of a request (responses.inputTokens.count): no reply, nothing billed. */
  async countInputTokens(req: Omit<ModelRequest, 'maxTokens'>): Promise<number> {
    const p = toResponsesParams({ ...req, maxTokens: 0 }, undefined, this.opts.reasoningEffort);
    const r = await this.once({ ...req, maxTokens: 0 }, ({ client, signal }) =>
      client.responses.inputTokens.count(
        {
          model: p.model,
          input: p.input,
          ...(p.instructions ? { instructions: p.instructions } : {}),
          ...(p.tools ? { tools: p.tools, parallel_tool_calls: true } : {}),
          ...(p.reasoning ? { reasoning: p.reasoning } : {}),
        },
        { signal },
      ),
    );
    return r.input_tokens;
  }

  /** OpenAI's own compaction (responses.compact): the history in, one encrypted compaction item out. */
  async compact(req: CompactRequest): Promise<CompactResult> {
    const cache = this.opts.cache ?? DEFAULT_CACHE;
    const frame: ModelRequest = {
      model: req.model,
      system: req.system,
      messages: req.messages,
      tools: [],
      maxTokens: 0,
      ...(req.signal ? { signal: req.signal } : {}),
    };
    const r = await this.once(frame, ({ client, signal }) =>
      withWarningsTo(this.warn, () =>
        client.responses.compact(
          {
            model: req.model,
            input: toResponsesInput(req.messages, req.model),
            ...(req.system.length > 0 ? { instructions: req.system } : {}),
            ...(req.cacheKey !== undefined && cache.enabled && cache.promptCacheKey !== false ? { prompt_cache_key: req.cacheKey } : {}),
          },
          { signal },
        ),
      ),
    );
    const item = r.output.find((o) => o.type === 'compaction');
    if (!item) throw new ProviderError({ kind: 'server', provider: 'openai', message: 'the compaction response held no compaction item' });
    return { block: { type: 'reasoning', id: item.id, summary: [], encryptedContent: item.encrypted_content, item: 'compaction' }, usage: usageOf(r.usage) };
  }

  protected async *events(req: ModelRequest, { client, signal, begin, checkStopped }: RequestContext<OpenAI>): AsyncGenerator<StreamEvent> {
    const cache = this.opts.cache ?? DEFAULT_CACHE;
    const cacheKey = req.cacheKey !== undefined && cache.enabled && cache.promptCacheKey !== false ? req.cacheKey : undefined;
    const params = toResponsesParams(req, cacheKey, this.opts.reasoningEffort);
    const stream = await withWarningsTo(this.warn, () => client.responses.create(params, { signal }));
    begin();

    /** Function calls by item id → call id, for the argument deltas. */
    const calls = new Map<string, string>();
    let final: Response | undefined;
    let refused = false;
    for await (const ev of stream as AsyncIterable<ResponseStreamEvent>) {
      switch (ev.type) {
        case 'response.output_item.added':
          if (ev.item.type === 'function_call') {
            calls.set(ev.item.id ?? ev.item.call_id, ev.item.call_id);
            yield { type: 'tool_use_start', id: ev.item.call_id, name: ev.item.name };
          }
          break;
        case 'response.output_text.delta':
          yield { type: 'text_delta', text: ev.delta };
          break;
        case 'response.refusal.delta':
          refused = true;
          yield { type: 'text_delta', text: ev.delta };
          break;
        case 'response.function_call_arguments.delta': {
          const id = calls.get(ev.item_id);
          if (id !== undefined) yield { type: 'tool_input_delta', id, partialJson: ev.delta };
          break;
        }
        case 'response.reasoning_summary_part.added':
          // summary parts are paragraphs of one summary
          if (ev.summary_index > 0) yield { type: 'thinking_delta', text: '\n\n' };
          break;
        case 'response.reasoning_summary_text.delta':
          yield { type: 'thinking_delta', text: ev.delta };
          break;
        case 'response.completed':
        case 'response.incomplete':
          final = ev.response;
          break;
        case 'response.failed':
          throw streamFailure(ev.response.error?.code, ev.response.error?.message ?? 'the response failed');
        case 'error':
          throw streamFailure(ev.code, ev.message);
        default:
          break;
      }
    }
    checkStopped();
    if (!final) throw new ProviderError({ kind: 'stream_cut', provider: 'openai', message: 'the response stream ended before the response was complete' });

    const blocks = blocksOf(final.output, final.status === 'incomplete');
    const stopReason = refused ? 'refusal' : stopOf(final, blocks);
    yield { type: 'done', blocks, stopReason, usage: usageOf(final.usage), model: final.model || req.model };
  }
}
