import { toolResults, toolUses, type Message } from './messages.js';

/**
 * Checks invariant 1 of the design on a neutral history: the first message is a user
 * message; no two assistant messages are adjacent (except a paused turn's reply and its
 * continuation, which the Anthropic adapter merges); every tool_use is answered by a
 * tool_result in the very next message and every tool_result answers a tool_use of the
 * message right before it. Consecutive user messages are allowed: adapters merge them.
 * Returns the problems found (empty when valid).
 */
export function historyProblems(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  if (messages.length === 0) return problems;
  if (messages[0]!.role !== 'user') problems.push('the first message is not a user message');
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i]!;
    const prev = i > 0 ? messages[i - 1] : undefined;
    const next = messages[i + 1];
    if (msg.blocks.length === 0) problems.push(`message ${i} (${msg.id}) has no blocks`);
    if (msg.role === 'assistant') {
      // two replies of one turn side by side: a turn the provider paused (pause_turn) and the loop
      // continued, which the adapters send as one; after an interrupted reply or a "no reply"
      // marker (interrupted too) or a tool call, another reply is a fault
      if (prev?.role === 'assistant' && (prev.interrupted || toolUses(prev).length > 0))
        problems.push(`messages ${i - 1} and ${i} are both assistant messages`);
      if (toolResults(msg).length > 0) problems.push(`assistant message ${i} (${msg.id}) holds a tool_result`);
      const uses = toolUses(msg);
      if (uses.length > 0) {
        const answered = new Set(next && next.role === 'user' ? toolResults(next).map((r) => r.toolUseId) : []);
        for (const u of uses) {
          if (!answered.has(u.id)) problems.push(`tool_use ${u.id} in message ${i} has no tool_result in the next message`);
        }
      }
    } else {
      if (toolUses(msg).length > 0) problems.push(`user message ${i} (${msg.id}) holds a tool_use`);
      const results = toolResults(msg);
      if (results.length > 0) {
        const asked = new Set(prev && prev.role === 'assistant' ? toolUses(prev).map((u) => u.id) : []);
        for (const r of results) {
          if (!asked.has(r.toolUseId)) problems.push(`tool_result ${r.toolUseId} in message ${i} answers no tool_use of the message before`);
        }
      }
    }
  }
  return problems;
}
