// The /model picker's state and keys, apart from its rendering.
import type { Key } from 'ink';
import type { ModelChoice } from '../protocol/views.js';
import { filteredListKey } from './list-keys.js';

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
  const r = filteredListKey(state, visibleModels(state), input, key);
  if (r.close) return { state, action: { kind: 'close' } };
  return r.chosen ? { state, action: { kind: 'choose', name: r.chosen.name } } : { state: r.state };
}
