// The keys of a filterable list overlay (session picker, model picker): arrows and pages move,
// typing filters, Enter chooses, Esc closes.
import type { Key } from 'ink';

export interface FilteredList {
  filter: string;
  selected: number;
}

/** The next state; `chosen` when Enter took the selected item, `close` when Esc closed the list. */
export type ListKeyResult<S, T> = { state: S; chosen?: T; close?: true };

const PAGE = 10;

export function filteredListKey<S extends FilteredList, T>(state: S, visible: readonly T[], input: string, key: Key): ListKeyResult<S, T> {
  const last = Math.max(0, visible.length - 1);
  const move = (selected: number): ListKeyResult<S, T> => ({ state: { ...state, selected: Math.min(last, Math.max(0, selected)) } });
  if (key.escape) return { state, close: true };
  if (key.return) {
    const chosen = visible[state.selected];
    return chosen === undefined ? { state } : { state, chosen };
  }
  if (key.upArrow) return move(state.selected - 1);
  if (key.downArrow) return move(state.selected + 1);
  if (key.pageUp) return move(state.selected - PAGE);
  if (key.pageDown) return move(state.selected + PAGE);
  if (key.home) return move(0);
  if (key.end) return move(last);
  if (key.backspace || key.delete) return { state: { ...state, filter: [...state.filter].slice(0, -1).join(''), selected: 0 } };
  if (!key.ctrl && !key.meta && input !== '' && !/[\x00-\x1f\x7f]/.test(input)) return { state: { ...state, filter: state.filter + input, selected: 0 } };
  return { state };
}
