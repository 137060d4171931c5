// What the transcript gets when a turn ends: the unfinished reply and tool rows as interrupted,
// and a line for an ending the person should know about (stopped, refused, a limit reached).
import { plural } from '../tools/format.js';
import type { RunningTool, StreamState } from './live-state.js';
import { itemId, STOPPED_NOTICE, type ToolItem, type TranscriptItem } from './transcript.js';

export interface TurnEnd {
  reason: string;
  steps: number;
  stream: StreamState;
  running: readonly RunningTool[];
  now: number;
  /** Whether the turn already showed an interruption (an interrupted reply or tool row). */
  showedInterrupt: boolean;
}

export function turnEndItems(end: TurnEnd): { items: TranscriptItem[]; showedInterrupt: boolean } {
  const { reason, steps, stream: s } = end;
  let showedInterrupt = end.showedInterrupt;
  const items: TranscriptItem[] = [];
  const leftover = s.text.slice(s.committed);
  const aborted = reason === 'aborted';
  if (leftover.trim() !== '' || s.committed > 0) {
    items.push({ kind: 'assistant', id: itemId(), text: leftover, interrupted: true, continued: s.committed > 0 });
    showedInterrupt = true;
  }
  for (const t of end.running) {
    const item: ToolItem = {
      kind: 'tool',
      id: itemId(),
      toolUseId: t.id,
      name: t.name,
      summary: t.summary,
      status: 'interrupted',
      durationMs: end.now - t.startedAt,
      output: '',
    };
    items.push(item);
    showedInterrupt = true;
  }
  if (aborted && !showedInterrupt) items.push({ kind: 'notice', id: itemId(), level: 'info', text: 'Interrupted' });
  if (reason === 'max_steps')
    items.push({ kind: 'notice', id: itemId(), level: 'warning', text: `Stopped after ${plural(steps, 'step')} (the step limit for one turn)` });
  if (reason === 'refusal') items.push({ kind: 'notice', id: itemId(), level: 'warning', text: 'The model declined to answer' });
  if (reason === 'max_tokens') items.push({ kind: 'notice', id: itemId(), level: 'warning', text: 'The reply stopped at the output limit' });
  if (reason === 'stopped') items.push({ kind: 'notice', id: itemId(), level: 'info', text: STOPPED_NOTICE });
  return { items, showedInterrupt };
}
