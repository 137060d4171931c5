import type { Message } from '../llm/messages.js';
import type { ToolSpec } from '../llm/provider.js';
import type { Anchor, Calibration } from './guards.js';
import type { TokenCounter } from './tokens.js';

/** What a request is made of, as far as its input size goes. */
export interface RequestParts {
  system: string;
  tools: readonly ToolSpec[];
  history: readonly Message[];
}

export interface Measurement {
  /** Calibrated tokens of the whole request. */
  tokens: number;
  systemRaw: number;
  toolsRaw: number;
  /** The anchor to keep for the next measure (the given one, or a fresh estimate). */
  anchor: Anchor | undefined;
  /** Messages estimated by this call (what was new since the anchor, or everything). */
  walked: number;
}

/** The anchor still describes a prefix of this history (same first message, same message at its end). */
export function anchorMatches<A extends Pick<Anchor, 'count' | 'firstId' | 'lastId'>>(anchor: A | undefined, history: readonly Message[]): anchor is A {
  if (!anchor || anchor.count <= 0 || history.length < anchor.count) return false;
  return history[0]!.id === anchor.firstId && history[anchor.count - 1]!.id === anchor.lastId;
}

function sumFrom(counter: TokenCounter, history: readonly Message[], from: number): number {
  let raw = 0;
  for (let i = from; i < history.length; i++) raw += counter.countMessage(history[i]!);
  return raw;
}

/**
 * Tokens of a request: the anchor's figure plus calibrated estimates of what changed since
 * (appended messages, a rebuilt system prompt), so the work follows what is new. Without a
 * matching anchor the whole history is estimated (memoized per message) and becomes the anchor.
 */
export function measure(counter: TokenCounter, parts: RequestParts, anchor: Anchor | undefined, ratio: number): Measurement {
  const systemRaw = counter.countSystem(parts.system);
  const toolsRaw = counter.countToolSpecs(parts.tools);
  const { history } = parts;
  if (anchorMatches(anchor, history)) {
    const newRaw = sumFrom(counter, history, anchor.count);
    const delta = systemRaw - anchor.systemRaw + toolsRaw - anchor.toolsRaw + newRaw;
    return { tokens: Math.max(0, Math.round(anchor.tokens + ratio * delta)), systemRaw, toolsRaw, anchor, walked: history.length - anchor.count };
  }
  const rawMessages = sumFrom(counter, history, 0);
  const tokens = Math.round(ratio * (systemRaw + toolsRaw + rawMessages));
  const fresh =
    history.length > 0
      ? {
          count: history.length,
          firstId: history[0]!.id,
          lastId: history[history.length - 1]!.id,
          rawMessages,
          systemRaw,
          toolsRaw,
          tokens,
          source: 'estimate' as const,
        }
      : undefined;
  return { tokens, systemRaw, toolsRaw, anchor: fresh, walked: history.length };
}

/** Uncalibrated estimate of a request's messages, reusing the anchor's sum when it is a prefix. */
export function rawMessagesOf(counter: TokenCounter, history: readonly Message[], anchor: Anchor | undefined): number {
  if (anchorMatches(anchor, history)) return anchor.rawMessages + sumFrom(counter, history, anchor.count);
  return sumFrom(counter, history, 0);
}

/** Ratios outside this range are not tokenizer drift but something else (truncation, a bug). */
const MIN_RATIO = 0.5;
const MAX_RATIO = 3;
/** Requests smaller than this are dominated by fixed framing: they do not calibrate. */
export const MIN_CALIBRATION_TOKENS = 1_000;

/**
 * Folds one observation (reported ÷ estimated) into the ratio: a running mean over the first
 * samples, then an exponential average that follows drift without jumping on one odd reply.
 */
export function updateCalibration(current: Calibration | undefined, observed: number): Calibration {
  const o = Math.min(MAX_RATIO, Math.max(MIN_RATIO, observed));
  if (!current || current.samples <= 0) return { ratio: o, samples: 1 };
  const weight = Math.max(0.2, 1 / (current.samples + 1));
  return { ratio: current.ratio + (o - current.ratio) * weight, samples: current.samples + 1 };
}
