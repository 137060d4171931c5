// The terminal's answer to the start's question (emoji-probe.ts) when it comes after the first
// frame: the app's input, split by Ink into one event per escape sequence, passes each event to
// the question until both cursor reports are in. Ink's keys name a report as F3 with modifiers
// (ESC[1;5R is also Ctrl+F3), so the raw events are read, not useInput's keys; as keys, reports
// reach neither the overlays nor the prompt (app-keys.ts drops them).
import { useStdin } from 'ink';
import { useEffect } from 'react';
import type { SkinToneQuestion } from './emoji-probe.js';

export function useSkinToneReplies(question: SkinToneQuestion | undefined): void {
  const { internal_eventEmitter: input } = useStdin();
  useEffect(() => {
    if (!question || question.answered) return;
    const onInput = (sequence: string): void => {
      question.offer(sequence);
      if (question.answered) input.off('input', onInput);
    };
    input.on('input', onInput);
    return () => {
      input.off('input', onInput);
    };
  }, [question, input]);
}
