// The /model picker's state and keys, apart from its rendering.
import type { Key } from 'ink';
import type { ModelChoice } from './controller.js';

export interface ModelPickerState {
  models: ModelChoice[];
  current: string;
  filter: string;
  /** Index into visibleModels(state). */
  selected: number;
}

export function newModelPicker(models: readonly ModelChoice[], current: string): ModelPickerState {
  const at = models.findIndex((m) => m.name === current);
  return { models: [...models], current, filter: '', selected: Math.max(0, at) };
}

/** The models whose name or provider contain every word typed into the filter. */
export function visibleModels(state: ModelPickerState): ModelChoice[] {
  const words = state.filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return state.models;
  return state.models.filter((m) => words.every((w) => `${m.name} ${m.provider}`.toLowerCase().includes(w)));
}

export type ModelPickerAction = { kind: 'choose'; name: string } | { kind: 'close' };

/** ↑↓ PageUp/PageDown move, typing filters, Enter switches to the selected model, Esc closes. */
export function modelPickerKey(state: ModelPickerState, input: string, key: Key): { state: ModelPickerState; action?: ModelPickerAction } {
  const visible = visibleModels(state);
  const last = Math.max(0, visible.length - 1);
  const move = (selected: number): { state: ModelPickerState } => ({ state: { ...state, selected: Math.min(last, Math.max(0, selected)) } });
  if (key.escape) return { state, action: { kind: 'close' } };
  if (key.return) {
    const chosen = visible[state.selected];
    return chosen ? { state, action: { kind: 'choose', name: chosen.name } } : { state };
  }
  if (key.upArrow) return move(state.selected - 1);
  if (key.downArrow) return move(state.selected + 1);
  if (key.pageUp) return move(state.selected - 10);
  if (key.pageDown) return move(state.selected + 10);
  if (key.backspace || key.delete) return { state: { ...state, filter: [...state.filter].slice(0, -1).join(''), selected: 0 } };
  if (!key.ctrl && !key.meta && input !== '' && !/[\x00-\x1f\x7f]/.test(input)) return { state: { ...state, filter: state.filter + input, selected: 0 } };
  return { state };
}
