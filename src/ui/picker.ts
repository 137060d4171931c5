// The session picker's state and keys, apart from its rendering.
import type { Key } from 'ink';
import type { SessionListItem } from '../protocol/views.js';
import { filteredListKey } from './list-keys.js';

export interface PickerState {
  /** Newest first. */
  sessions: SessionListItem[];
  filter: string;
  /** Index into visibleSessions(state). */
  selected: number;
  /** Ids of the sessions whose messages match a filter (full-text search), when the app can search. */
  contentMatches?: (filter: string) => ReadonlySet<string>;
}

export function newPicker(sessions: readonly SessionListItem[], searchContent?: (query: string) => readonly string[]): PickerState {
  const state: PickerState = { sessions: [...sessions].sort((a, b) => b.updatedAt - a.updatedAt), filter: '', selected: 0 };
  if (searchContent) {
    // one search per filter typed, not one per frame
    const cache = new Map<string, ReadonlySet<string>>();
    state.contentMatches = (filter) => {
      let ids = cache.get(filter);
      if (!ids) cache.set(filter, (ids = new Set(searchContent(filter))));
      return ids;
    };
  }
  return state;
}

/** The sessions whose title, directory or id contain every word typed into the filter, or whose messages match it. */
export function visibleSessions(state: PickerState): SessionListItem[] {
  const words = state.filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return state.sessions;
  const byContent = state.contentMatches?.(words.join(' '));
  return state.sessions.filter((s) => {
    const hay = `${s.title ?? ''} ${s.cwd} ${s.id}`.toLowerCase();
    return words.every((w) => hay.includes(w)) || byContent?.has(s.id) === true;
  });
}

export type PickerAction = { kind: 'resume'; id: string } | { kind: 'close' };

/** Arrows, PageUp/PageDown, Home/End move; Enter resumes the selected session; Esc closes; typing filters. */
export function pickerKey(state: PickerState, input: string, key: Key): { state: PickerState; action?: PickerAction } {
  const r = filteredListKey(state, visibleSessions(state), input, key);
  if (r.close) return { state, action: { kind: 'close' } };
  return r.chosen ? { state, action: { kind: 'resume', id: r.chosen.id } } : { state: r.state };
}
