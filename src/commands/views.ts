// What /context, /cost and /permissions show, built from the session's figures.
import type { Session } from '../session/session.js';
import { costBreakdown } from '../session/pricing.js';
import type { CommandOutput, CostRow } from '../session/protocol.js';
import { contextBreakdown } from './contextBreakdown.js';

/** /context: where the window goes (the tokenizer is loaded for it). */
export async function contextView(session: Session): Promise<CommandOutput> {
  const p = await session.contextParts();
  return contextBreakdown(p.counter, p.system, p.tools, p.history, p.usage);
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
  return priced.length > 0 ? { kind: 'cost', rows, totalUsd: priced.reduce((s, r) => s + (r.usd ?? 0), 0) } : { kind: 'cost', rows };
}

/** /permissions: the mode, the configured rules and the choices remembered this session. */
export function permissionsView(session: Session): CommandOutput {
  const { mode, rules } = session.permissions();
  return { kind: 'permissions', mode, rules };
}
