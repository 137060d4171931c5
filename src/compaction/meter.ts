import type { Message } from '../llm/messages.js';
import type { ToolSpec } from '../llm/provider.js';
import type { Anchor, Calibration } from './guards.js';
import type { TokenCounter } from './tokens.js';
import { liveThinkingRaw, settledRaw, type ThinkingRoom } from './thinkingRoom.js';

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

/**
 * Tokens of a request: the anchor's figure plus calibrated estimates of what changed since
 * (appended messages, a rebuilt system prompt, thinking that stopped or started counting as a
 * turn ended or ran: thinkingRoom.ts), so the work follows what is new. Without a matching
 * anchor the whole history is estimated (memoized per message) and becomes the anchor.
 */
export function measure(counter: TokenCounter, parts: RequestParts, anchor: Anchor | undefined, ratio: number, room: ThinkingRoom = 'all'): Measurement {
  const systemRaw = counter.countSystem(parts.system);
  const toolsRaw = counter.countToolSpecs(parts.tools);
  const { history } = parts;
  const live = liveThinkingRaw(counter, history, room);
  if (anchorMatches(anchor, history)) {
    const newRaw = settledRaw(counter, history, room, anchor.count) + live - (anchor.liveThinking ?? 0);
    const delta = systemRaw - anchor.systemRaw + toolsRaw - anchor.toolsRaw + newRaw;
    return { tokens: Math.max(0, Math.round(anchor.tokens + ratio * delta)), systemRaw, toolsRaw, anchor, walked: history.length - anchor.count };
  }
  const rawMessages = settledRaw(counter, history, room) + live;
  const tokens = Math.round(ratio * (systemRaw + toolsRaw + rawMessages));
  const fresh =
    history.length > 0
      ? {
          count: history.length,
          firstId: history[0]!.id,
          lastId: history[history.length - 1]!.id,
          rawMessages,
          ...(live > 0 ? { liveThinking: live } : {}),
          systemRaw,
          toolsRaw,
          tokens,
          source: 'estimate' as const,
        }
      : undefined;
  return { tokens, systemRaw, toolsRaw, anchor: fresh, walked: history.length };
}

/** Uncalibrated estimate of a request's messages as the context holds them, reusing the anchor's sum when it is a prefix. */
export function rawMessagesOf(counter: TokenCounter, history: readonly Message[], anchor: Anchor | undefined, room: ThinkingRoom = 'all'): number {
  const live = liveThinkingRaw(counter, history, room);
  if (anchorMatches(anchor, history)) return anchor.rawMessages - (anchor.liveThinking ?? 0) + settledRaw(counter, history, room, anchor.count) + live;
  return settledRaw(counter, history, room) + live;
}

/** A request's uncalibrated estimates as it was sent: the parts, their sum, and the live thinking among its messages. */
export interface SentRaw {
  systemRaw: number;
  toolsRaw: number;
  /** The messages as the context held them (thinkingRoom.ts). */
  rawMessages: number;
  liveThinking: number;
  total: number;
}

/** Estimates a request as sent (its messages' sum reusing the anchor's when that is a prefix). */
export function sentRaw(counter: TokenCounter, sent: RequestParts, anchor: Anchor | undefined, room: ThinkingRoom): SentRaw {
  const systemRaw = counter.countSystem(sent.system);
  const toolsRaw = counter.countToolSpecs(sent.tools);
  const rawMessages = rawMessagesOf(counter, sent.history, anchor, room);
  return { systemRaw, toolsRaw, rawMessages, liveThinking: liveThinkingRaw(counter, sent.history, room), total: systemRaw + toolsRaw + rawMessages };
}

/** The anchor on the provider's count of a request (`r`: which messages it counted, and how many tokens), with the request's estimates. */
export function anchorOnCount(r: Pick<Anchor, 'count' | 'firstId' | 'lastId' | 'tokens'>, raw: SentRaw): Anchor {
  return {
    count: r.count,
    firstId: r.firstId,
    lastId: r.lastId,
    rawMessages: raw.rawMessages,
    ...(raw.liveThinking > 0 ? { liveThinking: raw.liveThinking } : {}),
    systemRaw: raw.systemRaw,
    toolsRaw: raw.toolsRaw,
    tokens: r.tokens,
    source: 'reported',
  };
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

/** Folds the provider's count of a request into the model's ratio; a count of nothing, or of a request too small to say (MIN_CALIBRATION_TOKENS), leaves it. */
export function calibrate(calibration: Record<string, Calibration>, model: string, reported: number, raw: number): void {
  if (reported > 0 && raw >= MIN_CALIBRATION_TOKENS) calibration[model] = updateCalibration(calibration[model], reported / raw);
}
