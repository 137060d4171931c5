// One renderer of a Message as plain text, for every place that shows history outside a
// provider request: the archive's search index (store/archive-text.ts), the summarizer's
// transcript (compaction/transcript.ts), the in-place compaction's quote, `agent sessions show`
// and the Markdown export. They differ only in how each kind of block reads: a TextStyle.
import type { ImageBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock } from './messages.js';
import { isToolResultMessage, webSearchLabel } from './messages.js';

/** What a tool result is described by: the call it answers. */
export type ToolCall = Pick<ToolUseBlock, 'name' | 'input'>;

/** Tool calls by id, so that a tool result can be described by the call it answers. */
export type ToolCalls = ReadonlyMap<string, ToolCall>;

export function collectToolCalls(messages: Iterable<Message>): Map<string, ToolCall> {
  const calls = new Map<string, ToolCall>();
  for (const m of messages) {
    for (const b of m.blocks) if (b.type === 'tool_use') calls.set(b.id, { name: b.name, input: b.input });
  }
  return calls;
}

/** Who a message is from, as every transcript view tells them apart. */
export type Speaker = 'user' | 'assistant' | 'tool_results' | 'checkpoint' | 'meta';

export function speakerOf(m: Message): Speaker {
  if (m.kind === 'checkpoint') return 'checkpoint';
  if (m.kind === 'meta') return 'meta';
  if (isToolResultMessage(m)) return 'tool_results';
  return m.role;
}

/** A text flattened to one line (runs of white space become a space), cut to max characters with an ellipsis. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export const imageLabel = (b: ImageBlock): string => `[image ${b.mediaType}]`;

export interface TextStyle {
  /** Between two blocks. */
  separator: string;
  /** A text block (`block`: for its origin); null leaves it out. Default: the text as it is. */
  text?: (text: string, block: TextBlock) => string | null;
  toolUse: (b: ToolUseBlock) => string;
  /** `call` is the tool call the result answers, when the caller's calls know it. */
  toolResult: (b: ToolResultBlock, call: ToolCall | undefined) => string;
  /** Default: `[image <media type>]`. */
  image?: (b: ImageBlock) => string;
  /**
   * Thinking (Anthropic thinking, OpenAI reasoning summaries), marked as such; `text` is empty
   * when the provider returned none (omitted or redacted). Default: left out, as summaries,
   * transcripts for the summarizer and the archive's text must.
   */
  thinking?: (text: string) => string;
}

const NO_CALLS: ToolCalls = new Map();

/** The blocks of a message as text, in order, in the given style. */
export function messageText(m: Message, style: TextStyle, calls: ToolCalls = NO_CALLS): string {
  const parts: string[] = [];
  for (const b of m.blocks) {
    switch (b.type) {
      case 'text': {
        const text = style.text ? style.text(b.text, b) : b.text;
        if (text !== null) parts.push(text);
        break;
      }
      case 'tool_use':
        parts.push(style.toolUse(b));
        break;
      case 'tool_result':
        parts.push(style.toolResult(b, calls.get(b.toolUseId)));
        break;
      case 'image':
        parts.push((style.image ?? imageLabel)(b));
        break;
      case 'web_search':
        // readable in every view; the provider's encrypted results never are
        parts.push(webSearchLabel(b));
        break;
      case 'thinking':
      case 'redacted_thinking':
      case 'reasoning':
        // Provider state: never part of a transcript, a summary or the archive's text unless the style shows it
        if (style.thinking) parts.push(style.thinking(b.type === 'thinking' ? b.thinking : b.type === 'reasoning' ? b.summary.join('\n\n') : ''));
        break;
    }
  }
  return parts.join(style.separator);
}
