// The session picker's state and keys, apart from its rendering.
import type { Key } from 'ink';
import type { SessionListItem } from './controller.js';

export interface PickerState {
  /** Newest first. */
  sessions: SessionListItem[];
  filter: string;
  /** Index into visibleSessions(state). */
  selected: number;
}

export function newPicker(sessions: readonly SessionListItem[]): PickerState {
  return { sessions: [...sessions].sort((a, b) => b.updatedAt - a.updatedAt), filter: '', selected: 0 };
}

/** The sessions whose title, directory or id contain every word typed into the filter. */
export function visibleSessions(state: PickerState): SessionListItem[] {
  const words = state.filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return state.sessions;
  return state.sessions.filter((s) => {
    const hay = `${s.title ?? ''} ${s.cwd} ${s.id}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

export type PickerAction = { kind: 'resume'; id: string } | { kind: 'close' };

const PAGE = 10;

/** Arrows, PageUp/PageDown, Home/End move; Enter resumes the selected session; Esc closes; typing filters. */
export function pickerKey(state: PickerState, input: string, key: Key): { state: PickerState; action?: PickerAction } {
  const visible = visibleSessions(state);
  const last = Math.max(0, visible.length - 1);
  const move = (selected: number): { state: PickerState } => ({ state: { ...state, selected: Math.min(last, Math.max(0, selected)) } });
  if (key.escape) return { state, action: { kind: 'close' } };
  if (key.return) {
    const chosen = visible[state.selected];
    return chosen ? { state, action: { kind: 'resume', id: chosen.id } } : { state };
  }
  if (key.upArrow) return move(state.selected - 1);
  if (key.downArrow) return move(state.selected + 1);
  if (key.pageUp) return move(state.selected - PAGE);
  if (key.pageDown) return move(state.selected + PAGE);
  if (key.home) return move(0);
  if (key.end) return move(last);
  if (key.backspace || key.delete) return { state: { ...state, filter: [...state.filter].slice(0, -1).join(''), selected: 0 } };
  if (!key.ctrl && !key.meta && input !== '' && !/[\x00-\x1f\x7f]/.test(input)) {
    return { state: { ...state, filter: state.filter + input, selected: 0 } };
  }
  return { state };
}
