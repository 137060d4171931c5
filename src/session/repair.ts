import { newId, toolUses, type Message } from '../llm/messages.js';

export const INTERRUPTED_TOOL_RESULT = 'interrupted: the session ended (crash or kill) before this tool call finished; it may or may not have had effects. Check before retrying.';

/**
 * A crash or kill between an assistant's tool_use and its results leaves the history
 * invalid for the provider. Returns the message that closes those calls with an
 * "interrupted" result, or undefined when nothing is open. Only the end of a history can
 * be left open: messages are stored in order, each as it completes.
 */
export function repairInterruptedToolCalls(history: readonly Message[]): Message | undefined {
  const last = history.at(-1);
  if (!last || last.role !== 'assistant') return undefined;
  const open = toolUses(last);
  if (open.length === 0) return undefined;
  return {
    id: newId(),
    role: 'user',
    kind: 'normal',
    createdAt: Date.now(),
    blocks: open.map((u) => ({ type: 'tool_result' as const, toolUseId: u.id, content: INTERRUPTED_TOOL_RESULT, isError: true })),
  };
}
