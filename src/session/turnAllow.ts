// A custom command's allowed-tools, as the tool gate reads them for the turn it runs.
import { bashAllowedByPrefixes, prefixWords } from '../tools/permissions.js';
import type { ToolSpecEntry } from '../tools/toolNames.js';
import { TOOL } from '../tools/toolNames.js';

/**
 * Whether the turn's entries allow a call: an entry without a rule allows the tool; a Bash rule
 * is a command prefix (`git add:*`, `npm test`), matched as permissions.allowBash is. Rules of
 * other tools (`Read(src/**)`) grant nothing: the call asks as usual.
 */
export function turnAllows(entries: readonly ToolSpecEntry[], tool: string, input: unknown): boolean {
  return entries.some((e) => {
    if (e.tool !== tool) return false;
    if (e.rule === undefined) return true;
    if (tool !== TOOL.Bash) return false;
    const command = (input as { command?: unknown } | null)?.command;
    const prefix = prefixWords(e.rule.replace(/\*$/, '').replace(/:$/, ''));
    return typeof command === 'string' && prefix !== undefined && bashAllowedByPrefixes(command, [prefix]);
  });
}
