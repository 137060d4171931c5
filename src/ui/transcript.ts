// The finished things the transcript shows. Each item is rendered once (through <Static>) and
// never changes afterwards, so everything it needs is captured when it is created. What a
// message is (a `!command`'s note, a date note, an attachment, a custom command as typed…) is
// read from its origin, set by whoever made it (llm/messages.ts), never from its text.
import type { CompactionRecord, CompactionTrigger } from '../history/compaction.js';
import type { Message, MessageOrigin, ToolResultBlock } from '../llm/messages.js';
import { isToolResultMessage, textOf, toolUses } from '../llm/messages.js';
import { SHELL_ROW_NAME, type CommandOutput } from '../protocol/views.js';
import { searchItems, type SearchItem } from './search-text.js';

export { searchItems } from './search-text.js';

export type ToolStatus = 'running' | 'done' | 'error' | 'denied' | 'interrupted';

export type TranscriptItem =
  /** `attachments`: what @mentions attached ("src/cli.ts: read with FileRead"). */
  | { kind: 'user'; id: string; text: string; attachments?: string[] }
  /** `continued`: a later block of a reply whose beginning was printed while it streamed. */
  | { kind: 'assistant'; id: string; text: string; interrupted: boolean; continued?: boolean }
  | {
      kind: 'tool';
      id: string;
      toolUseId: string;
      name: string;
      summary: string;
      status: Exclude<ToolStatus, 'running'>;
      durationMs?: number;
      output: string;
      /** Tokens of an output that compaction cleared (its content is now a placeholder). */
      clearedTokens?: number;
      /** Everything the tool printed, when the model's copy (`output`) was cut: Ctrl-O shows it. */
      fullOutput?: string;
    }
  | { kind: 'tool_output'; id: string; name: string; summary: string; output: string }
  | { kind: 'checkpoint'; id: string; text: string }
  /** What the model thought before a reply: one collapsed line, or whole (expanded: Ctrl+O). */
  | { kind: 'thinking'; id: string; text: string; tokens: number; expanded?: boolean }
  | { kind: 'meta'; id: string; text: string }
  | { kind: 'compaction'; id: string; record: CompactionRecord }
  | { kind: 'compaction_skipped'; id: string; trigger: CompactionTrigger; reason: string }
  | { kind: 'notice'; id: string; level: 'info' | 'warning' | 'error'; text: string }
  | { kind: 'error'; id: string; text: string }
  | { kind: 'retry'; id: string; text: string }
  | { kind: 'command'; id: string; command: string; output: Exclude<CommandOutput, { kind: 'picker' | 'models' }> }
  | { kind: 'approval_detail'; id: string; toolName: string; summary: string }
  | SearchItem;

export type ToolItem = Extract<TranscriptItem, { kind: 'tool' }>;
export type ThinkingItem = Extract<TranscriptItem, { kind: 'thinking' }>;

let counter = 0;
/** Keys for React: unique within the process. */
export const itemId = (): string => `i${(counter++).toString(36)}`;

/**
 * Turns a stored history (a resumed session) into transcript items. Tool calls become rows
 * whose status comes from their results; the result messages themselves are not shown.
 * Compaction records are interleaved by time.
 */
export function messagesToItems(messages: readonly Message[], compactions: readonly CompactionRecord[] = []): TranscriptItem[] {
  const results = new Map<string, ToolResultBlock>();
  for (const m of messages) {
    if (m.role !== 'user') continue;
    for (const b of m.blocks) if (b.type === 'tool_result') results.set(b.toolUseId, b);
  }
  const records = [...compactions].sort((a, b) => a.createdAt - b.createdAt);
  let r = 0;
  const items: TranscriptItem[] = [];
  for (const m of messages) {
    while (r < records.length && records[r]!.createdAt <= m.createdAt) {
      items.push({ kind: 'compaction', id: itemId(), record: records[r]! });
      r++;
    }
    items.push(...messageItems(m, results));
  }
  for (; r < records.length; r++) items.push({ kind: 'compaction', id: itemId(), record: records[r]! });
  return items;
}

function messageItems(m: Message, results: ReadonlyMap<string, ToolResultBlock>): TranscriptItem[] {
  if (m.role === 'user') {
    if (isToolResultMessage(m)) return [];
    if (m.origin?.kind === 'shell') return [shellItem(m.id, m.origin)];
    // the person knows the date
    if (m.origin?.kind === 'date_note') return [];
    const text = userText(m);
    if (m.kind === 'checkpoint') return [{ kind: 'checkpoint', id: itemId(), text }];
    if (m.kind === 'meta') return [{ kind: 'meta', id: itemId(), text }];
    const attachments = m.blocks.flatMap((b) => (b.type === 'text' && b.origin?.kind === 'attachment' ? [b.origin.label] : []));
    if (text.trim() === '') return [];
    return [attachments.length > 0 ? { kind: 'user', id: itemId(), text, attachments } : { kind: 'user', id: itemId(), text }];
  }
  const none = noReplyItem(m);
  if (none) return [none];
  const out: TranscriptItem[] = [];
  const thought = thinkingItem(m);
  if (thought) out.push(thought);
  const text = textOf(m);
  if (text.trim() !== '' || m.interrupted) out.push({ kind: 'assistant', id: itemId(), text, interrupted: m.interrupted === true });
  out.push(...searchItems(m, itemId));
  for (const use of toolUses(m)) {
    const result = results.get(use.id);
    const item: ToolItem = {
      kind: 'tool',
      id: itemId(),
      toolUseId: use.id,
      name: use.name,
      summary: keyArgument(use.input),
      status:
        result === undefined || result.outcome === 'interrupted'
          ? 'interrupted'
          : result.outcome === 'denied' || result.outcome === 'stopped'
            ? 'denied'
            : result.isError
              ? 'error'
              : 'done',
      output: result?.content ?? '',
    };
    if (result?.cleared) item.clearedTokens = result.cleared.originalTokens;
    out.push(item);
  }
  // the person denied a call and ended the turn there: the line the turn ended with, as it was shown
  if (toolUses(m).some((u) => results.get(u.id)?.outcome === 'stopped')) {
    out.push({ kind: 'notice', id: itemId(), level: 'info', text: STOPPED_NOTICE });
  }
  return out;
}

/** The line a turn the person stopped at a denial ends with (turn-end.ts shows it live). */
export const STOPPED_NOTICE = 'Stopped: you denied the call and ended the turn';

/**
 * An assistant message that holds no reply (a turn interrupted before the model wrote anything,
 * or the marker left for an unanswered prompt) is no model reply: it is shown as a notice.
 */
export function noReplyItem(m: Message): TranscriptItem | null {
  if (m.role !== 'assistant' || !m.interrupted || toolUses(m).length > 0) return null;
  if (textOf(m).trim() !== '' && m.origin?.kind !== 'unanswered') return null;
  return { kind: 'notice', id: itemId(), level: 'info', text: 'Interrupted before the model replied' };
}

/** The thinking of a reply as one item (its readable text; tokens as the provider reported them, else estimated). */
export function thinkingItem(m: Message): ThinkingItem | undefined {
  const parts = m.blocks.flatMap((b) => (b.type === 'thinking' ? [b.thinking] : b.type === 'reasoning' ? b.summary : []));
  const hidden = m.blocks.some((b) => b.type === 'redacted_thinking' || (b.type === 'thinking' && b.thinking === ''));
  if (parts.every((p) => p.trim() === '') && !hidden) return undefined;
  const text = parts.filter((p) => p.trim() !== '').join('\n\n');
  return { kind: 'thinking', id: itemId(), text, tokens: m.usage?.thinkingTokens ?? Math.ceil(text.length / 4) };
}

/** A `!command` the person ran, shown as the tool row it was when it ran. */
function shellItem(messageId: string, n: Extract<MessageOrigin, { kind: 'shell' }>): ToolItem {
  return { kind: 'tool', id: itemId(), toolUseId: messageId, name: SHELL_ROW_NAME, summary: n.command, status: n.status, output: n.output };
}

/** What the person typed (a custom command as typed), hooks' context as it came; not the attachments (a line of their own) nor the plan-mode note. */
function userText(m: Message): string {
  const parts: string[] = [];
  for (const b of m.blocks) {
    if (b.type === 'text') {
      if (b.origin === undefined || b.origin.kind === 'hook_context') parts.push(b.text);
      else if (b.origin.kind === 'typed_command') parts.push(b.origin.typed);
    } else if (b.type === 'image') parts.push(`[image ${b.mediaType}]`);
  }
  return parts.join('\n');
}

const KEY_FIELDS = ['command', 'file_path', 'path', 'pattern', 'query', 'id', 'url'];

/**
 * The argument a tool row shows when the tool's own summary is not at hand (a resumed history
 * carries only the raw input): the first well-known field, else the first short string.
 */
export function keyArgument(input: unknown): string {
  if (typeof input !== 'object' || input === null) return '';
  const rec = input as Record<string, unknown>;
  // a Task call: its description, and its agent when one is named (as the tool summarizes it)
  if (typeof rec['description'] === 'string' && typeof rec['prompt'] === 'string')
    return typeof rec['agent'] === 'string' ? `${rec['agent']}: ${rec['description']}` : rec['description'];
  for (const k of KEY_FIELDS) {
    const v = rec[k];
    if (typeof v === 'string' && v !== '') return v;
  }
  for (const v of Object.values(rec)) if (typeof v === 'string' && v !== '') return v;
  return '';
}

export interface Preview {
  /** The first meaningful line. */
  line: string;
  /** Lines not shown. */
  more: number;
}

/** The first non-blank line of a (sanitized) output and how many lines follow it. */
export function previewOf(output: string): Preview {
  const lines = output.replace(/\s+$/, '').split('\n');
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first === -1) return { line: '', more: 0 };
  return { line: lines[first]!.trim(), more: lines.length - first - 1 };
}
