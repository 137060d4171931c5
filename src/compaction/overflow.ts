import type { OverflowInfo } from '../llm/errors.js';
import type { Thresholds } from './budget.js';
import { fmt } from './guards.js';

/** Share of the provider's limit the compacted request may use: the margin absorbs estimate error. */
const TARGET_SHARE = 0.85;

export interface ReactiveSizing {
  overflow: OverflowInfo | undefined;
  /** Our calibrated estimate of the request that overflowed. */
  estimatedTokens: number;
  thresholds: Thresholds;
  /** What the compacted context holds besides the tail: system, tools, checkpoint, pinned. */
  fixedTokens: number;
  /** The normal tail budget (the ceiling). */
  tailTokens: number;
  /** 1 for the first reactive attempt of a turn. */
  attempt: number;
}

/**
 * The tail budget that closes the gap the provider reported, with a 15% margin (a requested
 * output the provider counted in is taken off both figures). The provider's figures are converted to our estimates' scale (promptTokens ÷ our estimate), so a tokenizer
 * mismatch does not leave the retry too big. Each further attempt halves the budget; without
 * figures even the first attempt keeps only half of it.
 */
export function reactiveTailBudget(s: ReactiveSizing): number {
  const { overflow, thresholds: t } = s;
  const attempt = Math.max(1, Math.floor(s.attempt));
  // when the provider counted the requested output in, the input's share is what must shrink
  const output = overflow?.requestedOutputTokens ?? 0;
  const prompt = overflow?.promptTokens !== undefined ? overflow.promptTokens - output : undefined;
  const limit = overflow?.limit !== undefined ? overflow.limit - output : undefined;
  const scale = prompt && prompt > 0 && s.estimatedTokens > 0 ? Math.min(4, Math.max(0.5, prompt / s.estimatedTokens)) : 1;
  let target: number;
  let shrink: number;
  if (limit && limit > 0) {
    target = Math.min(t.auto, (limit * TARGET_SHARE) / scale);
    shrink = 0.5 ** (attempt - 1);
  } else if (prompt && prompt > 0) {
    target = Math.min(t.auto, (t.effective * TARGET_SHARE) / scale);
    shrink = 0.5 ** (attempt - 1);
  } else {
    target = t.auto * TARGET_SHARE;
    shrink = 0.5 ** attempt;
  }
  return Math.max(0, Math.floor(Math.min(s.tailTokens, target - s.fixedTokens) * shrink));
}

export interface SilentOverflow {
  /** What happened, for the user and the logs. */
  message: string;
  /** Figures to hand to reactive compaction. */
  overflow: OverflowInfo;
}

/** Below this estimate a low report is not alarming (fixed per-request costs dominate). */
const LARGE_REQUEST_TOKENS = 4_000;
/** Growth of the estimate between two responses that a server's count must follow. */
const STALL_GROWTH_TOKENS = 500;
/** A report under this share of a large estimate means the server dropped part of the prompt. */
const TRUNCATION_SHARE = 0.6;

/**
 * Servers such as Ollama truncate an over-long prompt instead of failing. A reply whose
 * reported input exceeds the window, or falls far below a large estimate of what was sent,
 * is treated as an overflow.
 */
/** From this size on, a reply counted far below the estimate means the server dropped the start. */
export const largeRequestTokens = (contextWindow: number): number => Math.max(LARGE_REQUEST_TOKENS, contextWindow * 0.25);

export function detectSilentOverflow(a: {
  reported: number;
  estimated: number;
  contextWindow: number;
  /** The previous response of the same, growing conversation. */
  previous?: { reported: number; estimated: number } | undefined;
}): SilentOverflow | undefined {
  if (a.reported > a.contextWindow) {
    return {
      message: `the server reported ${fmt(a.reported)} input tokens, more than the model's ${fmt(a.contextWindow)}-token window`,
      overflow: { promptTokens: a.reported, limit: a.contextWindow },
    };
  }
  // A prompt that grew while the server's count did not: the server keeps only what fits its window.
  const p = a.previous;
  if (p && a.reported > 0 && a.estimated - p.estimated >= STALL_GROWTH_TOKENS && a.reported <= p.reported && a.estimated > a.reported) {
    return {
      message:
        `the server counted ${fmt(a.reported)} input tokens again although the conversation grew by about ${fmt(a.estimated - p.estimated)} tokens: ` +
        'it is probably truncating the prompt at its own context limit (such as Ollama num_ctx)',
      overflow: { promptTokens: a.estimated, limit: a.reported },
    };
  }
  const large = largeRequestTokens(a.contextWindow);
  if (a.estimated >= large && a.reported > 0 && a.reported < a.estimated * TRUNCATION_SHARE) {
    return {
      message:
        `the server counted ${fmt(a.reported)} input tokens for a request estimated at ${fmt(a.estimated)}: ` +
        'it probably dropped the start of the conversation (a server-side context limit such as Ollama num_ctx)',
      overflow: { promptTokens: a.estimated, limit: a.reported },
    };
  }
  return undefined;
}
