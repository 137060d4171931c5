// The /rewind picker's state and keys: choose an earlier turn, then what to restore.
import type { Key } from 'ink';
import type { RewindWhat } from '../session/rewind.js';
import type { RewindTargetView } from '../protocol/views.js';

export interface RewindPickerState {
  targets: RewindTargetView[];
  /** Index into targets (the newest is selected first). */
  selected: number;
  /** Set once a turn is chosen: the second step, what to restore. */
  choosing: { what: number } | null;
  /** A rewind found files changed since the agent's last turn: the question whether to overwrite them (y runs the command with --force). */
  overwrite?: { files: string[]; command: string };
}

export const newRewindPicker = (targets: RewindTargetView[], overwrite?: RewindPickerState['overwrite']): RewindPickerState => ({
  targets,
  selected: Math.max(0, targets.length - 1),
  choosing: null,
  ...(overwrite ? { overwrite } : {}),
});

export interface RewindChoice {
  label: string;
  what: RewindWhat;
  /** Why it cannot be chosen for this turn. */
  disabled?: string;
}

export function rewindChoices(t: RewindTargetView): RewindChoice[] {
  const noConversation = t.inConversation
    ? undefined
    : t.gone === 'rewound'
      ? 'an earlier rewind took this turn out of the conversation'
      : 'this turn was compacted into a summary';
  const noCode =
    t.files.length === 0 && t.checkpoint?.ok !== true
      ? t.checkpoint
        ? `no checkpoint: ${t.checkpoint.missing}`
        : 'no file was changed by Edit or Write since then'
      : undefined;
  return [
    { label: 'Code and conversation', what: 'both', ...(noConversation ? { disabled: noConversation } : {}) },
    { label: 'Conversation only (files stay as they are)', what: 'conversation', ...(noConversation ? { disabled: noConversation } : {}) },
    { label: 'Code only (the conversation stays)', what: 'code', ...(noCode ? { disabled: noCode } : {}) },
  ];
}

export type RewindKeyResult = {
  state: RewindPickerState;
  action?: { kind: 'close' } | { kind: 'rewind'; target: RewindTargetView; what: RewindWhat } | { kind: 'force'; command: string };
};

export function rewindKey(state: RewindPickerState, input: string, key: Key): RewindKeyResult {
  if (state.overwrite) {
    if (input === 'y' || input === 'Y') return { state, action: { kind: 'force', command: `${state.overwrite.command} --force` } };
    if (key.escape || input === 'n' || input === 'N') return { state, action: { kind: 'close' } };
    return { state };
  }
  const n = state.targets.length;
  if (!state.choosing) {
    if (key.escape) return { state, action: { kind: 'close' } };
    if (key.upArrow) return { state: { ...state, selected: Math.max(0, state.selected - 1) } };
    if (key.downArrow) return { state: { ...state, selected: Math.min(n - 1, state.selected + 1) } };
    if (key.return && n > 0) {
      const choices = rewindChoices(state.targets[state.selected]!);
      return {
        state: {
          ...state,
          choosing: {
            what: Math.max(
              0,
              choices.findIndex((c) => !c.disabled),
            ),
          },
        },
      };
    }
    return { state };
  }
  const target = state.targets[state.selected]!;
  const choices = rewindChoices(target);
  if (key.escape) return { state: { ...state, choosing: null } };
  if (key.upArrow) return { state: { ...state, choosing: { what: (state.choosing.what + choices.length - 1) % choices.length } } };
  if (key.downArrow) return { state: { ...state, choosing: { what: (state.choosing.what + 1) % choices.length } } };
  // a digit selects (as the hint says and the approval prompts do); Enter rewinds
  if (/^[1-3]$/.test(input)) return { state: { ...state, choosing: { what: Number(input) - 1 } } };
  const choice = key.return ? choices[state.choosing.what] : undefined;
  if (!choice || choice.disabled) return { state };
  return { state, action: { kind: 'rewind', target, what: choice.what } };
}
