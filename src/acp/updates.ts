import { isAbsolute, resolve } from 'node:path';
import type { PlanEntry, SessionUpdate, ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import type { TodoView } from '../protocol/views.js';
import type { Message } from '../llm/messages.js';
import { TOOL } from '../tools/toolNames.js';

// The session's tool calls and messages as ACP session updates: a tool's kind (read, edit,
// execute, search…), the files it touches (locations), an edit as a diff, its output as content.

const KINDS: Record<string, ToolKind> = {
  [TOOL.FileRead]: 'read',
  [TOOL.Edit]: 'edit',
  [TOOL.Write]: 'edit',
  [TOOL.Bash]: 'execute',
  [TOOL.Grep]: 'search',
  [TOOL.Glob]: 'search',
  [TOOL.Recall]: 'search',
  [TOOL.Task]: 'think',
};

export const acpKind = (name: string): ToolKind => KINDS[name] ?? (name.startsWith('mcp__') ? 'other' : 'other');

const field = (input: unknown, key: string): unknown => (input !== null && typeof input === 'object' ? (input as Record<string, unknown>)[key] : undefined);
const str = (input: unknown, key: string): string | undefined => {
  const v = field(input, key);
  return typeof v === 'string' ? v : undefined;
};

/** The file a call reads or changes, absolute. */
export function toolLocations(input: unknown, cwd: string): ToolCallLocation[] {
  const path = str(input, 'path') ?? str(input, 'file_path');
  if (!path) return [];
  const line = field(input, 'offset');
  return [{ path: isAbsolute(path) ? path : resolve(cwd, path), ...(typeof line === 'number' ? { line } : {}) }];
}

/** An edit's change as ACP's diff: Edit's replaced text, Write's whole new content. */
export function editDiff(name: string, input: unknown, cwd: string): ToolCallContent[] {
  const [loc] = toolLocations(input, cwd);
  if (!loc) return [];
  if (name === TOOL.Edit) {
    const oldText = str(input, 'old_string');
    const newText = str(input, 'new_string');
    if (oldText === undefined || newText === undefined) return [];
    return [{ type: 'diff', path: loc.path, oldText, newText }];
  }
  if (name === TOOL.Write) {
    const content = str(input, 'content');
    return content === undefined ? [] : [{ type: 'diff', path: loc.path, oldText: null, newText: content }];
  }
  return [];
}

/** The task list as ACP's plan: its statuses are pending, in_progress and completed, so a cancelled item is settled (completed) and a blocked one waits (pending), each saying so. */
export const planEntries = (todos: readonly TodoView[]): PlanEntry[] =>
  todos.map((t) => ({
    content: t.status === 'cancelled' || t.status === 'blocked' ? `${t.content} (${t.status})` : t.content,
    // the list has no priorities: every item is of the same weight
    priority: 'medium',
    status: t.status === 'cancelled' ? 'completed' : t.status === 'blocked' ? 'pending' : t.status,
  }));

/** What the person sees as the call's title: its key argument. */
export function toolTitle(name: string, summary: string): string {
  return summary ? `${name}: ${summary}` : name;
}

export const textContent = (text: string): ToolCallContent[] => (text ? [{ type: 'content', content: { type: 'text', text } }] : []);

/** A stored history as the updates that show it again (session/load): the turns, the calls and their results. */
export function replayUpdates(messages: readonly Message[], cwd: string): SessionUpdate[] {
  const out: SessionUpdate[] = [];
  const calls = new Map<string, string>();
  for (const m of messages) {
    for (const b of m.blocks) {
      if (b.type === 'text' && b.text) {
        if (m.role === 'assistant') out.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: b.text } });
        else if (m.kind === 'normal') out.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: b.text } });
        else if (m.kind === 'checkpoint')
          out.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `(compacted earlier history)\n${b.text}` } });
      } else if (b.type === 'thinking' && b.thinking) {
        out.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: b.thinking } });
      } else if (b.type === 'tool_use') {
        calls.set(b.id, b.name);
        out.push({
          sessionUpdate: 'tool_call',
          toolCallId: b.id,
          title: b.name,
          kind: acpKind(b.name),
          status: 'pending',
          rawInput: b.input,
          locations: toolLocations(b.input, cwd),
          content: editDiff(b.name, b.input, cwd),
        });
      } else if (b.type === 'tool_result' && calls.has(b.toolUseId)) {
        out.push({
          sessionUpdate: 'tool_call_update',
          toolCallId: b.toolUseId,
          status: b.isError ? 'failed' : 'completed',
          content: textContent(b.content),
        });
      } else if (b.type === 'image' && m.role === 'user' && m.kind === 'normal') {
        out.push({ sessionUpdate: 'user_message_chunk', content: { type: 'image', mimeType: b.mediaType, data: b.data } });
      }
    }
  }
  return out;
}
