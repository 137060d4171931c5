import { type ThinkingRoom, thinkingCountsFrom, thinkingRaw } from '../compaction/thinkingRoom.js';
import type { TokenCounter } from '../compaction/tokens.js';
import type { Message } from '../llm/messages.js';
import type { ToolSpec } from '../llm/provider.js';
import type { CommandOutput, ContextBreakdownRow, ContextUsageView } from '../protocol/views.js';

/**
 * /context: where the window goes — system prompt, tool schemas, checkpoint, conversation, tool
 * outputs (free space is the rest). Thinking the API strips (finished turns' on models that do not
 * keep it: compaction/thinkingRoom.ts) takes no room, as in the gauge.
 */
export function contextBreakdown(
  counter: TokenCounter,
  system: string,
  tools: readonly ToolSpec[],
  history: readonly Message[],
  usage: ContextUsageView,
  room: ThinkingRoom = 'all',
): CommandOutput {
  let checkpoint = 0;
  let toolOutputs = 0;
  let conversation = 0;
  const keptFrom = thinkingCountsFrom(history, room);
  for (const [i, m] of history.entries()) {
    const t = counter.countMessage(m) - (room === 'current-turn' && i < keptFrom ? thinkingRaw(counter, m) : 0);
    if (m.kind === 'checkpoint') checkpoint += t;
    else if (m.blocks.some((b) => b.type === 'tool_result')) toolOutputs += t;
    else conversation += t;
  }
  const rows: ContextBreakdownRow[] = [
    { label: 'System prompt', tokens: counter.countText(system) },
    { label: 'Tool schemas', tokens: counter.countToolSpecs(tools) },
    { label: 'Checkpoint', tokens: checkpoint },
    { label: 'Messages', tokens: conversation },
    { label: 'Tool outputs', tokens: toolOutputs },
  ];
  return {
    kind: 'context',
    rows: calibrated(rows, usage.tokens),
    contextWindow: usage.contextWindow,
    effectiveWindow: usage.effectiveWindow,
    percentLeft: usage.percentLeft,
  };
}

/**
 * The rows scaled to the gauge's count (anchored on the provider's reported input, calibrated
 * per model), so /context and the gauge show one number; the raw tokenizer count only splits it.
 */
function calibrated(rows: ContextBreakdownRow[], total: number): ContextBreakdownRow[] {
  const raw = rows.reduce((sum, r) => sum + r.tokens, 0);
  if (raw <= 0 || total <= 0 || raw === total) return rows;
  const scaled = rows.map((r) => ({ ...r, tokens: Math.round((r.tokens * total) / raw) }));
  // rounding may leave the sum a few tokens off: the largest row absorbs it
  const drift = total - scaled.reduce((sum, r) => sum + r.tokens, 0);
  const largest = scaled.reduce((best, r, i) => (r.tokens > scaled[best]!.tokens ? i : best), 0);
  scaled[largest]!.tokens += drift;
  return scaled;
}
