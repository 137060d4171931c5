import type { Message, ToolResultBlock } from '../llm/messages.js';
import { collectToolCalls, messageText, speakerOf, type TextStyle, type ToolCalls } from '../llm/messageText.js';
import { toolKeyArgument, type DescribeToolUse } from './micro.js';
import { truncateMiddle } from './text.js';

/** Tags the summarizer prompts use to delimit data; occurrences inside the data are defused. */
const DELIMITERS = /<(\/?)(transcript|previous_checkpoint|partial_summary|draft_checkpoint|focus_instructions)\b/gi;

/** Defuses our delimiter tags inside history text, so a tool output cannot close the transcript early. */
export function escapeDelimiters(text: string): string {
  return text.replace(DELIMITERS, '&lt;$1$2');
}

export interface RenderOptions {
  /** A tool result (or a tool call's input) longer than this keeps its head and tail. */
  toolOutputChars: number;
  /** Same for user and assistant text. */
  textChars: number;
  describe?: DescribeToolUse;
}

/** Default caps, lowered for a small summarizer budget by summarize.ts. */
export const DEFAULT_RENDER: RenderOptions = { toolOutputChars: 6_000, textChars: 24_000 };

const LABELS = { checkpoint: 'earlier checkpoint', meta: 'agent note', tool_results: 'tool results', user: 'user', assistant: 'assistant' } as const;

/** How the summarizer reads history: long texts and outputs cut in the middle, every call and result by id. */
function transcriptStyle(opts: RenderOptions): TextStyle {
  return {
    separator: '\n',
    text: (text) => truncateMiddle(text, opts.textChars),
    image: (b) => `[image (${b.mediaType}) omitted]`,
    toolUse: (b) => {
      const key = (opts.describe ?? toolKeyArgument)(b.name, b.input);
      const input = truncateMiddle(JSON.stringify(b.input), opts.toolOutputChars);
      return `[tool call ${b.name}${key ? ` \`${key}\`` : ''} id=${b.id}] input: ${input}`;
    },
    toolResult: (b, call) => {
      const status = b.isError ? ' (error)' : b.cleared ? ' (cleared earlier)' : '';
      return `[result of ${call?.name ?? 'tool'} id=${b.toolUseId}${status}]\n${truncateMiddle(b.content, opts.toolOutputChars)}`;
    },
  };
}

/** One message as transcript text; `position` is its number in the transcript. */
export function renderMessage(m: Message, position: number, calls: ToolCalls, opts: RenderOptions): string {
  const body = messageText(m, transcriptStyle(opts), calls);
  const pinned = m.pinned ? ' · pinned' : '';
  return escapeDelimiters(`--- message ${position} · ${LABELS[speakerOf(m)]}${pinned} ---\n${body}`);
}

/** Each message rendered separately (chunking packs them). */
export function renderTranscript(messages: readonly Message[], opts: RenderOptions, firstPosition = 1): string[] {
  const calls = collectToolCalls(messages);
  return messages.map((m, i) => renderMessage(m, firstPosition + i, calls, opts));
}

export const OMITTED_OUTPUT = '[tool output omitted so that the transcript fits the summarizer]';

/**
 * Replaces the contents of a fraction of the tool results, starting from the middle of the
 * transcript and moving outwards: the start (the task) and the end (the current state) are
 * what a summary needs most. Returns new message objects; the input is untouched.
 */
export function removeToolOutputsMiddleOut(messages: readonly Message[], fraction: number): Message[] {
  const spots: Array<{ m: number; b: number }> = [];
  messages.forEach((msg, m) =>
    msg.blocks.forEach((blk, b) => {
      if (blk.type === 'tool_result' && blk.content !== OMITTED_OUTPUT) spots.push({ m, b });
    }),
  );
  const n = spots.length;
  const take = Math.min(n, Math.ceil(n * Math.max(0, Math.min(1, fraction))));
  if (take === 0) return messages.slice();
  const center = Math.floor(n / 2);
  const order: number[] = [];
  for (let d = 0; order.length < n; d++) {
    if (center + d < n) order.push(center + d);
    if (center - d - 1 >= 0) order.push(center - d - 1);
  }
  const chosen = order.slice(0, take).map((k) => spots[k]!);
  const out = messages.slice();
  for (const { m, b } of chosen) {
    const msg = out[m]!;
    const blocks = msg.blocks.slice();
    const blk = blocks[b] as ToolResultBlock;
    blocks[b] = { ...blk, content: OMITTED_OUTPUT };
    out[m] = { ...msg, blocks };
  }
  return out;
}
