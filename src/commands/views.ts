// What /context, /cost and /permissions show, built from the session's figures.
import type { Session } from '../session/session.js';
import { costBreakdown } from '../session/pricing.js';
import type { ChildCostRow, CommandOutput, CostRow } from '../protocol/views.js';
import { thinkingRoomOf } from '../compaction/thinkingRoom.js';
import { contextBreakdown } from './contextBreakdown.js';
import { MODE_MEANING } from '../tools/permissions.js';

/** /context: where the window goes (the tokenizer is loaded for it). */
export async function contextView(session: Session): Promise<CommandOutput> {
  const p = await session.contextParts();
  return contextBreakdown(p.counter, p.system, p.tools, p.history, p.usage, thinkingRoomOf(session.currentConfig.capabilities?.keepsThinking));
}

/** /cost: usage per model, priced where the price is known. */
export function costView(session: Session): CommandOutput {
  const rows: CostRow[] = Object.entries(session.usageByModel()).map(([model, usage]) => {
    const cost = costBreakdown(model, usage);
    return cost === undefined
      ? { model, usage }
      : { model, usage, usd: cost.total, cost: { input: cost.input, output: cost.output, cacheRead: cost.cacheRead, cacheWrite: cost.cacheWrite } };
  });
  const priced = rows.filter((r) => r.usd !== undefined);
  const children = session.subagentInfo().costs.map((c): ChildCostRow => {
    const models = Object.entries(c.cost);
    const tokens = models.reduce((s, [, u]) => s + u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens + u.outputTokens, 0);
    const usd = models.map(([m, u]) => costBreakdown(m, u)?.total);
    return usd.every((x) => x !== undefined) && usd.length > 0
      ? { id: c.id, label: c.label, tokens, usd: usd.reduce((s, x) => s + (x ?? 0), 0) }
      : { id: c.id, label: c.label, tokens };
  });
  const more = children.length > 0 ? { children } : {};
  return priced.length > 0 ? { kind: 'cost', rows, totalUsd: priced.reduce((s, r) => s + (r.usd ?? 0), 0), ...more } : { kind: 'cost', rows, ...more };
}

/** /agents: the agents in force, where each comes from, its model and tools. */
export function agentsView(session: Session): CommandOutput {
  const catalog = session.subagentInfo().catalog;
  if (!catalog) return { kind: 'agents', agents: [], warnings: [] };
  return { kind: 'agents', agents: catalog.rows(), warnings: [...catalog.warnings] };
}

/** /permissions: the mode, the configured rules and the choices remembered this session. */
export function permissionsView(session: Session): CommandOutput {
  const { mode, rules } = session.permissions();
  return { kind: 'permissions', mode, rules, meaning: MODE_MEANING[mode] };
}
