import { BaseAnthropic } from '@anthropic-ai/sdk/client';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk/error';
import { Messages } from '@anthropic-ai/sdk/resources/messages/messages';
import { Models, type ModelInfo } from '@anthropic-ai/sdk/resources/models';
import type {
  CacheControlEphemeral,
  ContentBlockParam,
  MessageCreateParamsStreaming,
  RawMessageStreamEvent,
  StopReason as AnthropicStopReason,
  TextBlockParam,
  ThinkingConfigParam,
  Tool,
  ToolUnion,
  Usage as AnthropicUsage,
  MessageDeltaUsage,
  WebSearchToolResultBlock,
} from '@anthropic-ai/sdk/resources/messages/messages';
import { ProviderError } from './errors.js';
import { emptyUsage, type Block, type Citation, type Message, type Usage } from './messages.js';
import { DEFAULT_CACHE, messageBreakpoints, type CacheSettings } from './cache.js';
import type { Effort, ModelDescription, ModelRequest, Provider, StopReason, StreamEvent, ThinkingRequest } from './provider.js';
import { replayableHistory } from './thinkingReplay.js';
import { withCutNotes } from './cutReplies.js';
import { finalToolInput, SdkAdapter, withWarningsTo, type AdapterOptions, type RequestContext } from './adapter-common.js';
import { describeSdkError, type SdkFailure } from './sdk-errors.js';
import { anthropicSearchBlocks, anthropicText, anthropicWebSearchTool, citationOf, pairedSearches, searchOf } from './anthropicWebSearch.js';

// The Anthropic Messages API adapter: neutral messages → Messages params, the SDK's raw
// stream → StreamEvents, SDK errors → ProviderError.

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
type ImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

function toBlockParam(b: Block): ContentBlockParam[] {
  switch (b.type) {
    case 'text':
      // the API refuses empty and whitespace-only text blocks
      return b.text.trim().length > 0 ? [anthropicText(b)] : [];
    case 'tool_use':
      return [{ type: 'tool_use', id: b.id, name: b.name, input: b.input }];
    case 'tool_result': {
      // a tool's images go inside its result, after its text
      const images = (b.images ?? []).filter((i) => IMAGE_TYPES.has(i.mediaType));
      const content =
        images.length > 0
          ? [
              ...(b.content.trim().length > 0 ? [{ type: 'text' as const, text: b.content }] : []),
              ...images.map((i) => ({ type: 'image' as const, source: { type: 'base64' as const, media_type: i.mediaType as ImageMediaType, data: i.data } })),
            ]
          : b.content;
      return [{ type: 'tool_result', tool_use_id: b.toolUseId, ...(content.length > 0 ? { content } : {}), ...(b.isError ? { is_error: true } : {}) }];
    }
    case 'image':
      return IMAGE_TYPES.has(b.mediaType)
        ? [{ type: 'image', source: { type: 'base64', media_type: b.mediaType as ImageMediaType, data: b.data } }]
        : [{ type: 'text', text: `[image omitted: ${b.mediaType} is not a supported image type]` }];
    case 'thinking':
      return [{ type: 'thinking', thinking: b.thinking, signature: b.signature }];
    case 'redacted_thinking':
      return [{ type: 'redacted_thinking', data: b.data }];
    case 'reasoning':
      // OpenAI's reasoning: Anthropic cannot read it
      return [];
    case 'web_search':
      // sent back verbatim; OpenAI's searches are not Anthropic's to read
      return anthropicSearchBlocks(b);
  }
}

/**
 * Neutral history → Messages API messages. Consecutive same-role messages merge into one
 * (a checkpoint, a pinned message and a user turn arrive as three user messages; a paused
 * turn's reply and its continuation as two assistant ones); in a user message tool_result blocks
 * go first, as the API requires; checkpoint and meta messages are plain user text already. A
 * message left empty gets a short placeholder, since the API refuses empty content.
 */
type WireMessage = { role: 'user' | 'assistant'; content: ContentBlockParam[] };

export function toAnthropicMessages(messages: readonly Message[]): WireMessage[] {
  const merged: WireMessage[] = [];
  for (const m of withCutNotes(messages)) {
    const content = m.blocks.flatMap(toBlockParam);
    const last = merged[merged.length - 1];
    if (last && last.role === m.role) last.content.push(...content);
    else merged.push({ role: m.role, content });
  }
  return merged.map((m, i) => {
    // a paused turn's reply ends the history as-is, its search call still open (anthropicWebSearch.ts)
    let content = m.role === 'assistant' ? pairedSearches(m.content, i === merged.length - 1) : m.content;
    if (m.role === 'user') {
      const results = content.filter((b) => b.type === 'tool_result');
      if (results.length > 0) content = [...results, ...content.filter((b) => b.type !== 'tool_result')];
    }
    if (content.length === 0) content = [{ type: 'text', text: m.role === 'user' ? '(empty message)' : '(no content)' }];
    return { role: m.role, content };
  });
}

/**
 * Cache breakpoints (when caching is on): one after the tools and system prompt (on the system
 * block, or the last tool without one), and on the messages messageBreakpoints picks. The
 * markers do not take part in the cached prefix, so moving them never breaks a hit.
 */
function withBreakpoints(
  tools: ToolUnion[],
  messages: WireMessage[],
  system: string,
  cache: CacheSettings,
): { tools: ToolUnion[]; messages: WireMessage[]; system?: TextBlockParam[] } {
  const mark: CacheControlEphemeral = cache.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  const marked = new Set(messageBreakpoints(messages.map((m) => m.role)));
  const outMessages = messages.map((m, i) => {
    if (!marked.has(i) || m.content.length === 0) return m;
    const content = [...m.content];
    content[content.length - 1] = { ...content[content.length - 1]!, cache_control: mark } as ContentBlockParam;
    return { ...m, content };
  });
  if (system.length > 0) return { tools, messages: outMessages, system: [{ type: 'text', text: system, cache_control: mark }] };
  const outTools = tools.map((t, i) => (i === tools.length - 1 ? { ...t, cache_control: mark } : t));
  return { tools: outTools, messages: outMessages };
}

/** The request's thinking settings as the Messages API takes them (effort `high` is the API's default: omitted). */
export function thinkingParams(t: ThinkingRequest | undefined): Pick<MessageCreateParamsStreaming, 'thinking' | 'output_config'> {
  if (!t) return {};
  const display = t.display !== undefined ? { display: t.display } : {};
  const thinking: ThinkingConfigParam =
    t.mode === 'off'
      ? { type: 'disabled' }
      : t.mode === 'enabled'
        ? { type: 'enabled', budget_tokens: t.budgetTokens ?? 1_024, ...display }
        : { type: 'adaptive', ...display };
  return { thinking, ...(t.effort !== undefined && t.effort !== 'high' ? { output_config: { effort: t.effort } } : {}) };
}

/**
 * The request's params and the prefix hash a reply is bound to. The history goes through
 * replayableHistory (thinkingReplay.ts): the one place thinking is left out after a change.
 * No sampling parameters: under anthropic-version 2026-10-21 any of them is a 400.
 */
export function toAnthropicRequest(req: ModelRequest, cache: CacheSettings = DEFAULT_CACHE): { params: MessageCreateParamsStreaming; prefixHash: string } {
  const t = req.thinking;
  const closeLostLoops = t !== undefined && t.mode !== 'off' && !t.canTurnOff && t.mode !== 'enabled';
  const replay = replayableHistory(req.model, req.system, req.tools, req.messages, { closeLostLoops });
  return { params: buildParams(req, replay.messages, cache), prefixHash: replay.prefixHash };
}

export function toAnthropicParams(req: ModelRequest, cache: CacheSettings = DEFAULT_CACHE): MessageCreateParamsStreaming {
  return toAnthropicRequest(req, cache).params;
}

/**
 * A budget is below max_tokens, which a smaller window, an overflow or a short summary request
 * can lower: the budget follows, and under the minimum budget such a request does not think
 * (models with manual thinking can turn it off).
 */
function fitThinking(t: ThinkingRequest | undefined, maxTokens: number): ThinkingRequest | undefined {
  if (t?.mode !== 'enabled' || (t.budgetTokens ?? 0) < maxTokens) return t;
  return maxTokens > MIN_BUDGET ? { ...t, budgetTokens: maxTokens - 1 } : { mode: 'off' };
}
const MIN_BUDGET = 1_024;

function buildParams(req: ModelRequest, history: readonly Message[], cache: CacheSettings): MessageCreateParamsStreaming {
  let tools: ToolUnion[] = req.tools.map((t): Tool => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
  if (req.webSearch) tools.push(anthropicWebSearchTool(req.webSearch));
  let messages = toAnthropicMessages(history);
  let system: string | TextBlockParam[] | undefined = req.system.length > 0 ? req.system : undefined;
  if (cache.enabled) ({ tools, messages, system } = withBreakpoints(tools, messages, req.system, cache));
  return {
    model: req.model,
    max_tokens: req.maxTokens,
    messages,
    stream: true,
    ...(system !== undefined ? { system } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...thinkingParams(withoutReplay(fitThinking(req.thinking, req.maxTokens), messages)),
  };
}

/**
 * While thinking is on, the API refuses a tool loop whose assistant message does not start with
 * thinking ("a final assistant message must start with a thinking block"). A loop can lose its
 * thinking: another model made the call (signatures are per model, replayableHistory leaves it
 * out), or the call was interrupted and the next prompt joined its result. Such a request goes
 * without thinking where the model can turn it off (the API's own advice); each step of the loop
 * meets the rule again, so the loop ends as it began, and the next turn thinks again. Where the
 * model cannot turn thinking off, an interrupted loop goes as a note instead (closeLostLoops).
 */
function withoutReplay(t: ThinkingRequest | undefined, wire: readonly WireMessage[]): ThinkingRequest | undefined {
  if (!t || t.mode === 'off' || !(t.canTurnOff || t.mode === 'enabled')) return t;
  const last = wire.at(-1);
  const prev = wire.at(-2);
  if (last?.role !== 'user' || prev?.role !== 'assistant' || !last.content.some((b) => b.type === 'tool_result')) return t;
  const first = prev.content[0]?.type;
  return first === 'thinking' || first === 'redacted_thinking' ? t : { mode: 'off' };
}

export function mapAnthropicStop(reason: AnthropicStopReason | string | null | undefined): StopReason {
  switch (reason) {
    case 'end_turn':
      return 'end_turn';
    case 'tool_use':
      return 'tool_use';
    case 'max_tokens':
      return 'max_tokens';
    case 'stop_sequence':
      return 'stop_sequence';
    case 'refusal':
      return 'refusal';
    case 'model_context_window_exceeded':
      return 'context_window';
    case 'pause_turn':
      return 'pause_turn';
    default:
      return 'other';
  }
}

export function describeAnthropicError(err: unknown): SdkFailure {
  return describeSdkError(err, { APIUserAbortError, APIConnectionTimeoutError, APIConnectionError, APIError });
}

/**
 * The SDK's client with the one resource the adapter calls. `Anthropic` attaches every resource
 * of the API (beta, files, skills, organization, ...): ~370 KB of code that each start compiled
 * for one `messages.create`.
 */
class MessagesClient extends BaseAnthropic {
  readonly messages = new Messages(this);
  readonly models = new Models(this);
}

type BlockState =
  | { kind: 'text'; text: string; citations: Citation[] }
  | { kind: 'search'; call: Record<string, unknown>; json: string }
  | { kind: 'search_result'; result: WebSearchToolResultBlock }
  | { kind: 'tool'; id: string; name: string; json: string; closed: boolean }
  | { kind: 'thinking'; thinking: string; signature: string }
  | { kind: 'redacted'; data: string }
  | { kind: 'ignored' };

export class AnthropicProvider extends SdkAdapter<MessagesClient> implements Provider {
  readonly name = 'anthropic' as const;

  constructor(opts: AdapterOptions) {
    super(opts, {
      provider: 'anthropic',
      keyEnv: 'ANTHROPIC_API_KEY',
      client: (options) => new MessagesClient(options),
      describe: describeAnthropicError,
      aborted: () => new APIUserAbortError(),
    });
  }

  /** GET /v1/models/{id}: thinking types, effort levels, limits and lifecycle. */
  async describeModel(model: string): Promise<ModelDescription> {
    const info = await this.call(model, (client, signal) => client.models.retrieve(model, {}, { signal }));
    return describeModelInfo(info);
  }

  protected async *events(req: ModelRequest, { client, signal, begin, checkStopped }: RequestContext<MessagesClient>): AsyncGenerator<StreamEvent> {
    const { params, prefixHash } = toAnthropicRequest(req, this.opts.cache);
    // the SDK console.warns about deprecated models; route that to onWarning instead of the terminal
    const stream = await withWarningsTo(this.warn, () => client.messages.create(params, { signal }));
    begin();

    const blocks = new Map<number, BlockState>();
    let model = req.model;
    const usage = emptyUsage();
    let stopRaw: string | null = null;
    let sawStart = false;
    let sawStop = false;

    for await (const ev of stream as AsyncIterable<RawMessageStreamEvent>) {
      switch (ev.type) {
        case 'message_start': {
          sawStart = true;
          model = ev.message.model || model;
          const u = ev.message.usage;
          usage.inputTokens = u.input_tokens ?? 0;
          usage.outputTokens = u.output_tokens ?? 0;
          readCacheUsage(usage, u);
          break;
        }
        case 'content_block_start': {
          const cb = ev.content_block;
          if (cb.type === 'text') {
            const citations = (cb.citations ?? []).flatMap((c) => citationOf(c) ?? []);
            blocks.set(ev.index, { kind: 'text', text: cb.text ?? '', citations });
            if (cb.text) yield { type: 'text_delta', text: cb.text };
          } else if (cb.type === 'tool_use') {
            blocks.set(ev.index, { kind: 'tool', id: cb.id, name: cb.name, json: '', closed: false });
            yield { type: 'tool_use_start', id: cb.id, name: cb.name };
          } else if (cb.type === 'thinking') {
            blocks.set(ev.index, { kind: 'thinking', thinking: cb.thinking ?? '', signature: cb.signature ?? '' });
            // an empty delta marks the start, so a display-omitted block still shows "Thinking…"
            yield { type: 'thinking_delta', text: cb.thinking ?? '' };
          } else if (cb.type === 'redacted_thinking') {
            blocks.set(ev.index, { kind: 'redacted', data: cb.data });
            yield { type: 'thinking_delta', text: '' };
          } else if (cb.type === 'server_tool_use' && cb.name === 'web_search') {
            blocks.set(ev.index, { kind: 'search', call: { ...cb }, json: '' });
          } else if (cb.type === 'web_search_tool_result') {
            blocks.set(ev.index, { kind: 'search_result', result: cb });
          } else blocks.set(ev.index, { kind: 'ignored' });
          break;
        }
        case 'content_block_delta': {
          const st = blocks.get(ev.index);
          const d = ev.delta;
          if (st?.kind === 'text' && d.type === 'text_delta') {
            st.text += d.text;
            if (d.text) yield { type: 'text_delta', text: d.text };
          } else if (st?.kind === 'text' && d.type === 'citations_delta') {
            const c = citationOf(d.citation);
            if (c) st.citations.push(c);
          } else if (st?.kind === 'search' && d.type === 'input_json_delta') {
            st.json += d.partial_json;
          } else if (st?.kind === 'tool' && d.type === 'input_json_delta') {
            st.json += d.partial_json;
            if (d.partial_json) yield { type: 'tool_input_delta', id: st.id, partialJson: d.partial_json };
          } else if (st?.kind === 'thinking' && d.type === 'thinking_delta') {
            st.thinking += d.thinking;
            if (d.thinking) yield { type: 'thinking_delta', text: d.thinking };
          } else if (st?.kind === 'thinking' && d.type === 'signature_delta') {
            st.signature += d.signature;
          }
          break;
        }
        case 'content_block_stop': {
          const st = blocks.get(ev.index);
          if (st?.kind === 'tool') st.closed = true;
          // the signature comes whole at the block's end, before what follows it streams
          if (st?.kind === 'thinking' && st.signature) yield { type: 'thinking_delta', text: '', signature: st.signature };
          break;
        }
        case 'message_delta': {
          stopRaw = ev.delta.stop_reason ?? stopRaw;
          const u = ev.usage;
          if (typeof u.output_tokens === 'number') usage.outputTokens = u.output_tokens;
          if (typeof u.input_tokens === 'number') usage.inputTokens = u.input_tokens;
          readCacheUsage(usage, u);
          break;
        }
        case 'message_stop':
          sawStop = true;
          break;
      }
    }
    checkStopped();
    if (!sawStart || !sawStop) {
      throw new ProviderError({
        kind: 'stream_cut',
        provider: 'anthropic',
        message: sawStart ? 'the response stream ended before the message was complete' : 'the response stream ended without a message',
      });
    }

    const stopReason = mapAnthropicStop(stopRaw);
    const final: Block[] = [];
    for (const index of [...blocks.keys()].sort((a, b) => a - b)) {
      const st = blocks.get(index)!;
      if (st.kind === 'text' && st.text.length > 0)
        final.push({ type: 'text', text: st.text, ...(st.citations.length > 0 ? { citations: st.citations } : {}) });
      if (st.kind === 'search' || st.kind === 'search_result') {
        // a call goes with its result, or alone as a paused turn ends; a result alone continues a paused turn
        const search = searchOf(st, [...blocks.values()], stopReason === 'pause_turn', req.messages);
        if (search) final.push(search);
      }
      // kept verbatim, in order: the signature binds the block to what came before it
      if (st.kind === 'thinking') final.push({ type: 'thinking', thinking: st.thinking, signature: st.signature });
      if (st.kind === 'redacted') final.push({ type: 'redacted_thinking', data: st.data });
      if (st.kind === 'tool') {
        const input = finalToolInput(st.json, !st.closed || stopReason === 'max_tokens');
        // a tool call cut off by max_tokens is dropped: its input is not valid JSON
        if (input) final.push({ type: 'tool_use', id: st.id, name: st.name, input });
      }
    }
    yield { type: 'done', blocks: final, stopReason, usage, model, prefixHash };
  }
}

/**
 * Cache figures of a usage object (message_start, or a cumulative message_delta): reads, writes,
 * and the part of the writes made with the 1h TTL (priced 2× instead of 1.25×).
 */
function readCacheUsage(
  usage: Usage,
  u: Partial<Pick<AnthropicUsage, 'cache_read_input_tokens' | 'cache_creation_input_tokens' | 'cache_creation'>> | MessageDeltaUsage,
): void {
  if (typeof u.cache_read_input_tokens === 'number') usage.cacheReadTokens = u.cache_read_input_tokens;
  if (typeof u.cache_creation_input_tokens === 'number') usage.cacheWriteTokens = u.cache_creation_input_tokens;
  const oneHour = 'cache_creation' in u ? u.cache_creation?.ephemeral_1h_input_tokens : undefined;
  if (typeof oneHour === 'number' && oneHour > 0) usage.cacheWrite1hTokens = oneHour;
  const thinking = 'output_tokens_details' in u ? u.output_tokens_details?.thinking_tokens : undefined;
  if (typeof thinking === 'number' && thinking > 0) usage.thinkingTokens = thinking;
}

/** The neutral description of a ModelInfo (capabilities may be null: then nothing is known to be supported). */
export function describeModelInfo(info: ModelInfo): ModelDescription {
  const t = info.capabilities?.thinking.types;
  const e = info.capabilities?.effort;
  const efforts = e?.supported ? (['low', 'medium', 'high', 'xhigh', 'max'] as const).filter((l) => e[l]?.supported === true) : [];
  return {
    thinkingTypes: t ? (['adaptive', 'enabled', 'disabled'] as const).filter((k) => t[k].supported) : [],
    efforts: efforts as Effort[],
    ...(typeof info.max_input_tokens === 'number' ? { maxInputTokens: info.max_input_tokens } : {}),
    ...(typeof info.max_tokens === 'number' ? { maxOutputTokens: info.max_tokens } : {}),
    lifecycle: info.lifecycle,
    ...(typeof info.deprecated_at === 'string' ? { deprecatedAt: info.deprecated_at } : {}),
    ...(typeof info.retires_at === 'string' ? { retiresAt: info.retires_at } : {}),
  };
}
