// A running child as plain data (the state machine the UI rows and /cost read): what it is,
// where it stands, what it has used. Transitions are pure functions; nothing hides in closures.
import type { TodoView as Todo } from '../protocol/views.js';
import type { AgentDefinition } from './agents.js';

export type ChildStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

export interface ChildState {
  /** The Task call's tool_use id in the parent. */
  toolUseId: string;
  /** The child session's id (known once it starts). */
  sessionId?: string;
  agent: string;
  description: string;
  model?: string;
  status: ChildStatus;
  /** Tool calls the child has made. */
  toolCalls: number;
  /** The child's latest tool call, as a short line. */
  lastTool?: string;
  /** Input + output tokens over all its model calls. */
  tokens: number;
  startedAt: number;
  endedAt?: number;
  /** Why it failed or was cancelled. */
  error?: string;
  /** The child's own task list, as its last TodoWrite set it (shown under its row). */
  todos?: readonly Todo[];
}

export type ChildUpdate =
  | { type: 'started'; sessionId: string; model: string; at: number }
  | { type: 'tool'; line: string }
  | { type: 'tokens'; tokens: number }
  | { type: 'todos'; todos: readonly Todo[] }
  | { type: 'ended'; status: 'done' | 'failed' | 'cancelled'; at: number; error?: string };

export function queuedChild(toolUseId: string, agent: AgentDefinition, description: string, at: number): ChildState {
  return { toolUseId, agent: agent.name, description, status: 'queued', toolCalls: 0, tokens: 0, startedAt: at };
}

export function nextChildState(s: ChildState, u: ChildUpdate): ChildState {
  switch (u.type) {
    case 'started':
      return { ...s, status: 'running', sessionId: u.sessionId, model: u.model, startedAt: u.at };
    case 'tool':
      return { ...s, toolCalls: s.toolCalls + 1, lastTool: u.line };
    case 'tokens':
      return { ...s, tokens: s.tokens + u.tokens };
    case 'todos':
      return { ...s, todos: u.todos };
    case 'ended':
      return { ...s, status: u.status, endedAt: u.at, ...(u.error !== undefined ? { error: u.error } : {}) };
  }
}

/** The live line under a Task row: "3 tools · 12.4k tokens · claude-haiku-4-5 · FileRead src/a.ts" ("waiting for a slot" while queued). */
export function progressLine(s: ChildState): string {
  if (s.status === 'queued') return 'waiting for a slot (agents.parallel)';
  const tokens = s.tokens >= 1000 ? `${(s.tokens / 1000).toFixed(1)}k` : String(s.tokens);
  const parts = [`${s.toolCalls} tool${s.toolCalls === 1 ? '' : 's'}`, `${tokens} tokens`];
  if (s.model) parts.push(s.model);
  if (s.status !== 'running') parts.push(s.status);
  else if (s.lastTool) parts.push(s.lastTool.split('\n')[0]!);
  return parts.join(' · ');
}
