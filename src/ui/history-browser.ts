// The /history browser's state and keys, apart from its rendering.
import type { Key } from 'ink';
import type { HistoryPage } from '../protocol/views.js';

export interface HistoryBrowserState {
  result: HistoryPage;
  /** Index into result.hits. */
  selected: number;
}

export function newHistoryBrowser(result: HistoryPage): HistoryBrowserState {
  return { result, selected: 0 };
}

export type HistoryAction = { kind: 'open'; id: string } | { kind: 'page'; page: number } | { kind: 'close' };

/**
 * ↑↓ choose; Enter opens the chosen item; → / PageDown / n the next page, ← / PageUp / p the
 * previous one; Esc closes. Moving past the last row of a page turns to the next page.
 */
export function historyKey(state: HistoryBrowserState, input: string, key: Key): { state: HistoryBrowserState; action?: HistoryAction } {
  const { result, selected } = state;
  const last = Math.max(0, result.hits.length - 1);
  const next = result.hasMore ? { kind: 'page' as const, page: result.page + 1 } : undefined;
  const previous = result.page > 1 ? { kind: 'page' as const, page: result.page - 1 } : undefined;
  if (key.escape) return { state, action: { kind: 'close' } };
  if (key.return) {
    const chosen = result.hits[selected];
    return chosen ? { state, action: { kind: 'open', id: chosen.id } } : { state };
  }
  if (key.upArrow) return selected === 0 && previous ? { state, action: previous } : { state: { ...state, selected: Math.max(0, selected - 1) } };
  if (key.downArrow) return selected === last && next ? { state, action: next } : { state: { ...state, selected: Math.min(last, selected + 1) } };
  if (key.home) return { state: { ...state, selected: 0 } };
  if (key.end) return { state: { ...state, selected: last } };
  if (key.rightArrow || key.pageDown || input === 'n') return next ? { state, action: next } : { state };
  if (key.leftArrow || key.pageUp || input === 'p') return previous ? { state, action: previous } : { state };
  return { state };
}

/** The browser after turning to `page`: the first row, or the last when turning back with ↑. */
export function turnedPage(result: HistoryPage, fromRow: 'first' | 'last'): HistoryBrowserState {
  return { result, selected: fromRow === 'last' ? Math.max(0, result.hits.length - 1) : 0 };
}
