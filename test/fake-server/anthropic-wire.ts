import type { Block } from '../../src/llm/messages.js';
import { keyOf, type Segment } from './cache.js';
import { countBlock, countPrompt, countText, countTool, MESSAGE_OVERHEAD, type CountableTool } from './tokens.js';
import type { MessageReply, RequestView, SearchReply, StopName } from './types.js';
import { anthropicImageError, imageProblem } from './images.js';
import { AnthropicSearchCheck, anthropicSearchContent, anthropicServerToolError } from './websearch.js';

// The Anthropic Messages API as the fake server speaks it: request validation with the
// real service's 400 texts, and the SSE frames of a streamed reply.

/** segments: the prompt's blocks in cache order (tools, system, messages) with their breakpoints. */
/** openSearches: server_tool_use blocks the final assistant message leaves open (a paused turn sent back; pause.ts). */
export type Parsed = { ok: true; view: RequestView; tools: CountableTool[]; segments: Segment[]; openSearches: string[] } | { ok: false; message: string };

const MAX_CACHE_BREAKPOINTS = 4;

/** A block's cache_control as the API validates it: its TTL, nothing, or the error text. */
function cacheControlOf(v: Record<string, unknown>, where: string): { ttl?: '5m' | '1h'; error?: string } {
  const cc = v.cache_control;
  if (cc === undefined || cc === null) return {};
  if (!isObj(cc) || cc.type !== 'ephemeral')
    return {
      error: `${where}.cache_control: Input tag '${isObj(cc) ? String(cc.type) : typeof cc}' found using 'type' does not match any of the expected tags: 'ephemeral'`,
    };
  if (cc.ttl !== undefined && cc.ttl !== '5m' && cc.ttl !== '1h') return { error: `${where}.cache_control.ephemeral.ttl: Input should be '5m' or '1h'` };
  return { ttl: cc.ttl === '1h' ? '1h' : '5m' };
}

/** The rules across all breakpoints: at most 4, and no 1h entry after a 5m one. */
function checkBreakpoints(segments: readonly Segment[]): string | undefined {
  const marks = segments.flatMap((s) => (s.breakpoint ? [s.breakpoint] : []));
  if (marks.length > MAX_CACHE_BREAKPOINTS) return `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${marks.length}.`;
  const firstShort = marks.indexOf('5m');
  if (firstShort >= 0 && marks.lastIndexOf('1h') > firstShort)
    return "A 'ttl'='1h' cache_control block must not come after a 'ttl'='5m' cache_control block. Note that blocks are processed in the following order: `tools`, `system`, `messages`.";
  return undefined;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface AnthropicParseOptions {
  tokenMultiplier: number;
  allowConsecutiveRoles: boolean;
  /** count_tokens takes no max_tokens. */
  requireMaxTokens: boolean;
  /** Models whose API strips the thinking of finished turns (not counted, not cached): all but those that keep it in context. */
  stripsFinishedThinking?: (model: string) => boolean;
}

/**
 * Index of the current turn's first message: after the last user message that is not only tool
 * results. The thinking of assistant messages before it belongs to finished turns.
 */
function currentTurnStart(messages: readonly unknown[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (!isObj(m) || m.role !== 'user') continue;
    const toolResults = Array.isArray(m.content) && m.content.some((b) => isObj(b) && b.type === 'tool_result');
    if (!toolResults) return i + 1;
  }
  return 0;
}

const isThinkingBlock = (b: Block): boolean => b.type === 'thinking' || b.type === 'redacted_thinking';

/** Validates a /v1/messages (or count_tokens) body as the real API does and builds the neutral view. */
export function parseAnthropicRequest(body: unknown, opts: AnthropicParseOptions): Parsed {
  const fail = (message: string): Parsed => ({ ok: false, message });
  if (!isObj(body)) return fail('There was an issue with the request body: it must be a JSON object');
  if (body.model === undefined) return fail('model: Field required');
  if (typeof body.model !== 'string') return fail('model: Input should be a valid string');
  if (opts.requireMaxTokens) {
    if (body.max_tokens === undefined) return fail('max_tokens: Field required');
    if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens)) return fail('max_tokens: Input should be a valid integer');
    if (body.max_tokens < 1) return fail('max_tokens: Input should be greater than or equal to 1');
  }
  if (body.messages === undefined) return fail('messages: Field required');
  if (!Array.isArray(body.messages)) return fail('messages: Input should be a valid list');
  if (body.messages.length === 0) return fail('messages: at least one message is required');

  const toolSegments: Segment[] = [];
  const systemSegments: Segment[] = [];
  const messageSegments: Segment[] = [];
  let system = '';
  if (typeof body.system === 'string') {
    system = body.system;
    systemSegments.push({ key: keyOf({ system }), tokens: countText(system) });
  } else if (Array.isArray(body.system)) {
    const parts: string[] = [];
    for (const [i, b] of body.system.entries()) {
      if (!isObj(b) || b.type !== 'text' || typeof b.text !== 'string') return fail(`system.${i}: Input should be a valid text block`);
      const cc = cacheControlOf(b, `system.${i}`);
      if (cc.error) return fail(cc.error);
      parts.push(b.text);
      systemSegments.push({ key: keyOf({ system: b }), tokens: countText(b.text), ...(cc.ttl ? { breakpoint: cc.ttl } : {}) });
    }
    system = parts.join('\n');
  } else if (body.system !== undefined) return fail('system: Input should be a valid string');

  const tools: CountableTool[] = [];
  let webSearchTool: Record<string, unknown> | undefined;
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return fail('tools: Input should be a valid list');
    const names = new Set<string>();
    for (const [i, t] of body.tools.entries()) {
      if (!isObj(t)) return fail(`tools.${i}: Input should be a valid dictionary`);
      if (t.type !== undefined && t.type !== 'custom') {
        const error = anthropicServerToolError(t, i);
        if (error) return fail(error);
        const cc = cacheControlOf(t, `tools.${i}.${String(t.type)}`);
        if (cc.error) return fail(cc.error);
        webSearchTool = t;
        const tool = { name: 'web_search', schema: t };
        tools.push(tool);
        toolSegments.push({ key: keyOf({ tool: t }), tokens: countTool(tool), ...(cc.ttl ? { breakpoint: cc.ttl } : {}) });
        continue;
      }
      if (typeof t.name !== 'string') return fail(`tools.${i}.custom.name: Field required`);
      if (!/^[a-zA-Z0-9_-]{1,128}$/.test(t.name)) return fail(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
      if (t.input_schema === undefined) return fail(`tools.${i}.custom.input_schema: Field required`);
      if (!isObj(t.input_schema)) return fail(`tools.${i}.custom.input_schema: Input should be a valid dictionary`);
      if (t.input_schema.type === undefined) return fail(`tools.${i}.custom.input_schema.type: Field required`);
      if (t.input_schema.type !== 'object') return fail(`tools.${i}.custom.input_schema.type: Input should be 'object'`);
      if (names.has(t.name)) return fail('tools: Tool names must be unique.');
      names.add(t.name);
      const cc = cacheControlOf(t, `tools.${i}.custom`);
      if (cc.error) return fail(cc.error);
      const tool = { name: t.name, description: typeof t.description === 'string' ? t.description : '', schema: t.input_schema };
      tools.push(tool);
      toolSegments.push({ key: keyOf({ tool: t }), tokens: countTool(tool), ...(cc.ttl ? { breakpoint: cc.ttl } : {}) });
    }
  }

  const messages: RequestView['messages'] = [];
  const search = new AnthropicSearchCheck();
  // thinking of finished turns that the API strips: it neither counts nor caches
  const keptFrom = opts.stripsFinishedThinking?.(body.model) ? currentTurnStart(body.messages) : 0;
  /** The calls of the final assistant message: the only ones a paused turn may leave open. */
  let finalCalls = new Set<string>();
  for (const [i, m] of body.messages.entries()) {
    if (!isObj(m)) return fail(`messages.${i}: Input should be a valid dictionary`);
    if (m.role !== 'user' && m.role !== 'assistant') return fail(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    const isFinalAssistant = m.role === 'assistant' && i === body.messages.length - 1;
    const callsBefore = search.callIds();
    const blocks: Block[] = [];
    /** Each raw block as it enters the cached prefix, with its breakpoint. */
    const marks: Array<{ raw: unknown; ttl?: '5m' | '1h' }> = [];
    const callMarks = new Map<string, { raw: unknown; ttl?: '5m' | '1h' }>();
    if (typeof m.content === 'string') {
      if (m.content.length === 0 && !isFinalAssistant)
        return fail(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
      if (m.content.length > 0) {
        blocks.push({ type: 'text', text: m.content });
        marks.push({ raw: { type: 'text', text: m.content } });
      }
    } else if (Array.isArray(m.content)) {
      if (m.content.length === 0 && !isFinalAssistant)
        return fail(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
      for (const [j, b] of m.content.entries()) {
        const where = `messages.${i}.content.${j}`;
        if (!isObj(b)) return fail(`${where}: Input should be a valid dictionary`);
        const cc = cacheControlOf(b, `${where}.${String(b.type)}`);
        if (cc.error) return fail(cc.error);
        marks.push({ raw: b, ...(cc.ttl ? { ttl: cc.ttl } : {}) });
        switch (b.type) {
          case 'text':
            if (typeof b.text !== 'string') return fail(`${where}.text.text: Field required`);
            if (b.text.length === 0) return fail('messages: text content blocks must be non-empty');
            if (b.text.trim().length === 0) return fail('messages: text content blocks must contain non-whitespace text');
            {
              const citations = search.citations(b, m.role, where);
              if (typeof citations === 'string') return fail(citations);
              blocks.push({ type: 'text', text: b.text, ...(citations.length > 0 ? { citations } : {}) });
            }
            break;
          case 'server_tool_use': {
            const error = search.call(b, m.role, where);
            if (error) return fail(error);
            // one neutral block for the pair: its mark goes with the result (or with the call left open)
            callMarks.set(String(b.id), marks.pop()!);
            break;
          }
          case 'web_search_tool_result': {
            const pair = search.result(b, m.role, where);
            if (typeof pair === 'string') return fail(pair);
            blocks.push(pair);
            break;
          }
          case 'image': {
            const src = b.source;
            if (!isObj(src) || src.type !== 'base64' || typeof src.data !== 'string' || typeof src.media_type !== 'string')
              return fail(`${where}.image.source: Input tag does not match any of the expected tags: 'base64', 'url', 'file'`);
            if (!['image/jpeg', 'image/png', 'image/gif', 'image/webp'].includes(src.media_type))
              return fail(`${where}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`);
            const problem = imageProblem(src.media_type, src.data);
            if (problem) return fail(anthropicImageError(`${where}.image.source.base64`, problem));
            blocks.push({ type: 'image', mediaType: src.media_type, data: src.data });
            break;
          }
          case 'tool_use':
            if (m.role !== 'assistant') return fail(`${where}: tool_use blocks are only allowed in assistant messages`);
            if (typeof b.id !== 'string') return fail(`${where}.tool_use.id: Field required`);
            if (typeof b.name !== 'string') return fail(`${where}.tool_use.name: Field required`);
            if (!isObj(b.input)) return fail(`${where}.tool_use.input: Input should be a valid dictionary`);
            blocks.push({ type: 'tool_use', id: b.id, name: b.name, input: b.input });
            break;
          case 'tool_result': {
            if (m.role !== 'user') return fail(`${where}: tool_result blocks are only allowed in user messages`);
            if (typeof b.tool_use_id !== 'string') return fail(`${where}.tool_result.tool_use_id: Field required`);
            let content = '';
            const images: { type: 'image'; mediaType: string; data: string }[] = [];
            if (typeof b.content === 'string') content = b.content;
            else if (Array.isArray(b.content)) {
              content = b.content
                .map((c) => (isObj(c) && typeof c.text === 'string' ? c.text : ''))
                .filter((t) => t !== '')
                .join('\n');
              for (const [k, c] of b.content.entries()) {
                if (!isObj(c) || c.type !== 'image') continue;
                const src = c.source;
                if (
                  !isObj(src) ||
                  src.type !== 'base64' ||
                  typeof src.data !== 'string' ||
                  typeof src.media_type !== 'string' ||
                  !['image/jpeg', 'image/png', 'image/gif', 'image/webp'].includes(src.media_type)
                )
                  return fail(`${where}.tool_result.content.${k}.image.source: Input tag does not match any of the expected tags: 'base64', 'url', 'file'`);
                const problem = imageProblem(src.media_type, src.data);
                if (problem) return fail(anthropicImageError(`${where}.tool_result.content.${k}.image.source.base64`, problem));
                images.push({ type: 'image', mediaType: src.media_type, data: src.data });
              }
            } else if (b.content !== undefined) return fail(`${where}.tool_result.content: Input should be a valid string or list`);
            blocks.push({ type: 'tool_result', toolUseId: b.tool_use_id, content, isError: b.is_error === true, ...(images.length > 0 ? { images } : {}) });
            break;
          }
          case 'thinking':
            if (m.role !== 'assistant') return fail(`${where}: thinking blocks are only allowed in assistant messages`);
            if (typeof b.thinking !== 'string') return fail(`${where}.thinking.thinking: Field required`);
            if (typeof b.signature !== 'string') return fail(`${where}.thinking.signature: Field required`);
            blocks.push({ type: 'thinking', thinking: b.thinking, signature: b.signature });
            break;
          case 'redacted_thinking':
            if (m.role !== 'assistant') return fail(`${where}: redacted_thinking blocks are only allowed in assistant messages`);
            if (typeof b.data !== 'string') return fail(`${where}.redacted_thinking.data: Field required`);
            blocks.push({ type: 'redacted_thinking', data: b.data });
            break;
          default:
            return fail(`${where}: Input tag '${String(b.type)}' found using 'type' does not match any of the expected tags`);
        }
      }
    } else return fail(`messages.${i}.content: Field required`);
    if (isFinalAssistant) {
      finalCalls = new Set([...search.callIds()].filter((id) => !callsBefore.has(id)));
      // a paused turn's open call: a block of its own, after the message's others (a paused reply ends with it)
      for (const id of finalCalls) {
        const open = search.openBlock(id);
        if (open) {
          blocks.push(open);
          marks.push(callMarks.get(id) ?? { raw: open.wire[0] });
        }
      }
    }
    messages.push({ role: m.role, blocks });
    blocks.forEach((b, j) => {
      const mark = marks[j];
      const counted = i < keptFrom && isThinkingBlock(b) ? 0 : countBlock(b);
      messageSegments.push({
        key: keyOf({ role: m.role, first: j === 0, block: mark?.raw }),
        tokens: counted + (j === 0 ? MESSAGE_OVERHEAD : 0),
        ...(mark?.ttl ? { breakpoint: mark.ttl } : {}),
      });
    });
  }
  const unanswered = search.unanswered(finalCalls);
  if ('error' in unanswered) return fail(unanswered.error);
  const segments = [...toolSegments, ...systemSegments, ...messageSegments];
  const breakpointError = checkBreakpoints(segments);
  if (breakpointError) return fail(breakpointError);

  if (messages[0]!.role !== 'user') return fail('messages: first message must use the "user" role');
  if (!opts.allowConsecutiveRoles) {
    for (let i = 1; i < messages.length; i++) {
      if (messages[i]!.role === messages[i - 1]!.role)
        return fail(`messages: roles must alternate between "user" and "assistant", but found multiple "${messages[i]!.role}" roles in a row`);
    }
  }
  const pairing = checkToolPairing(messages);
  if (pairing) return fail(pairing);

  const view: RequestView = {
    model: body.model,
    system,
    messages,
    toolNames: tools.filter((t) => t.schema !== webSearchTool).map((t) => t.name),
    ...(webSearchTool ? { webSearchTool } : {}),
    stream: body.stream === true,
    includeUsage: false,
    promptTokens: countPrompt(
      system,
      keptFrom > 0 ? messages.map((m, i) => (i < keptFrom ? { blocks: m.blocks.filter((b) => !isThinkingBlock(b)) } : m)) : messages,
      tools,
      opts.tokenMultiplier,
    ),
  };
  if (typeof body.max_tokens === 'number') view.maxTokens = body.max_tokens;
  if (typeof body.temperature === 'number') view.temperature = body.temperature;
  if (body.thinking !== undefined) view.thinking = body.thinking;
  if (isObj(body.output_config) && typeof body.output_config.effort === 'string') view.effort = body.output_config.effort;
  return { ok: true, view, tools, segments, openSearches: unanswered.open };
}

/** Every tool_use answered by a leading tool_result in the very next message, and every tool_result answering the message before. */
function checkToolPairing(messages: RequestView['messages']): string | undefined {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'assistant') {
      const ids = m.blocks.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
      if (ids.length === 0) continue;
      const next = messages[i + 1];
      // only the leading run of tool_result blocks counts as "immediately after"
      const answered = new Set<string>();
      if (next && next.role === 'user') {
        for (const b of next.blocks) {
          if (b.type !== 'tool_result') break;
          answered.add(b.toolUseId);
        }
      }
      const missing = ids.filter((id) => !answered.has(id));
      if (missing.length > 0)
        return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    } else {
      const prev = i > 0 ? messages[i - 1] : undefined;
      const asked = new Set(prev && prev.role === 'assistant' ? prev.blocks.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : []);
      for (const [j, b] of m.blocks.entries()) {
        if (b.type === 'tool_result' && !asked.has(b.toolUseId))
          return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${b.toolUseId}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
    }
  }
  return undefined;
}

export const anthropicFrame = (type: string, obj: Record<string, unknown> = {}): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...obj })}\n\n`;

export function chunk(text: string, size: number): string[] {
  const out: string[] = [];
  const n = Math.max(1, size);
  for (let i = 0; i < text.length; i += n) out.push(text.slice(i, i + n));
  return out;
}

export interface ReplyFigures {
  messageId: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  cacheWrite1hTokens: number;
  stop: StopName;
  toolIds: string[];
  toolJson: string[];
  /** The reply's search (MessageReply.search): the server_tool_use id. */
  searchId?: string;
  /** The reply continues a paused turn whose search was left open: it starts with that search's result. */
  continues?: { id: string; search: SearchReply };
  /** The reply's thinking block (shown: the text sent, empty when display is omitted), and the tokens it took. */
  thinking?: { shown: string; signature: string };
  thinkingTokens: number;
}

/**
 * A reply's search blocks: its own search, the result of a paused turn's search it continues, and
 * the citation its text carries (the first result of a search that has its result in this reply).
 */
function searchParts(reply: MessageReply, f: ReplyFigures) {
  const search = reply.search && f.searchId ? anthropicSearchContent(reply.search, f.searchId) : undefined;
  const continued = f.continues ? anthropicSearchContent(f.continues.search, f.continues.id) : undefined;
  return { search, continued, citation: continued?.citation ?? (reply.pause ? undefined : search?.citation) };
}

/** The SSE frames of a streamed Messages reply, in order. */
export function anthropicFrames(reply: MessageReply, f: ReplyFigures): string[] {
  const frames: string[] = [];
  const pings = reply.pings === true ? 1 : typeof reply.pings === 'number' ? reply.pings : 0;
  const ping = (): void => {
    for (let i = 0; i < pings; i++) frames.push(anthropicFrame('ping'));
  };
  frames.push(
    anthropicFrame('message_start', {
      message: {
        id: f.messageId,
        type: 'message',
        role: 'assistant',
        model: f.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: f.inputTokens,
          cache_creation_input_tokens: f.cacheWriteTokens,
          cache_read_input_tokens: f.cacheReadTokens,
          cache_creation: cacheCreation(f),
          output_tokens: 1,
        },
      },
    }),
  );
  ping();
  let index = 0;
  if (f.thinking) {
    frames.push(anthropicFrame('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
    for (const piece of f.thinking.shown.length > 0 ? chunk(f.thinking.shown, reply.chunkSize ?? 6) : []) {
      frames.push(anthropicFrame('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } }));
    }
    frames.push(anthropicFrame('content_block_delta', { index, delta: { type: 'signature_delta', signature: f.thinking.signature } }));
    frames.push(anthropicFrame('content_block_stop', { index }));
    index++;
  }
  const { search, continued, citation } = searchParts(reply, f);
  const call = (): void => {
    if (!search) return;
    frames.push(anthropicFrame('content_block_start', { index, content_block: { ...search.call, input: {} } }));
    for (const piece of chunk(JSON.stringify(search.call.input), reply.jsonChunkSize ?? 7))
      frames.push(anthropicFrame('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }));
    frames.push(anthropicFrame('content_block_stop', { index }));
    index++;
  };
  for (const result of [continued?.result, reply.pause ? undefined : search?.result]) {
    if (!result) continue;
    if (result === search?.result) call();
    frames.push(anthropicFrame('content_block_start', { index, content_block: result }));
    frames.push(anthropicFrame('content_block_stop', { index }));
    index++;
  }
  if (reply.text !== undefined && reply.text.length > 0) {
    frames.push(anthropicFrame('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    // a text after a search cites its first result: the citation streams before the text
    if (citation) frames.push(anthropicFrame('content_block_delta', { index, delta: { type: 'citations_delta', citation } }));
    for (const piece of chunk(reply.text, reply.chunkSize ?? 6)) {
      frames.push(anthropicFrame('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }));
      ping();
    }
    frames.push(anthropicFrame('content_block_stop', { index }));
    index++;
  }
  // a paused reply's search call comes last, its result left for the continuation
  if (reply.pause) call();
  for (const [k, call] of (reply.toolCalls ?? []).entries()) {
    frames.push(anthropicFrame('content_block_start', { index, content_block: { type: 'tool_use', id: f.toolIds[k], name: call.name, input: {} } }));
    frames.push(anthropicFrame('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } }));
    for (const piece of chunk(f.toolJson[k] ?? '', reply.jsonChunkSize ?? 7)) {
      frames.push(anthropicFrame('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }));
    }
    frames.push(anthropicFrame('content_block_stop', { index }));
    index++;
  }
  frames.push(
    anthropicFrame('message_delta', {
      delta: { stop_reason: f.stop, stop_sequence: null },
      usage: {
        output_tokens: f.outputTokens,
        ...(f.thinkingTokens > 0 ? { output_tokens_details: { thinking_tokens: f.thinkingTokens } } : {}),
        ...(search || continued ? { server_tool_use: { web_search_requests: 1 } } : {}),
      },
    }),
  );
  frames.push(anthropicFrame('message_stop'));
  return frames;
}

/** The non-streaming Message body of the same reply. */
export function anthropicMessage(reply: MessageReply, f: ReplyFigures): unknown {
  const content: unknown[] = [];
  if (f.thinking) content.push({ type: 'thinking', thinking: f.thinking.shown, signature: f.thinking.signature });
  const { search, continued, citation } = searchParts(reply, f);
  if (continued) content.push(continued.result);
  if (search && !reply.pause) content.push(search.call, search.result);
  if (reply.text) content.push({ type: 'text', text: reply.text, ...(citation ? { citations: [citation] } : {}) });
  if (search && reply.pause) content.push(search.call);
  for (const [k, call] of (reply.toolCalls ?? []).entries()) {
    let input: unknown = {};
    try {
      input = JSON.parse(f.toolJson[k] ?? '{}');
    } catch {
      input = {};
    }
    content.push({ type: 'tool_use', id: f.toolIds[k], name: call.name, input });
  }
  return {
    id: f.messageId,
    type: 'message',
    role: 'assistant',
    model: f.model,
    content,
    stop_reason: f.stop,
    stop_sequence: null,
    usage: {
      input_tokens: f.inputTokens,
      output_tokens: f.outputTokens,
      cache_creation_input_tokens: f.cacheWriteTokens,
      cache_read_input_tokens: f.cacheReadTokens,
      cache_creation: cacheCreation(f),
    },
  };
}

const cacheCreation = (f: ReplyFigures): { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number } => ({
  ephemeral_5m_input_tokens: f.cacheWriteTokens - f.cacheWrite1hTokens,
  ephemeral_1h_input_tokens: f.cacheWrite1hTokens,
});

export const anthropicInStreamError = (message: string): string => anthropicFrame('error', { error: { type: 'overloaded_error', message } });
