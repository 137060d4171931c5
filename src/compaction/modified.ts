import type { Message } from '../llm/messages.js';
import { TOOL } from '../tools/toolNames.js';

/** Tools whose `path` input names a file they change. */
export const FILE_EDIT_TOOLS: readonly string[] = [TOOL.Edit, TOOL.Write];

/** Files Edit or Write changed (the call succeeded) in these messages, in first-change order. */
export function modifiedFiles(messages: readonly Message[]): string[] {
  const failed = new Set<string>();
  for (const m of messages) for (const b of m.blocks) if (b.type === 'tool_result' && b.isError) failed.add(b.toolUseId);
  const out: string[] = [];
  for (const m of messages) {
    for (const b of m.blocks) {
      if (b.type !== 'tool_use' || !FILE_EDIT_TOOLS.includes(b.name) || failed.has(b.id)) continue;
      const p = b.input.path ?? b.input.file_path;
      if (typeof p === 'string' && p && !out.includes(p)) out.push(p);
    }
  }
  return out;
}
