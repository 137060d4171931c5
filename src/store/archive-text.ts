// How archived content reads as text: for the search index, for getArchived, and the short
// labels shown with search hits.
import type { ClearedOutput } from '../compaction/types.js';
import { isToolResultMessage, type Message, type ToolUseBlock } from '../llm/messages.js';

const KEY_ARGS = ['command', 'pattern', 'query', 'path', 'file_path', 'url', 'id'];
const MAX_ARG_CHARS = 60;

function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The key argument of a tool call (command, path, pattern...), for labels. */
export function keyArgument(input: Record<string, unknown>): string {
  for (const k of KEY_ARGS) {
    const v = input[k];
    if (typeof v === 'string' && v.trim() !== '') return oneLine(v, MAX_ARG_CHARS);
  }
  for (const v of Object.values(input)) {
    if (typeof v === 'string' && v.trim() !== '') return oneLine(v, MAX_ARG_CHARS);
  }
  return '';
}

const describeCall = (name: string, arg: string): string => (arg ? `${name} \`${arg}\`` : name);

/** Tool calls by id, so that a tool result can be described by the call it answers. */
export type ToolCalls = ReadonlyMap<string, Pick<ToolUseBlock, 'name' | 'input'>>;

export function collectToolCalls(messages: Iterable<Message>): Map<string, Pick<ToolUseBlock, 'name' | 'input'>> {
  const calls = new Map<string, Pick<ToolUseBlock, 'name' | 'input'>>();
  for (const m of messages) {
    for (const b of m.blocks) if (b.type === 'tool_use') calls.set(b.id, { name: b.name, input: b.input });
  }
  return calls;
}

export function messageLabel(msg: Message, calls: ToolCalls): string {
  if (msg.kind === 'checkpoint') return 'compaction summary';
  if (msg.kind === 'meta') return 'agent note';
  if (msg.role === 'assistant') return 'assistant message';
  if (!isToolResultMessage(msg)) return 'user message';
  const described = msg.blocks.flatMap((b) => {
    if (b.type !== 'tool_result') return [];
    const call = calls.get(b.toolUseId);
    return [call ? describeCall(call.name, keyArgument(call.input)) : 'a tool'];
  });
  const first = described[0] ?? 'a tool';
  return described.length > 1 ? `tool results of ${first} and ${described.length - 1} more` : `tool result of ${first}`;
}

/** A message as plain text: what is indexed and what getArchived returns. */
export function messageText(msg: Message, calls: ToolCalls): string {
  const parts = msg.blocks.map((b) => {
    switch (b.type) {
      case 'text':
        return b.text;
      case 'tool_use':
        return `[tool call ${b.name}] ${JSON.stringify(b.input)}`;
      case 'tool_result': {
        const call = calls.get(b.toolUseId);
        const head = call ? describeCall(call.name, keyArgument(call.input)) : b.toolUseId;
        return `[${b.isError ? 'tool error' : 'tool result'} of ${head}]\n${b.content}`;
      }
      case 'image':
        return `[image ${b.mediaType}]`;
    }
  });
  return parts.join('\n\n');
}

export function clearedLabel(c: Pick<ClearedOutput, 'toolName' | 'summary'>): string {
  const arg = oneLine(c.summary, MAX_ARG_CHARS);
  return arg ? `${c.toolName} output \`${arg}\` (cleared)` : `${c.toolName} output (cleared)`;
}

/** Indexed text of a cleared output: the call it answered, then the original content. */
export const clearedIndexText = (c: Pick<ClearedOutput, 'toolName' | 'summary' | 'content'>): string =>
  `[${c.toolName} ${c.summary}]\n${c.content}`;

const TITLE_CHARS = 80;

/** Title of a session from its first prompt: the first non-empty line, shortened at a word. */
export function titleFrom(msg: Message): string | null {
  if (msg.role !== 'user' || msg.kind !== 'normal' || isToolResultMessage(msg)) return null;
  const text = msg.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
  // a bracketed header line (a pinned note's, a shell note's) says nothing about the session
  const line = text.split('\n').map((l) => l.trim()).find((l) => l !== '' && !/^\[.*\]$/.test(l));
  if (!line) return null;
  const flat = line.replace(/\s+/g, ' ');
  if (flat.length <= TITLE_CHARS) return flat;
  const cut = flat.slice(0, TITLE_CHARS - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > TITLE_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}
