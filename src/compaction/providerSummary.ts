// OpenAI's own compaction of the head (compaction.engine "provider"): responses.compact returns
// an encrypted item the checkpoint carries right after its text, which says so. A failure is
// no failure of the compaction: the agent's summarizer writes the checkpoint instead.
import type { Block } from '../llm/messages.js';
import type { Message } from '../llm/messages.js';
import { withoutImages } from '../llm/withoutImages.js';
import { promptText } from '../promptText.js';
import type { ProviderCompaction } from './engineDeps.js';
import PROVIDER_SUMMARY from './providerSummary.md';
import type { SummaryResult } from './summarize.js';

/** A summary OpenAI's responses.compact made: its text for the checkpoint and the encrypted item kept beside it. */
export interface ProvidedSummary {
  summary: SummaryResult;
  block: Block;
}

/** What a checkpoint says where OpenAI's encrypted compaction item holds the summary. */
export const PROVIDER_SUMMARY_TEXT = promptText(PROVIDER_SUMMARY);

/** OpenAI's own compaction of the head; undefined when it failed (the agent's summarizer then writes the checkpoint). */
export async function providerSummary(
  pc: ProviderCompaction,
  messages: readonly Message[],
  signal: AbortSignal,
  progress: (stage: string) => void,
): Promise<ProvidedSummary | undefined> {
  progress('compacting with the provider');
  try {
    const r = await pc.compact(withoutImages(messages), signal);
    return { summary: { text: PROVIDER_SUMMARY_TEXT, method: 'provider', usage: r.usage, requests: 1, verified: false }, block: r.block };
  } catch {
    if (signal.aborted) return undefined;
    progress('the provider could not compact: writing the summary instead');
    return undefined;
  }
}
