// When micro compaction (clearing old tool outputs) is worth its effect on the prompt cache.
//
// Clearing an output rewrites the request from that output on: what the provider would have
// read from its cache (0.1× the input price) is written again (1.25×, or 2× for 1h). The
// oldest outputs are cleared first, so one clear costs about one rewrite of the whole context.
// Clearing a little at every step would turn every request into a rewrite. The rule:
//
// - caching off: clear once at least keepRecent outputs are clearable, or anything at the auto
//   threshold (no cache to keep);
// - cache cold (no request within the TTL: the next request writes everything anyway):
//   clear whatever there is, the rewrite is free;
// - cache warm: clear only a batch that frees at least WARM_MIN_SHARE of the context, so a
//   rewrite buys a lasting cut and happens rarely. This holds at the auto threshold too: a clear
//   too small to last would only put off the auto compaction by a step or two at the price of a
//   rewrite of the whole context, while the compaction (its summary read from the cache) leaves
//   a small context to write. When auto compaction cannot run or fails, whatever is clearable is
//   cleared all the same (the engine's fallback).

export type MicroPolicy = 'cache-aware' | 'every-call';

/** A warm cache is rewritten only for a clear that frees at least this share of the context. */
export const WARM_MIN_SHARE = 0.3;

export interface MicroDecision {
  /** Calibrated tokens of the next request. */
  tokens: number;
  /** The auto threshold. */
  auto: number;
  /** Calibrated tokens the clear would free. */
  savedTokens: number;
  /** Outputs it would clear. */
  cleared: number;
  keepRecent: number;
  /** Prompt caching: the cache entry's lifetime; undefined when caching is off. */
  cacheTtlMs: number | undefined;
  /** When the last response arrived (epoch ms); undefined: none in this session's memory. */
  lastResponseAt: number | undefined;
  now: number;
  policy?: MicroPolicy | undefined;
}

export function microWorthIt(d: MicroDecision): boolean {
  if (d.cleared <= 0 || d.savedTokens <= 0) return false;
  if (d.policy === 'every-call') return true;
  if (d.cacheTtlMs === undefined) return d.tokens >= d.auto || d.cleared >= Math.max(1, d.keepRecent);
  const cold = d.lastResponseAt === undefined || d.now - d.lastResponseAt >= d.cacheTtlMs;
  if (cold) return true;
  return d.savedTokens >= WARM_MIN_SHARE * d.tokens;
}
