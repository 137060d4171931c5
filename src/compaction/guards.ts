import type { CompactionConfig } from '../config/schema.js';
import type { Thresholds } from './budget.js';

/** Per-model ratio of reported ÷ estimated input tokens. */
export interface Calibration {
  ratio: number;
  samples: number;
}

/**
 * Where the last measured request stood: its first and last message ids and its size, so the
 * next measure only estimates what was appended since (see meter.ts).
 */
export interface Anchor {
  /** Messages the anchored request held. */
  count: number;
  firstId: string;
  lastId: string;
  /** Uncalibrated estimate of those messages. */
  rawMessages: number;
  /** Uncalibrated estimates of the system prompt and tool schemas it was sent with. */
  systemRaw: number;
  toolsRaw: number;
  /** Tokens of the whole request: reported by the provider, or a calibrated estimate. */
  tokens: number;
  source: 'reported' | 'estimate';
}

/**
 * The engine's memory across turns: plain JSON, stored by the session in the session's meta
 * so that a resumed session keeps its cadence (breaker, cooldown, calibration, ...).
 */
export interface CompactionState {
  version: 1;
  /** Consecutive failed auto compactions. */
  consecutiveFailures: number;
  /** Auto compaction is off for the session after maxFailures consecutive failures. */
  breakerOpen: boolean;
  breakerTold: boolean;
  lastFailure?: string;
  /** Turns left during which auto compaction waits (unless the context reaches blocking). */
  cooldownTurnsLeft: number;
  /** Compaction cannot bring the context under the auto threshold. */
  exhausted: boolean;
  exhaustedTold: boolean;
  exhaustedTokens?: number;
  /** Auto/reactive compactions since the last model response or finished turn. */
  compactionsWithoutProgress: number;
  thrashStopped: boolean;
  thrashTold: boolean;
  calibration: Record<string, Calibration>;
  anchor?: Anchor;
  /** When the last model response arrived (epoch ms): whether the provider's prompt cache is still warm. */
  lastResponseAt?: number;
}

/** Compactions in a row with no progress between them that stop auto compaction. */
export const THRASH_LIMIT = 3;

export function initialState(): CompactionState {
  return {
    version: 1,
    consecutiveFailures: 0,
    breakerOpen: false,
    breakerTold: false,
    cooldownTurnsLeft: 0,
    exhausted: false,
    exhaustedTold: false,
    compactionsWithoutProgress: 0,
    thrashStopped: false,
    thrashTold: false,
    calibration: {},
  };
}

/** Reads a stored state defensively: unknown or malformed fields fall back to their defaults. */
export function normalizeState(raw: unknown): CompactionState {
  const s = initialState();
  if (!isRecord(raw)) return s;
  const num = (v: unknown, d: number): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : d);
  const bool = (v: unknown): boolean => v === true;
  s.consecutiveFailures = Math.floor(num(raw.consecutiveFailures, 0));
  s.breakerOpen = bool(raw.breakerOpen);
  s.breakerTold = bool(raw.breakerTold);
  if (typeof raw.lastFailure === 'string') s.lastFailure = raw.lastFailure;
  s.cooldownTurnsLeft = Math.floor(num(raw.cooldownTurnsLeft, 0));
  s.exhausted = bool(raw.exhausted);
  s.exhaustedTold = bool(raw.exhaustedTold);
  if (typeof raw.exhaustedTokens === 'number') s.exhaustedTokens = num(raw.exhaustedTokens, 0);
  s.compactionsWithoutProgress = Math.floor(num(raw.compactionsWithoutProgress, 0));
  s.thrashStopped = bool(raw.thrashStopped);
  s.thrashTold = bool(raw.thrashTold);
  if (typeof raw.lastResponseAt === 'number' && Number.isFinite(raw.lastResponseAt)) s.lastResponseAt = raw.lastResponseAt;
  if (isRecord(raw.calibration)) {
    for (const [model, c] of Object.entries(raw.calibration)) {
      if (isRecord(c) && typeof c.ratio === 'number' && c.ratio > 0 && Number.isFinite(c.ratio)) {
        s.calibration[model] = { ratio: c.ratio, samples: Math.floor(num(c.samples, 1)) };
      }
    }
  }
  const a = raw.anchor;
  if (
    isRecord(a) &&
    typeof a.firstId === 'string' &&
    typeof a.lastId === 'string' &&
    typeof a.count === 'number' &&
    typeof a.rawMessages === 'number' &&
    typeof a.systemRaw === 'number' &&
    typeof a.toolsRaw === 'number' &&
    typeof a.tokens === 'number' &&
    (a.source === 'reported' || a.source === 'estimate')
  ) {
    s.anchor = {
      count: a.count,
      firstId: a.firstId,
      lastId: a.lastId,
      rawMessages: a.rawMessages,
      systemRaw: a.systemRaw,
      toolsRaw: a.toolsRaw,
      tokens: a.tokens,
      source: a.source,
    };
  }
  return s;
}

export type AutoDecision = { run: true } | { run: false; reason: string; announce: boolean };

/**
 * Whether auto compaction may run now. `announce` is true when the reason should be shown
 * (long-lived stops are told once; a cooldown is told each time it holds compaction back).
 */
export function autoDecision(state: CompactionState, cfg: CompactionConfig, tokens: number, t: Thresholds): AutoDecision {
  if (!cfg.auto) return { run: false, reason: 'automatic compaction is disabled', announce: false };
  if (state.breakerOpen) return { run: false, reason: breakerMessage(state, cfg), announce: !state.breakerTold };
  if (state.thrashStopped) return { run: false, reason: thrashMessage(), announce: !state.thrashTold };
  if (state.exhausted) return { run: false, reason: exhaustedMessage(state, t), announce: !state.exhaustedTold };
  if (state.cooldownTurnsLeft > 0 && tokens < t.blocking) {
    const n = state.cooldownTurnsLeft;
    return { run: false, reason: `cooldown after the last compaction (${n} more turn${n === 1 ? '' : 's'})`, announce: true };
  }
  return { run: true };
}

/** Marks the reason of a decision as told. */
export function markTold(state: CompactionState): void {
  if (state.breakerOpen) state.breakerTold = true;
  else if (state.thrashStopped) state.thrashTold = true;
  else if (state.exhausted) state.exhaustedTold = true;
}

/** The standing notice for the gauge, if a guard has stopped auto compaction. */
export function guardNotice(state: CompactionState, cfg: CompactionConfig, t: Thresholds): string | undefined {
  if (state.breakerOpen) return breakerMessage(state, cfg);
  if (state.thrashStopped) return thrashMessage();
  if (state.exhausted) return exhaustedMessage(state, t);
  return undefined;
}

export function recordAutoFailure(state: CompactionState, cfg: CompactionConfig, reason: string): void {
  state.consecutiveFailures += 1;
  state.lastFailure = reason;
  if (state.consecutiveFailures >= cfg.maxFailures && !state.breakerOpen) {
    state.breakerOpen = true;
    state.breakerTold = false;
  }
}

/** Any successful LLM compaction proves the summarizer works: the breaker closes. */
export function recordSuccess(state: CompactionState): void {
  state.consecutiveFailures = 0;
  state.breakerOpen = false;
  state.breakerTold = false;
  delete state.lastFailure;
}

export function recordExhausted(state: CompactionState, tokens: number): void {
  if (!state.exhausted) state.exhaustedTold = false;
  state.exhausted = true;
  state.exhaustedTokens = tokens;
}

export function clearExhausted(state: CompactionState): void {
  state.exhausted = false;
  state.exhaustedTold = false;
  delete state.exhaustedTokens;
}

/** An automatic (auto or reactive) compaction was applied. */
export function recordCompactionApplied(state: CompactionState): void {
  state.compactionsWithoutProgress += 1;
  if (state.compactionsWithoutProgress >= THRASH_LIMIT && !state.thrashStopped) {
    state.thrashStopped = true;
    state.thrashTold = false;
  }
}

/** The model answered: compactions are no longer "in a row". */
export function recordProgress(state: CompactionState): void {
  state.compactionsWithoutProgress = 0;
}

/** A user turn finished: cooldown counts down; a thrash stop lifts. */
export function recordTurn(state: CompactionState): void {
  if (state.cooldownTurnsLeft > 0) state.cooldownTurnsLeft -= 1;
  state.compactionsWithoutProgress = 0;
  state.thrashStopped = false;
  state.thrashTold = false;
}

export function breakerMessage(state: CompactionState, cfg: CompactionConfig): string {
  const last = state.lastFailure ? ` (last error: ${state.lastFailure})` : '';
  return (
    `Automatic compaction failed ${cfg.maxFailures} times in a row and is paused for this session${last}. ` +
    'Run /compact to try again by hand; if the context overflows, compaction on overflow still runs.'
  );
}

export function thrashMessage(): string {
  return (
    `Automatic compaction stopped: the context was compacted ${THRASH_LIMIT} times in a row without the model making progress. ` +
    'It resumes after the next finished turn; /compact works meanwhile, and /clear starts afresh.'
  );
}

export function exhaustedMessage(state: CompactionState, t: Thresholds): string {
  const at = state.exhaustedTokens !== undefined ? ` (${fmt(state.exhaustedTokens)} tokens after compacting, threshold ${fmt(t.auto)})` : '';
  return (
    `Compaction cannot bring this conversation under the automatic threshold${at}, so automatic compaction stopped. ` +
    'Use /clear to start a fresh conversation (the archive keeps everything), or switch to a model with a larger context window.'
  );
}

export const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
