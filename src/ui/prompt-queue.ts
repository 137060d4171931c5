// Prompts typed while the agent works wait in LiveState.queued; this says how they are sent.

/** Queued prompts go as one message; a queued `!command` runs on its own, in its place. */
export function queuedBatches(queued: readonly string[]): string[] {
  const out: string[] = [];
  let prompts: string[] = [];
  for (const q of queued) {
    if (!q.trimStart().startsWith('!')) {
      prompts.push(q);
      continue;
    }
    if (prompts.length > 0) out.push(prompts.join('\n\n'));
    prompts = [];
    out.push(q);
  }
  if (prompts.length > 0) out.push(prompts.join('\n\n'));
  return out;
}
