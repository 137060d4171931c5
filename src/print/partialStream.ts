import { randomUUID } from 'node:crypto';
import type { Message } from '../llm/messages.js';
import type { SessionEvent } from '../protocol/events.js';
import { type ClaudeBlock, claudeContent } from './claudeShapes.js';

// Claude Code's `--include-partial-messages`: each model reply also goes out as it streams, as
// `stream_event` lines wrapping the Anthropic API's server-sent events (message_start,
// content_block_start / _delta / _stop, message_delta, message_stop). Text and thinking go out
// as the session streams them; a tool call's input arrives whole, so its block goes out in one
// piece (start, one input_json_delta, stop) when the reply is complete, after the text before it.

type Kind = 'text' | 'thinking';

export class PartialMessages {
  /** The reply being streamed: its id (the assistant message then carries the same), its open block. */
  private open: { id: string; blocks: number; current?: Kind; signed?: boolean } | undefined;

  constructor(
    private readonly write: (msg: object) => void,
    private readonly sessionId: () => string,
    private readonly model: () => string,
  ) {}

  private send(event: object): void {
    this.write({ type: 'stream_event', event, session_id: this.sessionId(), parent_tool_use_id: null, uuid: randomUUID() });
  }

  private start(): { id: string; blocks: number; current?: Kind; signed?: boolean } {
    if (this.open) return this.open;
    this.open = { id: `msg_${randomUUID().replace(/-/g, '').slice(0, 24)}`, blocks: 0 };
    this.send({
      type: 'message_start',
      message: {
        id: this.open.id,
        type: 'message',
        role: 'assistant',
        model: this.model(),
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
          output_tokens: 0,
        },
      },
    });
    return this.open;
  }

  private delta(kind: Kind, text: string): void {
    const o = this.start();
    if (o.current !== kind) {
      this.stopBlock();
      o.current = kind;
      o.blocks++;
      this.send({
        type: 'content_block_start',
        index: o.blocks - 1,
        content_block: kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' },
      });
    }
    if (text)
      this.send({
        type: 'content_block_delta',
        index: o.blocks - 1,
        delta: kind === 'text' ? { type: 'text_delta', text } : { type: 'thinking_delta', thinking: text },
      });
  }

  private stopBlock(final?: ClaudeBlock): void {
    const o = this.open;
    if (!o?.current) return;
    if (o.current === 'thinking' && !o.signed && final?.type === 'thinking' && final.signature) this.sign(final.signature);
    this.send({ type: 'content_block_stop', index: o.blocks - 1 });
    delete o.current;
    delete o.signed;
  }

  /** The open thinking block's signature, as the API sends it: one signature_delta before the block stops. */
  private sign(signature: string): void {
    const o = this.open;
    if (o?.current !== 'thinking' || o.signed) return;
    this.send({ type: 'content_block_delta', index: o.blocks - 1, delta: { type: 'signature_delta', signature } });
    o.signed = true;
  }

  /** A whole block not streamed before (a tool call, or a reply that came in one piece). */
  private whole(index: number, b: ClaudeBlock): void {
    const at = (delta: object): void => this.send({ type: 'content_block_delta', index, delta });
    if (b.type === 'tool_use') {
      this.send({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      at({ type: 'input_json_delta', partial_json: JSON.stringify(b.input) });
    } else if (b.type === 'text') {
      this.send({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      at({ type: 'text_delta', text: b.text });
    } else if (b.type === 'thinking') {
      this.send({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      at({ type: 'thinking_delta', thinking: b.thinking });
      if (b.signature) at({ type: 'signature_delta', signature: b.signature });
    } else {
      this.send({ type: 'content_block_start', index, content_block: b });
    }
    this.send({ type: 'content_block_stop', index });
  }

  /** The reply is complete: the blocks not streamed yet, then message_delta and message_stop. Returns the id the stream used. */
  private finish(m: Message, stopReason: string | null): string {
    const o = this.start();
    // a search streams no deltas here: left out, so the indexes match what was streamed
    const content = claudeContent(m, false);
    this.stopBlock(content[o.blocks - 1]);
    for (let i = o.blocks; i < content.length; i++) this.whole(i, content[i]!);
    this.send({
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: m.usage?.outputTokens ?? 0 },
    });
    this.send({ type: 'message_stop' });
    this.open = undefined;
    return o.id;
  }

  /** The stream events of a session event; for a complete reply, the id its assistant message is to carry. */
  event(e: SessionEvent, stopReason: string | null): string | undefined {
    switch (e.type) {
      case 'request_start':
        // a retry starts the reply over: what was streamed of the failed attempt is dropped, as the API's stream was
        this.open = undefined;
        return undefined;
      case 'text_delta':
        this.delta('text', e.text);
        return undefined;
      case 'thinking_delta':
        this.delta('thinking', e.text);
        // a thinking block followed by text is stopped when the text starts: its signature goes out before that
        if (e.signature) this.sign(e.signature);
        return undefined;
      case 'tool_call_streaming':
        // the text before the call is complete; the call's block goes out whole with the reply
        this.stopBlock();
        return undefined;
      case 'message':
        return e.message.role === 'assistant' ? this.finish(e.message, stopReason) : undefined;
      default:
        return undefined;
    }
  }
}
