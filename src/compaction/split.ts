import type { Message } from '../llm/messages.js';

/**
 * Where a history may be cut so that the tail starts a valid history after a checkpoint:
 * turn: a person's message (user, kind normal, no tool results);
 * step: inside a turn, between complete tool pairs (an assistant message right after tool
 * results or an injected meta message) or at a meta message.
 * No cut ever separates a tool_use from its tool_result.
 */
export type CutKind = 'turn' | 'step';

const hasToolResults = (m: Message): boolean => m.blocks.some((b) => b.type === 'tool_result');

export function isTurnStart(m: Message): boolean {
  return m.role === 'user' && m.kind === 'normal' && !hasToolResults(m);
}

export function cutKind(history: readonly Message[], i: number): CutKind | undefined {
  if (i <= 0 || i >= history.length) return undefined;
  const m = history[i]!;
  if (isTurnStart(m)) return 'turn';
  if (m.role === 'user') return m.kind === 'meta' && !hasToolResults(m) ? 'step' : undefined;
  const prev = history[i - 1]!;
  return prev.role === 'user' && !isTurnStart(prev) ? 'step' : undefined;
}

export interface SplitOptions {
  /** Keep at most this many recent turns... */
  tailTurns: number;
  /** ...within this many tokens. */
  tailTokens: number;
}

export interface Split {
  /** The tail is history[index...]; 0 means nothing can be summarized. */
  index: number;
  kind: CutKind | 'none';
  /** Tokens of the tail (as counted by tokensOf). */
  tailTokens: number;
  /** Whole turns the tail holds. */
  turns: number;
}

/**
 * Picks the tail: the last tailTurns turns that fit tailTokens together. When even the last
 * turn does not fit (one long agentic turn), the cut moves inside it to the earliest step
 * boundary whose suffix fits; failing that, to the last step boundary, so the tail holds at
 * least the current step (never cut, whatever its size). tailTurns = 0 asks for that minimum.
 */
export function selectSplit(history: readonly Message[], opts: SplitOptions, tokensOf: (m: Message) => number): Split {
  const n = history.length;
  const suffix = new Array<number>(n + 1);
  suffix[n] = 0;
  for (let i = n - 1; i >= 0; i--) suffix[i] = suffix[i + 1]! + tokensOf(history[i]!);
  const cuts: Array<{ index: number; kind: CutKind }> = [];
  for (let i = 1; i < n; i++) {
    const kind = cutKind(history, i);
    if (kind) cuts.push({ index: i, kind });
  }
  const turnsFrom = (index: number): number => cuts.filter((c) => c.kind === 'turn' && c.index >= index).length;
  const result = (index: number, kind: CutKind | 'none'): Split => ({ index, kind, tailTokens: suffix[index]!, turns: turnsFrom(index) });
  if (cuts.length === 0) return result(0, 'none');

  const turns = cuts.filter((c) => c.kind === 'turn').reverse();
  let best: number | undefined;
  let count = 0;
  for (const t of turns) {
    count += 1;
    if (count > opts.tailTurns || suffix[t.index]! > opts.tailTokens) break;
    best = t.index;
  }
  if (best !== undefined) return result(best, 'turn');

  if (opts.tailTurns > 0) {
    const lastTurn = turns[0]?.index ?? 0;
    const inside = cuts.find((c) => c.index > lastTurn && suffix[c.index]! <= opts.tailTokens);
    if (inside) return result(inside.index, inside.kind);
  }
  const last = cuts[cuts.length - 1]!;
  return result(last.index, last.kind);
}

export interface HeadPartition {
  /** What the summarizer reads: the head without pinned units and the latest checkpoint. */
  summarize: Message[];
  /** Pinned messages with their tool pair partners, as runs of consecutive messages. */
  pinnedUnits: Message[][];
  /** The head's latest checkpoint, updated rather than summarized again. */
  previous?: Message;
  /** Everything that leaves the visible history. */
  archived: Message[];
}

/** Splits the head into what is summarized, what is pinned and the checkpoint to update. */
export function partitionHead(head: readonly Message[]): HeadPartition {
  const keep = new Set<number>();
  head.forEach((m, i) => {
    if (!m.pinned) return;
    keep.add(i);
    if (m.role === 'assistant' && m.blocks.some((b) => b.type === 'tool_use') && i + 1 < head.length) keep.add(i + 1);
    if (m.role === 'user' && hasToolResults(m) && i > 0) keep.add(i - 1);
  });
  let previousIndex = -1;
  head.forEach((m, i) => {
    if (m.kind === 'checkpoint' && !keep.has(i)) previousIndex = i;
  });
  const pinnedUnits: Message[][] = [];
  const summarize: Message[] = [];
  const archived: Message[] = [];
  let unit: Message[] | undefined;
  head.forEach((m, i) => {
    if (keep.has(i)) {
      if (!unit) {
        unit = [];
        pinnedUnits.push(unit);
      }
      unit.push(m);
      return;
    }
    unit = undefined;
    archived.push(m);
    if (i !== previousIndex) summarize.push(m);
  });
  const previous = previousIndex >= 0 ? head[previousIndex] : undefined;
  return { summarize, pinnedUnits, ...(previous ? { previous } : {}), archived };
}
