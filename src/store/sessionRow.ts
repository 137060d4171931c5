import { decodeMeta } from './codec.js';
import type { SessionInfo } from './types.js';

export interface SessionRow {
  id: string;
  cwd: string;
  title: string | null;
  provider: string;
  model: string;
  created_at: number;
  updated_at: number;
  meta: string;
  message_count: number;
  visible_count: number;
  compaction_count: number;
  context_tokens: number | null;
  parent_id: string | null;
  parent_turn: string | null;
  parent_tool_use: string | null;
  agent: string | null;
}

export const SESSION_COLS =
  'id, cwd, title, provider, model, created_at, updated_at, meta, message_count, visible_count, compaction_count, context_tokens, parent_id, parent_turn, parent_tool_use, agent';

export function sessionInfo(r: SessionRow): SessionInfo {
  return {
    id: r.id,
    cwd: r.cwd,
    title: r.title,
    provider: r.provider,
    model: r.model,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    meta: decodeMeta(r.meta, r.id),
    messageCount: r.message_count,
    visibleCount: r.visible_count,
    compactionCount: r.compaction_count,
    contextTokens: r.context_tokens,
    ...(r.parent_id !== null ? { parent: { id: r.parent_id, turn: r.parent_turn ?? '', toolUseId: r.parent_tool_use ?? '', agent: r.agent ?? '' } } : {}),
  };
}
