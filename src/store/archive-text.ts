// How archived content reads as text: for the search index, for getArchived, and the short
// labels shown with search hits.
import type { ClearedOutput } from '../history/compaction.js';
import { isToolResultMessage, type Message } from '../llm/messages.js';
import { messageText as renderText, oneLine, speakerOf, type TextStyle, type ToolCalls } from '../llm/messageText.js';

const KEY_ARGS = ['command', 'pattern', 'query', 'path', 'file_path', 'url', 'id'];
const MAX_ARG_CHARS = 60;

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

const LABELS = { checkpoint: 'compaction summary', meta: 'agent note', assistant: 'assistant message', user: 'user message' } as const;

export function messageLabel(msg: Message, calls: ToolCalls): string {
  const speaker = speakerOf(msg);
  if (speaker !== 'tool_results') return LABELS[speaker];
  const described = msg.blocks.flatMap((b) => {
    if (b.type !== 'tool_result') return [];
    const call = calls.get(b.toolUseId);
    return [call ? describeCall(call.name, keyArgument(call.input)) : 'a tool'];
  });
  const first = described[0] ?? 'a tool';
  return described.length > 1 ? `tool results of ${first} and ${described.length - 1} more` : `tool result of ${first}`;
}

/** How archived messages read: tool calls with their input, results headed by the call they answer. */
const ARCHIVE_STYLE: TextStyle = {
  separator: '\n\n',
  toolUse: (b) => `[tool call ${b.name}] ${JSON.stringify(b.input)}`,
  toolResult: (b, call) => {
    const head = call ? describeCall(call.name, keyArgument(call.input)) : b.toolUseId;
    return `[${b.isError ? 'tool error' : 'tool result'} of ${head}]\n${b.content}`;
  },
};

/** A message as plain text: what is indexed and what getArchived returns. */
export const messageText = (msg: Message, calls: ToolCalls): string => renderText(msg, ARCHIVE_STYLE, calls);

export function clearedLabel(c: Pick<ClearedOutput, 'toolName' | 'summary'>): string {
  const arg = oneLine(c.summary, MAX_ARG_CHARS);
  return arg ? `${c.toolName} output \`${arg}\` (cleared)` : `${c.toolName} output (cleared)`;
}

/** Indexed text of a cleared output: the call it answered, then the original content. */
export const clearedIndexText = (c: Pick<ClearedOutput, 'toolName' | 'summary' | 'content'>): string => `[${c.toolName} ${c.summary}]\n${c.content}`;

const TITLE_CHARS = 80;

/** Title of a session from its first prompt: the first non-empty line, shortened at a word. */
export function titleFrom(msg: Message): string | null {
  if (msg.role !== 'user' || msg.kind !== 'normal' || isToolResultMessage(msg)) return null;
  const text = msg.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
  // a bracketed header line (a pinned note's, a shell note's) says nothing about the session
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '' && !/^\[.*\]$/.test(l));
  if (!line) return null;
  const flat = line.replace(/\s+/g, ' ');
  if (flat.length <= TITLE_CHARS) return flat;
  const cut = flat.slice(0, TITLE_CHARS - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > TITLE_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}
