import type { ModelLimits } from '../config/models.js';
import type { CompactionConfig } from '../config/schema.js';

/** The threshold ladder for one model, in tokens of the request's input. */
export interface Thresholds {
  contextWindow: number;
  /** Output reserve: min(max output tokens, reserveTokens). */
  reserve: number;
  /** contextWindow − reserve: what the input may use. */
  effective: number;
  /** Micro compaction (clearing old tool outputs) starts here. */
  micro: number;
  /** The gauge turns to "warning". */
  warning: number;
  /** Auto compaction fires. */
  auto: number;
  /** Compaction is forced before the request (cooldown no longer holds it back). */
  blocking: number;
  /** Factor (≤ 1) the configured buffers were scaled by to fit a small window. */
  bufferScale: number;
}

/** The largest buffer may take at most this share of the effective window. */
const MAX_BUFFER_SHARE = 0.4;

/**
 * The ladder: effective = window − min(max output, reserveTokens); each threshold is
 * effective minus its configured buffer. When the largest buffer exceeds 40% of the effective
 * window (an 8K or 32K local model), all buffers are scaled down by one factor, so every
 * threshold stays positive and the order (micro, warning) ≤ auto ≤ blocking ≤ effective holds.
 */
export function thresholds(limits: ModelLimits, cfg: CompactionConfig): Thresholds {
  const contextWindow = Math.max(1, Math.floor(limits.contextWindow));
  // A max output as large as the window would leave nothing for the input: keep half at least.
  const reserve = Math.min(limits.maxOutputTokens, cfg.reserveTokens, Math.floor(contextWindow / 2));
  const effective = contextWindow - reserve;
  const largest = Math.max(cfg.microBufferTokens, cfg.warningBufferTokens, cfg.autoBufferTokens, cfg.blockingBufferTokens);
  const room = effective * MAX_BUFFER_SHARE;
  const bufferScale = largest > room ? room / largest : 1;
  const at = (buffer: number): number => Math.max(0, effective - Math.floor(buffer * bufferScale));
  const blocking = at(cfg.blockingBufferTokens);
  const auto = Math.min(at(cfg.autoBufferTokens), blocking);
  const warning = Math.min(at(cfg.warningBufferTokens), auto);
  const micro = Math.min(at(cfg.microBufferTokens), auto, cfg.microWorkingSetTokens > 0 ? cfg.microWorkingSetTokens : Number.POSITIVE_INFINITY);
  return { contextWindow, reserve, effective, micro, warning, auto, blocking, bufferScale };
}

export type GaugeState = 'ok' | 'warning' | 'compact-soon' | 'blocking';

/** What the gauge renders (session/protocol.ts's ContextUsageView is this without thresholds). */
export interface ContextUsage {
  /** Estimated tokens the next request will carry. */
  tokens: number;
  contextWindow: number;
  effectiveWindow: number;
  /** Percent of the effective window left (0–100). */
  percentLeft: number;
  state: GaugeState;
  /** Percent of the effective window used at which auto compaction fires. */
  autoCompactAtPercent: number;
  autoCompactEnabled: boolean;
  /** The circuit breaker's, the exhausted state's or the thrash guard's message, when one applies. */
  notice?: string;
  /** A compaction written in the background (background.ts), until it is swapped in or ends. */
  compacting?: { trigger: 'auto' | 'manual'; startedAt: number; ready: boolean };
  thresholds: Thresholds;
}

/**
 * ok below warning; warning from the warning threshold; compact-soon from the auto threshold
 * (the next request compacts first, if auto compaction may run); blocking from the blocking one.
 */
export function gaugeState(tokens: number, t: Thresholds): GaugeState {
  if (tokens >= t.blocking) return 'blocking';
  if (tokens >= t.auto) return 'compact-soon';
  if (tokens >= t.warning) return 'warning';
  return 'ok';
}

export function contextUsage(
  tokens: number,
  t: Thresholds,
  opts: { autoCompactEnabled: boolean; notice?: string | undefined; compacting?: ContextUsage['compacting'] } = { autoCompactEnabled: true },
): ContextUsage {
  const left = t.effective > 0 ? ((t.effective - tokens) / t.effective) * 100 : 0;
  return {
    tokens,
    contextWindow: t.contextWindow,
    effectiveWindow: t.effective,
    percentLeft: clamp(Math.round(left), 0, 100),
    state: gaugeState(tokens, t),
    autoCompactAtPercent: t.effective > 0 ? clamp(Math.round((t.auto / t.effective) * 100), 0, 100) : 0,
    autoCompactEnabled: opts.autoCompactEnabled,
    ...(opts.notice !== undefined ? { notice: opts.notice } : {}),
    ...(opts.compacting ? { compacting: opts.compacting } : {}),
    thresholds: t,
  };
}

/** Budgets of what a compaction leaves behind, fitted to the window. */
export interface CompactionBudgets {
  /** Tokens of recent history kept verbatim. */
  tailTokens: number;
  /** Max output of the summarizer, i.e. the checkpoint's size. */
  summaryMaxTokens: number;
  /** All restored context (recent requests, re-read files). */
  restoreTokens: number;
  /** Per re-read file. */
  restoreFileTokens: number;
}

/** After a compaction the context should sit at most at this share of the auto threshold. */
const POST_COMPACTION_SHARE = 0.6;
/** Minimum summary output, however small the window. */
const MIN_SUMMARY_TOKENS = 256;

/**
 * The configured budgets, shrunk when they would not leave the compacted context well under
 * the auto threshold: of what the system prompt and tool schemas leave of 60% of the auto
 * threshold, the summary and the restored context may take 30% each and the tail 40%.
 * On a 200K window the configured values apply unchanged.
 */
export function compactionBudgets(t: Thresholds, cfg: CompactionConfig, fixedTokens: number, summarizerMaxOutput: number): CompactionBudgets {
  const room = Math.max(0, Math.floor(t.auto * POST_COMPACTION_SHARE) - fixedTokens);
  const summaryMaxTokens = Math.max(
    Math.min(MIN_SUMMARY_TOKENS, summarizerMaxOutput, cfg.summaryMaxTokens),
    Math.min(cfg.summaryMaxTokens, summarizerMaxOutput, Math.floor(room * 0.3)),
  );
  const restoreTokens = Math.min(cfg.restoreTokens, Math.floor(room * 0.3));
  return {
    tailTokens: Math.min(cfg.tailTokens, Math.floor(room * 0.4)),
    summaryMaxTokens,
    restoreTokens,
    restoreFileTokens: Math.min(cfg.restoreFileTokens, restoreTokens),
  };
}

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));
