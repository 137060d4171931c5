import type { CompactionConfig } from '../config/schema.js';
import type { Thresholds } from './budget.js';
import { fmtInt } from '../tools/format.js';

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
  /** Uncalibrated estimate of those messages as the context held them (thinkingRoom.ts). */
  rawMessages: number;
  /** The part of rawMessages that is the thinking of the turn then unfinished, where finished turns' thinking is stripped (absent: 0). */
  liveThinking?: number;
  /** Uncalibrated estimates of the system prompt and tool schemas it was sent with. */
  systemRaw: number;
  toolsRaw: number;
  /** Tokens of the whole request: reported by the provider, or a calibrated estimate. */
  tokens: number;
  source: 'reported' | 'estimate';
}

/**
 * The provider's count of the last request: which history it counted (its first `count`
 * messages) and a fingerprint of the system prompt and tools it was sent with
 * (uncounted.ts partsKey), kept with or without the tokenizer.
 */
export interface Reported {
  count: number;
  firstId: string;
  lastId: string;
  tokens: number;
  parts: string;
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
  /** The provider's count of the last request: a resumed session's bound and gauge start from it without the tokenizer. */
  reported?: Reported;
  /** When the last model response arrived (epoch ms): whether the provider's prompt cache is still warm. */
  lastResponseAt?: number;
}

/** Share of the effective window an exhausted context must grow by before blocking compacts it again. */
const REGROWTH_SHARE = 0.1;

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

/** What a saved anchor and a saved count share: the start of a history (its first `count` messages) they describe. */
const describesPrefix = (x: unknown): x is Record<string, unknown> & Pick<Anchor, 'count' | 'firstId' | 'lastId'> =>
  isRecord(x) && typeof x.firstId === 'string' && typeof x.lastId === 'string' && typeof x.count === 'number' && Number.isInteger(x.count) && x.count > 0;

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
    describesPrefix(a) &&
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
      ...(typeof a.liveThinking === 'number' && a.liveThinking > 0 ? { liveThinking: a.liveThinking } : {}),
      systemRaw: a.systemRaw,
      toolsRaw: a.toolsRaw,
      tokens: a.tokens,
      source: a.source,
    };
  }
  const r = raw.reported;
  if (describesPrefix(r) && typeof r.parts === 'string' && typeof r.tokens === 'number' && Number.isFinite(r.tokens) && r.tokens > 0) {
    s.reported = { count: r.count, firstId: r.firstId, lastId: r.lastId, tokens: r.tokens, parts: r.parts };
  }
  return s;
}

/**
 * The guards of automatic compaction as one small state machine over the saved state: the
 * breaker (failures in a row), the cooldown after a compaction, the thrash stop (compactions
 * in a row without progress) and exhaustion (compaction cannot get under the threshold). It
 * also owns whether the person was told: a standing stop is told once, a cooldown each time it
 * holds compaction back.
 */
export class Guards {
  constructor(
    private readonly st: CompactionState,
    private readonly cfg: CompactionConfig,
    private readonly t: Thresholds,
  ) {}

  /** Whether auto compaction may run now at `tokens`; `tell` is what to announce (already marked told). */
  mayRunAuto(tokens: number): { run: true } | { run: false; tell?: string } {
    const st = this.st;
    if (!this.cfg.auto) return { run: false };
    if (st.breakerOpen) return this.once('breakerTold', breakerMessage(st, this.cfg));
    if (st.thrashStopped) return this.once('thrashTold', thrashMessage());
    // exhausted holds back auto compaction, but not a context that has grown again past blocking:
    // there is new conversation to summarize, and the request would overflow (or be cut) otherwise
    if (st.exhausted && !this.regrownPastBlocking(tokens)) return this.once('exhaustedTold', exhaustedMessage(st, this.t));
    if (st.cooldownTurnsLeft > 0 && tokens < this.t.blocking) {
      const n = st.cooldownTurnsLeft;
      return { run: false, tell: `cooldown after the last compaction (${n} more turn${n === 1 ? '' : 's'})` };
    }
    return { run: true };
  }

  /** Past blocking, and grown by REGROWTH_SHARE of the effective window since compaction last fell short. */
  private regrownPastBlocking(tokens: number): boolean {
    return tokens >= this.t.blocking && tokens - (this.st.exhaustedTokens ?? tokens) >= this.t.effective * REGROWTH_SHARE;
  }

  /** The cooldown after an automatic compaction holds the next one back until the hard limit (a background swap too). */
  coolingDown(tokens: number): boolean {
    return this.st.cooldownTurnsLeft > 0 && tokens < this.t.blocking;
  }

  /** Whether a background summary may start: the stops hold it back, the cooldown does not (it only writes ahead; the swap is a boundary's work). */
  mayPrefire(): boolean {
    return this.cfg.auto && !this.stopped();
  }

  /** A guard has stopped auto compaction (the gauge says so). */
  stopped(): boolean {
    return this.st.breakerOpen || this.st.exhausted || this.st.thrashStopped;
  }

  /** The standing notice for the gauge, if a guard has stopped auto compaction. */
  notice(): string | undefined {
    if (this.st.breakerOpen) return breakerMessage(this.st, this.cfg);
    if (this.st.thrashStopped) return thrashMessage();
    if (this.st.exhausted) return exhaustedMessage(this.st, this.t);
    return undefined;
  }

  /** The context was measured: under the auto threshold, exhaustion is over. */
  measured(tokens: number): void {
    if (this.st.exhausted && tokens < this.t.auto) this.clearExhausted();
  }

  /** An LLM compaction was applied; `automatic` for auto and reactive (they count toward the thrash stop), `cooldown` for auto. */
  applied(tokensAfter: number, opts: { automatic: boolean; cooldown: boolean }): void {
    const st = this.st;
    // any successful LLM compaction proves the summarizer works: the breaker closes
    st.consecutiveFailures = 0;
    st.breakerOpen = false;
    st.breakerTold = false;
    delete st.lastFailure;
    if (opts.cooldown) st.cooldownTurnsLeft = this.cfg.cooldownTurns;
    if (opts.automatic) {
      st.compactionsWithoutProgress += 1;
      if (st.compactionsWithoutProgress >= THRASH_LIMIT && !st.thrashStopped) {
        st.thrashStopped = true;
        st.thrashTold = false;
      }
    }
    if (tokensAfter >= this.t.auto) this.exhaust(tokensAfter);
    else this.clearExhausted();
  }

  /** The compaction would not have made the context smaller. */
  ineffective(tokens: number): void {
    this.exhaust(tokens);
  }

  /** An auto compaction failed; returns what to announce when that opened the breaker (marked told). */
  autoFailed(reason: string): string | undefined {
    const st = this.st;
    st.consecutiveFailures += 1;
    st.lastFailure = reason;
    if (st.consecutiveFailures < this.cfg.maxFailures || st.breakerOpen) return undefined;
    st.breakerOpen = true;
    st.breakerTold = true;
    return breakerMessage(st, this.cfg);
  }

  /** The model answered: compactions are no longer "in a row". */
  progressed(): void {
    this.st.compactionsWithoutProgress = 0;
  }

  /** A user turn finished: cooldown counts down; a thrash stop lifts. */
  turnEnded(): void {
    const st = this.st;
    if (st.cooldownTurnsLeft > 0) st.cooldownTurnsLeft -= 1;
    st.compactionsWithoutProgress = 0;
    st.thrashStopped = false;
    st.thrashTold = false;
  }

  private once(flag: 'breakerTold' | 'thrashTold' | 'exhaustedTold', message: string): { run: false; tell?: string } {
    if (this.st[flag]) return { run: false };
    this.st[flag] = true;
    return { run: false, tell: message };
  }

  private exhaust(tokens: number): void {
    if (!this.st.exhausted) this.st.exhaustedTold = false;
    this.st.exhausted = true;
    this.st.exhaustedTokens = tokens;
  }

  private clearExhausted(): void {
    this.st.exhausted = false;
    this.st.exhaustedTold = false;
    delete this.st.exhaustedTokens;
  }
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

export const fmt = (n: number): string => fmtInt(Math.round(n));

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
