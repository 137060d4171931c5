// Micro compaction's plan within the engine: which old tool outputs a clear would take, the
// context after it, whether that is worth breaking the cached prompt for now (microPolicy.ts),
// and the outcome that commits it. Nothing is committed here: the outcome goes back through the
// engine to the session.
import type { CompactionConfig } from '../config/schema.js';
import type { Thresholds } from './budget.js';
import type { CompactionContext, EngineDeps } from './engineDeps.js';
import type { Measurement } from './meter.js';
import { applyMicro, selectMicro, type MicroResult } from './micro.js';
import { microWorthIt } from './microPolicy.js';
import { bareRecord, type Emit, type Outcome } from './outcome.js';

export interface MicroPlan {
  result: MicroResult;
  tokensAfter: number;
}

/** Which old tool outputs micro compaction would clear, and the context after; undefined when none. */
export function planMicro(
  deps: EngineDeps,
  cfg: CompactionConfig,
  ratio: number,
  ctx: CompactionContext,
  measured: Measurement,
  minBatch: number,
): MicroPlan | undefined {
  const { counter } = deps;
  const candidates = selectMicro(
    ctx.history,
    {
      compactableTools: deps.compactableTools,
      keepRecent: cfg.microKeepRecent,
      ...(deps.describeToolUse ? { describe: deps.describeToolUse } : {}),
    },
    counter,
  );
  if (candidates.length < minBatch) return undefined;
  const result = applyMicro(ctx.history, candidates, counter);
  if (result.savedRaw <= 0) return undefined;
  return { result, tokensAfter: Math.max(0, Math.round(measured.tokens - ratio * result.savedRaw)) };
}

/** Whether clearing is worth it now (microPolicy.ts), given the cache and the thresholds. */
export function microWorth(
  deps: EngineDeps,
  cfg: CompactionConfig,
  ladder: Thresholds,
  plan: MicroPlan,
  tokens: number,
  at: { lastResponseAt: number | undefined; now: number },
): boolean {
  return microWorthIt({
    tokens,
    auto: ladder.auto,
    savedTokens: tokens - plan.tokensAfter,
    cleared: plan.result.cleared.length,
    keepRecent: cfg.microKeepRecent,
    cacheTtlMs: deps.cacheTtlMs,
    lastResponseAt: at.lastResponseAt,
    now: at.now,
    policy: deps.microPolicy,
  });
}

/** The outcome that clears the plan's outputs (revision records of the cleared messages). */
export function microOutcome(ctx: CompactionContext, measured: Measurement, plan: MicroPlan, now: () => number, emit: Emit): Outcome {
  const { result } = plan;
  const started = now();
  emit({ type: 'compaction_start', trigger: 'micro', tokensBefore: measured.tokens });
  const record = bareRecord(now(), 'micro', measured.tokens, started, {
    status: 'applied',
    tokensAfter: plan.tokensAfter,
    archivedCount: result.cleared.length,
    preservedCount: ctx.history.length,
    method: 'none',
  });
  const revisions = result.replaced.map((m) => ({ id: m.id, blocks: m.blocks }));
  return { record, commit: { record, body: { revisions }, added: [], cleared: result.cleared } };
}
