import type { Message } from '../llm/messages.js';
import { messageText, type TextStyle } from '../llm/messageText.js';
import type { DoneEvent, ModelRequest, ThinkingRequest, ToolSpec } from '../llm/provider.js';
import { buildInPlaceSummaryPrompt } from './prompt.js';
import type { TokenCounter } from './tokens.js';
import { withoutImages } from '../llm/withoutImages.js';

// The summary request that keeps the prompt cache: when the session's own model writes the
// checkpoint, it is asked with the very request prefix the session has been sending (same
// system prompt, same tools, the history as it is) plus one instruction at the end, so the
// provider reads all of that from its cache instead of a freshly rendered transcript that
// shares nothing with it. A separate compaction.model cannot share the cache and uses the
// transcript path.

/** The session's request as it stands, for the in-place summary. */
export interface SharedPrefix {
  system: string;
  tools: readonly ToolSpec[];
  history: readonly Message[];
  /** history[keptFrom...] stays verbatim after the checkpoint. */
  keptFrom: number;
  /** Calibrated tokens of system + tools + history. */
  tokens: number;
  cacheKey?: string | undefined;
  /** The session's thinking settings: the same as its requests', or the cached prefix would not be read. */
  thinking?: ThinkingRequest | undefined;
}

/** Share of the window the request (its input and the summary's output) may fill. */
const WINDOW_SHARE = 0.9;
const QUOTE_CHARS = 200;
const QUOTE_STYLE: TextStyle = {
  separator: ' ',
  toolUse: (b) => `[tool call ${b.name}]`,
  toolResult: (b) => `[tool result] ${b.content}`,
  image: () => '',
};

/** Where the kept part starts, quoted (its first text), so the model can tell the two parts apart. */
function quoteOf(m: Message | undefined): string | undefined {
  if (!m) return undefined;
  const text = messageText(m, QUOTE_STYLE).replace(/\s+/g, ' ').trim();
  return text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}…` : text || `[${m.role} message]`;
}

/** The request, or undefined when it would not fit the window with the summary's output. */
export function inPlaceRequest(
  shared: SharedPrefix,
  opts: { model: string; maxTokens: number; window: number; focus?: string | undefined; signal: AbortSignal },
  counter: TokenCounter,
  newMessage: (text: string) => Message,
): ModelRequest | undefined {
  const kept = shared.history.length - shared.keptFrom;
  const instruction = buildInPlaceSummaryPrompt({
    keptFrom: kept > 0 ? quoteOf(shared.history[shared.keptFrom]) : undefined,
    keptCount: kept,
    focus: opts.focus,
    maxTokens: opts.maxTokens,
  });
  if (shared.tokens + counter.countText(instruction) + opts.maxTokens > opts.window * WINDOW_SHARE) return undefined;
  return {
    model: opts.model,
    system: shared.system,
    tools: shared.tools,
    // the images' bytes never reach the summarizer: the cached prefix is read up to the first one
    messages: [...withoutImages(shared.history), newMessage(instruction)],
    maxTokens: opts.maxTokens,
    signal: opts.signal,
    ...(shared.cacheKey !== undefined ? { cacheKey: shared.cacheKey } : {}),
    ...(shared.thinking !== undefined ? { thinking: shared.thinking } : {}),
  };
}

/** The checkpoint text of a reply, or why it cannot be one (the model called a tool, was cut off…). */
export function inPlaceAnswer(done: DoneEvent): { text: string } | { problem: string } {
  const text = done.blocks
    .map((b) => (b.type === 'text' ? b.text : ''))
    .join('')
    .trim();
  if (done.blocks.some((b) => b.type === 'tool_use') || done.stopReason === 'tool_use')
    return { problem: 'the model called a tool instead of writing the summary' };
  if (done.stopReason === 'max_tokens' || done.stopReason === 'context_window') return { problem: 'the summary was cut off' };
  if (done.stopReason === 'refusal') return { problem: 'the model refused to write the summary' };
  if (!text) return { problem: 'the summary came back empty' };
  return { text };
}
