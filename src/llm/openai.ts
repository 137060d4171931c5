import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions/completions';
import { finalToolInput, SdkAdapter, withWarningsTo, type AdapterOptions, type RequestContext, type SdkFrame } from './adapter-common.js';
import { DEFAULT_CACHE, sendsPromptCacheKey } from './cache.js';
import { DEFAULT_REASONING_EFFORT, isReasoningModel, type ReasoningEffort } from './openaiApi.js';
import { ProviderError } from './errors.js';
import { withCutNotes } from './cutReplies.js';
import { emptyUsage, type Block, type Message, type Usage } from './messages.js';
import type { ModelRequest, Provider, StopReason, StreamEvent } from './provider.js';
import { describeSdkError, type SdkFailure } from './sdk-errors.js';

// The OpenAI Chat Completions adapter (also for Ollama, llama.cpp, vLLM and LM Studio
// through their OpenAI-compatible endpoints).

type UserPart = ChatCompletionContentPart;

function userParts(blocks: readonly Block[]): UserPart[] {
  const parts: UserPart[] = [];
  for (const b of blocks) {
    if (b.type === 'text' && b.text.length > 0) parts.push({ type: 'text', text: b.text });
    if (b.type === 'image') parts.push({ type: 'image_url', image_url: { url: `data:${b.mediaType};base64,${b.data}` } });
  }
  return parts;
}

/** A tool error has no flag in Chat Completions: say it in the content. */
const toolContent = (content: string, isError: boolean): string => (isError && !/^error\b/i.test(content) ? `Error: ${content}` : content);

/**
 * Neutral history → Chat Completions messages: the system prompt first; assistant tool_use
 * blocks become tool_calls; a user message's tool results become `tool` messages placed
 * right after the assistant message, and its other blocks a user message after them;
 * consecutive user messages merge into one.
 */
export function toOpenAIMessages(system: string, messages: readonly Message[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (system.length > 0) out.push({ role: 'system', content: system });
  let pendingUser: UserPart[] = [];
  const flushUser = (): void => {
    if (pendingUser.length === 0) return;
    const onlyText = pendingUser.every((p) => p.type === 'text');
    out.push({
      role: 'user',
      content: onlyText ? pendingUser.map((p) => (p.type === 'text' ? p.text : '')).join('\n\n') : pendingUser,
    });
    pendingUser = [];
  };
  for (const m of withCutNotes(messages)) {
    if (m.role === 'assistant') {
      flushUser();
      const text = m.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
      const calls: ChatCompletionMessageFunctionToolCall[] = m.blocks.flatMap((b) =>
        b.type === 'tool_use' ? [{ id: b.id, type: 'function' as const, function: { name: b.name, arguments: JSON.stringify(b.input) } }] : [],
      );
      out.push({
        role: 'assistant',
        content: text.length > 0 ? text : calls.length > 0 ? null : '(no content)',
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      });
      continue;
    }
    for (const b of m.blocks) {
      if (b.type === 'tool_result') out.push({ role: 'tool', tool_call_id: b.toolUseId, content: toolContent(b.content, b.isError) });
      // a tool message holds text only: a tool's images follow in the user message after the tool messages
      if (b.type === 'tool_result' && b.images) pendingUser.push(...userParts(b.images));
    }
    pendingUser.push(...userParts(m.blocks));
  }
  flushUser();
  return out;
}

/**
 * OpenAI refuses max_tokens for its reasoning models (o-series, gpt-5) wherever the request comes
 * from, a proxy or gateway in front of it included: they get max_completion_tokens, as does
 * api.openai.com for every model. Other OpenAI-compatible servers understand max_tokens.
 */
export function tokenFieldFor(baseURL: string, model: string): 'max_tokens' | 'max_completion_tokens' {
  if (isReasoningModel(model)) return 'max_completion_tokens';
  try {
    return new URL(baseURL).hostname === 'api.openai.com' ? 'max_completion_tokens' : 'max_tokens';
  } catch {
    return 'max_tokens';
  }
}

/**
 * `promptCacheKey`: the prompt_cache_key to send (the session id), only where the server is
 * OpenAI's: OpenAI-compatible servers may refuse a field they do not know. A reasoning model gets
 * its reasoning_effort (newer gpt-5 models reason not at all by default) and no temperature.
 */
export function toOpenAIParams(
  req: ModelRequest,
  tokenField: 'max_tokens' | 'max_completion_tokens',
  promptCacheKey?: string,
  effort: ReasoningEffort = DEFAULT_REASONING_EFFORT,
): ChatCompletionCreateParamsStreaming {
  const tools: ChatCompletionTool[] = req.tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.inputSchema },
  }));
  const reasoning = isReasoningModel(req.model);
  return {
    model: req.model,
    messages: toOpenAIMessages(req.system, req.messages),
    stream: true,
    stream_options: { include_usage: true },
    ...(tokenField === 'max_completion_tokens' ? { max_completion_tokens: req.maxTokens } : { max_tokens: req.maxTokens }),
    ...(reasoning ? { reasoning_effort: effort } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(req.temperature !== undefined && !reasoning ? { temperature: req.temperature } : {}),
    ...(promptCacheKey !== undefined ? { prompt_cache_key: promptCacheKey } : {}),
  };
}

export function mapFinishReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case 'stop':
      return 'end_turn';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'refusal';
    default:
      return 'other';
  }
}

export function describeOpenAIError(err: unknown): SdkFailure {
  return describeSdkError(err, { APIUserAbortError, APIConnectionTimeoutError, APIConnectionError, APIError });
}

interface CallState {
  id: string;
  name: string;
  args: string;
  announced: boolean;
}

function isJsonObject(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

const generatedId = (): string => `call_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;

/** The OpenAI SDK as both its adapters (Chat Completions here, Responses in responses.ts) plug it in. */
export const OPENAI_SDK: SdkFrame<OpenAI> = {
  provider: 'openai',
  keyEnv: 'OPENAI_API_KEY',
  client: (options) => new OpenAI(options),
  describe: describeOpenAIError,
  aborted: () => new APIUserAbortError(),
};

export class OpenAIProvider extends SdkAdapter<OpenAI> implements Provider {
  readonly name = 'openai' as const;

  constructor(opts: AdapterOptions) {
    super(opts, OPENAI_SDK);
  }

  protected async *events(req: ModelRequest, { client, signal, begin, checkStopped }: RequestContext<OpenAI>): AsyncGenerator<StreamEvent> {
    const cacheKey = req.cacheKey !== undefined && sendsPromptCacheKey(this.opts.cache ?? DEFAULT_CACHE, client.baseURL) ? req.cacheKey : undefined;
    const params = toOpenAIParams(req, this.opts.tokenField ?? tokenFieldFor(client.baseURL, req.model), cacheKey, this.opts.reasoningEffort);
    const stream = await withWarningsTo(this.warn, () => client.chat.completions.create(params, { signal }));
    begin();

    let text = '';
    let model = req.model;
    let finish: string | null = null;
    let usage: Usage | undefined;
    let refused = false;
    // slot per call; `byIndex` maps the wire index to the current slot of that index
    const calls: CallState[] = [];
    const byIndex = new Map<number, CallState>();

    for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
      if (chunk.model) model = chunk.model;
      if (chunk.usage) {
        const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
        usage = {
          inputTokens: Math.max(0, (chunk.usage.prompt_tokens ?? 0) - cached),
          outputTokens: chunk.usage.completion_tokens ?? 0,
          cacheReadTokens: cached,
          cacheWriteTokens: 0,
        };
      }
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string' && delta.content.length > 0) {
        text += delta.content;
        yield { type: 'text_delta', text: delta.content };
      }
      // a refusal comes as its own text; it is what the model said, so it stays visible
      if (typeof delta.refusal === 'string' && delta.refusal.length > 0) {
        refused = true;
        text += delta.refusal;
        yield { type: 'text_delta', text: delta.refusal };
      }
      for (const tc of delta.tool_calls ?? []) {
        const index = tc.index ?? 0;
        let st = byIndex.get(index);
        // Ollama sends each call whole, possibly under the same index: a new id, or a new
        // name after complete arguments, means a new call
        const newId = typeof tc.id === 'string' && tc.id !== '' && st !== undefined && st.name !== '' && tc.id !== st.id;
        const newName = !!tc.function?.name && st !== undefined && st.name !== '' && isJsonObject(st.args);
        if (!st || newId || newName) {
          st = { id: tc.id || generatedId(), name: '', args: '', announced: false };
          calls.push(st);
          byIndex.set(index, st);
        }
        if (tc.function?.name && st.name === '') st.name = tc.function.name;
        if (!st.announced && st.name !== '') {
          st.announced = true;
          yield { type: 'tool_use_start', id: st.id, name: st.name };
          if (st.args.length > 0) yield { type: 'tool_input_delta', id: st.id, partialJson: st.args };
        }
        const piece = tc.function?.arguments ?? '';
        if (piece.length > 0) {
          st.args += piece;
          if (st.announced) yield { type: 'tool_input_delta', id: st.id, partialJson: piece };
        }
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
    checkStopped();
    if (finish === null) {
      throw new ProviderError({
        kind: 'stream_cut',
        provider: 'openai',
        message: text.length > 0 || calls.length > 0 ? 'the response stream ended before the reply was complete' : 'the response stream ended without a reply',
      });
    }

    let stopReason = refused ? 'refusal' : mapFinishReason(finish);
    const blocks: Block[] = [];
    if (text.length > 0) blocks.push({ type: 'text', text });
    for (const c of calls) {
      if (c.name === '') continue;
      const input = finalToolInput(c.args, stopReason === 'max_tokens');
      if (input) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input });
    }
    // some servers finish with "stop" although they sent tool calls
    if (stopReason === 'end_turn' && blocks.some((b) => b.type === 'tool_use')) stopReason = 'tool_use';
    yield { type: 'done', blocks, stopReason, usage: usage ?? emptyUsage(), model };
  }
}
