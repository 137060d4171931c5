// The session's saved state (the session row's meta): typed and versioned. Reading is
// forgiving — a field of the wrong shape is dropped (and logged), never fatal — because a
// database may hold what an older or newer build wrote.
import type { OverflowInfo } from '../llm/errors.js';
import type { Usage } from '../llm/messages.js';
import { debug } from '../log.js';

export const STATE_VERSION = 1;

export interface SessionState {
  version: typeof STATE_VERSION;
  /** The compaction engine's own state (guards, calibration, anchor): it normalizes what it reads. */
  compaction?: unknown;
  /** Usage by model, summaries included (/cost). */
  cost: Record<string, Usage>;
  /** Approvals given "for the session" (the permission policy normalizes them). */
  permissions?: unknown;
  /** A window the provider revealed (an overflow error, a silent truncation), smaller than configured. */
  providerWindow?: { model: string; tokens: number };
  /** A silent overflow seen after the last reply of a turn: compact before the next request. */
  pendingOverflow?: OverflowInfo;
  /** The capabilities' slices, by key (each reads its own forgivingly). */
  capabilities?: Record<string, unknown>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

function readUsage(v: unknown): Usage | undefined {
  if (!isRecord(v)) return undefined;
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, cacheWrite1hTokens, thinkingTokens } = v;
  if (![inputTokens, outputTokens].every(isCount)) return undefined;
  return {
    inputTokens: inputTokens as number,
    outputTokens: outputTokens as number,
    cacheReadTokens: isCount(cacheReadTokens) ? cacheReadTokens : 0,
    cacheWriteTokens: isCount(cacheWriteTokens) ? cacheWriteTokens : 0,
    ...(isCount(cacheWrite1hTokens) && cacheWrite1hTokens > 0 ? { cacheWrite1hTokens } : {}),
    ...(isCount(thinkingTokens) && thinkingTokens > 0 ? { thinkingTokens } : {}),
  };
}

/** The state saved in a session row's meta (an empty object for a new session). */
export function readState(meta: Record<string, unknown>, sessionId: string): SessionState {
  const dropped: string[] = [];
  const state: SessionState = { version: STATE_VERSION, cost: {} };
  if (meta.compaction !== undefined) state.compaction = meta.compaction;
  if (meta.permissions !== undefined) state.permissions = meta.permissions;
  if (isRecord(meta.cost)) {
    for (const [model, u] of Object.entries(meta.cost)) {
      const usage = readUsage(u);
      if (usage) state.cost[model] = usage;
      else dropped.push(`cost.${model}`);
    }
  } else if (meta.cost !== undefined) dropped.push('cost');
  const w = meta.providerWindow;
  if (isRecord(w) && typeof w.model === 'string' && isCount(w.tokens) && w.tokens > 0) state.providerWindow = { model: w.model, tokens: w.tokens };
  else if (w !== undefined) dropped.push('providerWindow');
  const o = meta.pendingOverflow;
  if (isRecord(o) && [o.promptTokens, o.limit, o.requestedOutputTokens].every((x) => x === undefined || isCount(x))) state.pendingOverflow = o as OverflowInfo;
  else if (o !== undefined) dropped.push('pendingOverflow');
  if (isRecord(meta.capabilities)) state.capabilities = meta.capabilities;
  else if (meta.capabilities !== undefined) dropped.push('capabilities');
  if (dropped.length > 0) debug('dropped malformed saved state', { session: sessionId, fields: dropped });
  return state;
}

/** The meta object to store. */
export function stateMeta(s: SessionState): Record<string, unknown> {
  return {
    version: s.version,
    ...(s.compaction !== undefined ? { compaction: s.compaction } : {}),
    cost: s.cost,
    ...(s.permissions !== undefined ? { permissions: s.permissions } : {}),
    ...(s.providerWindow ? { providerWindow: s.providerWindow } : {}),
    ...(s.pendingOverflow ? { pendingOverflow: s.pendingOverflow } : {}),
    ...(s.capabilities ? { capabilities: s.capabilities } : {}),
  };
}
