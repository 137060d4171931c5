// Which replayed thinking takes room in the model's context: what the gauge, the thresholds and
// the calibration count. Models with preserved thinking (the Claude 5 family:
// ThinkingCapabilities.keepsThinking) keep every replayed thinking block in context, billed as
// input ('all'). On older Claude models the API strips the thinking of finished turns and keeps
// only that of the current, unfinished turn, the tool loop in progress ('current-turn'): there
// a reply's thinking counts while its loop runs and stops counting once the turn is over
// (docs/compaction.md, "The gauge and replayed thinking"). The blocks themselves stay in the history and the requests;
// only their count changes.
import type { Block, Message } from '../llm/messages.js';
import { roughProviderState, type TokenCounter } from './tokens.js';

export type ThinkingRoom = 'all' | 'current-turn';

/** The room from the model's capabilities: 'current-turn' only where they say the model does not keep thinking. */
export const thinkingRoomOf = (keepsThinking: boolean | undefined): ThinkingRoom => (keepsThinking === false ? 'current-turn' : 'all');

const isThinking = (b: Block): boolean => b.type === 'thinking' || b.type === 'redacted_thinking';
/** A user message that opens a turn as the API sees it: anything but tool results alone. */
const opensTurn = (m: Message): boolean => m.role === 'user' && !m.blocks.some((b) => b.type === 'tool_result');

/**
 * Index of the first message whose thinking the next request keeps in context: 0 under 'all';
 * under 'current-turn' the current turn's first message while the turn is unfinished (a tool
 * loop, or the person's prompt waiting for its reply), else history.length: a history ending in
 * a finished reply sends it as an earlier turn next time, behind a new prompt.
 */
export function thinkingCountsFrom(history: readonly Message[], room: ThinkingRoom): number {
  if (room === 'all') return 0;
  const last = history[history.length - 1];
  if (!last) return 0;
  if (last.role === 'assistant' && !last.blocks.some((b) => b.type === 'tool_use')) return history.length;
  let i = history.length;
  while (i > 0 && !opensTurn(history[i - 1]!)) i--;
  return i;
}

/** The thinking tokens of one message (memoized per block by the counter). */
export function thinkingRaw(counter: TokenCounter, m: Message): number {
  if (m.role !== 'assistant') return 0;
  let n = 0;
  for (const b of m.blocks) if (isThinking(b)) n += counter.countBlock(b);
  return n;
}

/**
 * Uncalibrated tokens of history[from..] as the context holds them, the thinking of the
 * current turn apart: under 'current-turn' every thinking block is left out here and
 * liveThinkingRaw adds back what the current turn keeps, so a sum stays valid as the turn ends.
 */
export function settledRaw(counter: TokenCounter, history: readonly Message[], room: ThinkingRoom, from = 0): number {
  let raw = 0;
  for (let i = from; i < history.length; i++) {
    const m = history[i]!;
    raw += counter.countMessage(m);
    if (room === 'current-turn') raw -= thinkingRaw(counter, m);
  }
  return raw;
}

/** The thinking the current unfinished turn keeps in context (0 under 'all': settledRaw counted it). */
export function liveThinkingRaw(counter: TokenCounter, history: readonly Message[], room: ThinkingRoom): number {
  if (room === 'all') return 0;
  let raw = 0;
  for (let i = thinkingCountsFrom(history, room); i < history.length; i++) raw += thinkingRaw(counter, history[i]!);
  return raw;
}

/** Uncalibrated tokens of the whole history as the context holds it. */
export function contextRaw(counter: TokenCounter, history: readonly Message[], room: ThinkingRoom): number {
  return settledRaw(counter, history, room) + liveThinkingRaw(counter, history, room);
}

/**
 * Rough tokens (bytes ÷ bytesPerToken, as TokenCounter.boundMessages counts them) of the
 * thinking in history[from..] that the context does not keep: what the rough gauge leaves out.
 */
export function strippedThinkingBytes(history: readonly Message[], room: ThinkingRoom, bytesPerToken: number, from = 0): number {
  if (room === 'all') return 0;
  const keptFrom = thinkingCountsFrom(history, room);
  let n = 0;
  for (let i = from; i < Math.min(keptFrom, history.length); i++) {
    const m = history[i]!;
    if (m.role !== 'assistant') continue;
    for (const b of m.blocks) if (b.type === 'thinking' || b.type === 'redacted_thinking') n += roughProviderState(b, bytesPerToken);
  }
  return n;
}
