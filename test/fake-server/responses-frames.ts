import { chunk } from './anthropic-wire.js';
import { sealReasoning } from './responses-wire.js';
import type { MessageReply } from './types.js';
import { responsesAnnotations, responsesSearchItemOf } from './websearch.js';

// The reply side of the fake's Responses API: the Response object and the SSE events of a
// streamed one, in the order and shapes the real service sends them.

export interface ResponseFigures {
  responseId: string;
  seq: number;
  created: number;
  model: string;
  inputTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
  /** Output tokens, reasoning included. */
  outputTokens: number;
  reasoningTokens: number;
  /** The reply carries a reasoning item (reasoning model, not turned off by the reply). */
  reasoning: boolean;
  summary: string | undefined;
  includeEncrypted: boolean;
  toolIds: string[];
  toolJson: string[];
  maxOutputTokens: number | undefined;
  /** The reply searches (MessageReply.search, the tool offered); withSources: the request included the action's sources. */
  search?: { withSources: boolean };
}

export const DEFAULT_REASONING_SUMMARY = '**Working out the next step**\n\nReading the request and deciding what to do.';

type Item = Record<string, unknown>;

/** The output items of the reply, complete, in order: reasoning, message, function calls. */
function outputItems(reply: MessageReply, f: ResponseFigures): Item[] {
  const items: Item[] = [];
  if (f.reasoning) {
    const id = `rs_fake_${f.seq}_0`;
    items.push({
      id,
      type: 'reasoning',
      summary: f.summary !== undefined ? [{ type: 'summary_text', text: f.summary }] : [],
      ...(f.includeEncrypted ? { encrypted_content: sealReasoning(id, f.model) } : {}),
    });
  }
  const search = reply.search && f.search ? reply.search : undefined;
  if (search) items.push(responsesSearchItemOf(search, f.search?.withSources === true));
  if (reply.text !== undefined || reply.refusal !== undefined) {
    const content: Item[] = [];
    if (reply.text !== undefined)
      content.push({ type: 'output_text', text: reply.text, annotations: search ? responsesAnnotations(search, reply.text) : [], logprobs: [] });
    if (reply.refusal !== undefined) content.push({ type: 'refusal', refusal: reply.refusal });
    items.push({ id: `msg_fake_${f.seq}`, type: 'message', role: 'assistant', status: 'completed', content, ...(reply.phase ? { phase: reply.phase } : {}) });
  }
  for (const [k, c] of (reply.toolCalls ?? []).entries()) {
    items.push({
      id: `fc_fake_${f.seq}_${k}`,
      type: 'function_call',
      status: 'completed',
      call_id: f.toolIds[k],
      name: c.name,
      arguments: f.toolJson[k] ?? '',
    });
  }
  return items;
}

const incompleteOf = (reply: MessageReply): string | undefined =>
  reply.stop === 'max_tokens' || reply.stop === 'model_context_window_exceeded' ? 'max_output_tokens' : reply.stop === 'refusal' ? 'content_filter' : undefined;

/** The whole Response object (the non-streaming body, and what completed/incomplete events carry). */
export function responseObject(reply: MessageReply, f: ResponseFigures, status: 'in_progress' | 'completed' | 'incomplete' = 'completed'): Item {
  const incomplete = incompleteOf(reply);
  const final = status === 'in_progress' ? status : incomplete ? 'incomplete' : 'completed';
  return {
    id: f.responseId,
    object: 'response',
    created_at: f.created,
    status: final,
    background: false,
    error: null,
    incomplete_details: final === 'incomplete' ? { reason: incomplete } : null,
    instructions: null,
    max_output_tokens: f.maxOutputTokens ?? null,
    model: f.model,
    output: status === 'in_progress' ? [] : outputItems(reply, f),
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: f.reasoning ? { effort: 'medium', summary: f.summary !== undefined ? 'auto' : null } : { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage:
      status === 'in_progress'
        ? null
        : {
            input_tokens: f.inputTokens,
            input_tokens_details: { cached_tokens: f.cachedTokens, cache_write_tokens: f.cacheWriteTokens },
            output_tokens: f.outputTokens,
            output_tokens_details: { reasoning_tokens: f.reasoningTokens },
            total_tokens: f.inputTokens + f.outputTokens,
          },
    user: null,
    metadata: {},
  };
}

/** The SSE events of a streamed response (no [DONE] line: the stream just ends). */
export function responsesFrames(reply: MessageReply, f: ResponseFigures): string[] {
  let n = 0;
  const frames: string[] = [];
  const ev = (type: string, data: Item): void => void frames.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: n++, ...data })}\n\n`);
  ev('response.created', { response: responseObject(reply, f, 'in_progress') });
  ev('response.in_progress', { response: responseObject(reply, f, 'in_progress') });
  const size = reply.chunkSize ?? 6;
  for (const [output_index, item] of outputItems(reply, f).entries()) {
    const item_id = item.id as string;
    if (item.type === 'reasoning') {
      ev('response.output_item.added', { output_index, item: { id: item_id, type: 'reasoning', summary: [] } });
      for (const [summary_index, part] of (item.summary as { text: string }[]).entries()) {
        ev('response.reasoning_summary_part.added', { item_id, output_index, summary_index, part: { type: 'summary_text', text: '' } });
        for (const delta of chunk(part.text, size)) ev('response.reasoning_summary_text.delta', { item_id, output_index, summary_index, delta });
        ev('response.reasoning_summary_text.done', { item_id, output_index, summary_index, text: part.text });
        ev('response.reasoning_summary_part.done', { item_id, output_index, summary_index, part: { type: 'summary_text', text: part.text } });
      }
    } else if (item.type === 'message') {
      ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
      for (const [content_index, part] of (item.content as Item[]).entries()) {
        const refusal = part.type === 'refusal';
        const text = (refusal ? part.refusal : part.text) as string;
        ev('response.content_part.added', {
          item_id,
          output_index,
          content_index,
          part: refusal ? { type: 'refusal', refusal: '' } : { type: 'output_text', text: '', annotations: [], logprobs: [] },
        });
        for (const delta of chunk(text, size))
          ev(refusal ? 'response.refusal.delta' : 'response.output_text.delta', {
            item_id,
            output_index,
            content_index,
            delta,
            ...(refusal ? {} : { logprobs: [] }),
          });
        ev(refusal ? 'response.refusal.done' : 'response.output_text.done', {
          item_id,
          output_index,
          content_index,
          ...(refusal ? { refusal: text } : { text, logprobs: [] }),
        });
        if (Array.isArray(part.annotations))
          for (const [annotation_index, annotation] of (part.annotations as Item[]).entries())
            ev('response.output_text.annotation.added', { item_id, output_index, content_index, annotation_index, annotation });
        ev('response.content_part.done', { item_id, output_index, content_index, part });
      }
    } else if (item.type === 'web_search_call') {
      const { action: _a, ...bare } = item;
      ev('response.output_item.added', { output_index, item: { ...bare, status: 'in_progress' } });
      ev('response.web_search_call.in_progress', { item_id, output_index });
      ev('response.web_search_call.searching', { item_id, output_index });
      ev('response.web_search_call.completed', { item_id, output_index });
    } else {
      ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
      for (const delta of chunk(item.arguments as string, reply.jsonChunkSize ?? 7))
        ev('response.function_call_arguments.delta', { item_id, output_index, delta });
      ev('response.function_call_arguments.done', { item_id, output_index, name: item.name, arguments: item.arguments });
    }
    ev('response.output_item.done', { output_index, item });
  }
  const done = responseObject(reply, f);
  ev(done.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: done });
  return frames;
}

/** An in-stream `error` event (the SDK throws it as an APIError). */
export function responsesErrorFrame(type: string, code: string, message: string, param: string | null = null): string {
  return `event: error\ndata: ${JSON.stringify({ type: 'error', sequence_number: 0, error: { type, code, message, param } })}\n\n`;
}

/** A prompt over the window told in a 200 stream, in one of the shapes the Responses API uses (FakeServerOptions.responsesOverflow). */
export function responsesOverflowFrames(shape: 'error_object' | 'flat' | 'failed', id: string, model: string): string {
  const code = 'context_length_exceeded';
  if (shape === 'error_object') return responsesErrorFrame('invalid_request_error', code, CONTEXT_WINDOW_TEXT, 'input');
  const frame = (type: string, data: Record<string, unknown>): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  if (shape === 'flat') return frame('error', { code, message: CONTEXT_WINDOW_TEXT, param: 'input', sequence_number: 0 });
  const response = (status: string, error: unknown) => ({
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model,
    output: [],
    error,
    incomplete_details: null,
    usage: null,
  });
  return (
    frame('response.created', { sequence_number: 0, response: response('in_progress', null) }) +
    frame('response.failed', { sequence_number: 1, response: response('failed', { code, message: CONTEXT_WINDOW_TEXT }) })
  );
}

export const CONTEXT_WINDOW_TEXT = 'Your input exceeds the context window of this model. Please adjust your input and try again.';
