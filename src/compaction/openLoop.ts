// A tool loop in progress whose replies think, and what compaction does about it. Thinking is
// bound to everything before it (llm/thinkingReplay.ts), and the API refuses a tool loop sent
// back without its thinking: so no change of the history may reach into such a loop while it
// runs. Micro clearing waits for the loop's end (engine.ts); when the window fills and cannot
// wait, compaction closes the loop into the checkpoint: the whole history is summarized, the
// loop's calls and results are carried in the checkpoint as text, and the model continues
// from the checkpoint in a fresh step with no kept message needing thinking it can no longer
// carry. (The alternative, the API's beta `drop_block` binding control, would leave the loop's
// last tool call without the thinking the API requires of it; docs/providers.md, Thinking.)
import { searchParts, type Message } from '../llm/messages.js';
import { isTurnStart } from './split.js';

const thinks = (m: Message): boolean => m.role === 'assistant' && m.blocks.some((b) => b.type === 'thinking' || b.type === 'redacted_thinking');

/** A reply the provider paused (pause_turn) with a search still open: the turn goes on from it, as from tool results. */
const pausedReply = (m: Message): boolean => m.role === 'assistant' && m.blocks.some((b) => b.type === 'web_search' && searchParts(b) === 'call');

/** Index of the open loop's first message (the turn's first reply), or undefined when the history does not end inside a tool loop whose replies think. */
export function openThinkingLoop(history: readonly Message[]): number | undefined {
  const last = history[history.length - 1];
  if (!last || !(pausedReply(last) || (last.role === 'user' && last.blocks.some((b) => b.type === 'tool_result')))) return undefined;
  let start = history.length - 1;
  while (start > 0 && !isTurnStart(history[start - 1]!) && history[start - 1]!.kind !== 'checkpoint') start--;
  const loop = history.slice(start);
  return loop.some(thinks) ? start : undefined;
}

/** Most characters of one tool result carried into the checkpoint. */
const RESULT_CHARS = 2_000;

/** The open loop's calls and results as text, for the checkpoint that closes it. */
export function openLoopText(loop: readonly Message[]): string {
  const lines: string[] = [
    '## Tool loop in progress when the conversation was compacted',
    'You had made these tool calls in the current task; continue from here without repeating them unless needed.',
  ];
  for (const m of loop) {
    for (const b of m.blocks) {
      if (b.type === 'text' && m.role === 'assistant' && b.text.trim()) lines.push(`You wrote: ${b.text.trim()}`);
      if (b.type === 'tool_use') lines.push(`Call ${b.name} ${JSON.stringify(b.input)}`);
      if (b.type === 'tool_result') {
        const body =
          b.content.length > RESULT_CHARS ? `${b.content.slice(0, RESULT_CHARS)}\n[… ${b.content.length - RESULT_CHARS} more characters]` : b.content;
        lines.push(`Result${b.isError ? ' (error)' : ''}:\n${body}`);
      }
    }
  }
  return lines.join('\n');
}
