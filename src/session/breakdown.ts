import type { TokenCounter } from '../compaction/tokens.js';
import type { Message } from '../llm/messages.js';
import type { ToolSpec } from '../llm/provider.js';
import type { CommandOutput, ContextBreakdownRow, ContextUsageView } from '../ui/controller.js';

/** /context: where the window goes — system prompt, tool schemas, checkpoint, conversation, tool outputs (free space is the rest). */
export function contextBreakdown(
  counter: TokenCounter,
  system: string,
  tools: readonly ToolSpec[],
  history: readonly Message[],
  usage: ContextUsageView,
): CommandOutput {
  let checkpoint = 0;
  let toolOutputs = 0;
  let conversation = 0;
  for (const m of history) {
    const t = counter.countMessage(m);
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
  return { kind: 'context', rows, contextWindow: usage.contextWindow, effectiveWindow: usage.effectiveWindow };
}
