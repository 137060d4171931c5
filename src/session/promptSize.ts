// A prompt larger than the window can ever carry: beside it a request always holds the system
// prompt, the tool schemas and the pinned messages, and no compaction can shrink those or the
// prompt itself (it is kept verbatim). Such a prompt is refused before anything is stored or
// sent, with the advice to attach it as a file; the front end gives the text back.
import { FileTracker } from '../tools/fileTracker.js';
import type { AnyTool, SpillSink } from '../tools/types.js';
import type { ContextControl } from './contextControl.js';
import { mentionSpill, promptMessage } from './mentions.js';

/** Spills as the session's sink would, storing nothing (the handle is a stand-in of the same length as a first one). */
const DRY_SINK: SpillSink = { thresholdFor: () => 0, archive: () => 'o1' };

const fmt = (n: number): string => n.toLocaleString('en-US');

/** Why `text` cannot be sent (the message shown to the person), or undefined when it fits. */
export async function oversizedPrompt(
  context: ContextControl,
  tools: readonly AnyTool[],
  text: string,
  signal: AbortSignal,
  /** The session's spill sink: only whether there is one matters (a large mention is then spilled), nothing is archived here. */
  sink: SpillSink | undefined,
): Promise<string | undefined> {
  // a throwaway read tracker (the real one counts attachments as read only when the prompt is sent),
  // and a spill sink that archives nothing: a large mention is measured as the preview it will be
  const msg = await promptMessage(text, {
    tools,
    cwd: context.config.cwd,
    files: new FileTracker(),
    signal,
    warn: () => undefined,
    spill: sink ? mentionSpill(DRY_SINK, context.usage().effectiveWindow) : undefined,
  });
  const over = await context.promptTooLarge(msg);
  if (!over) return undefined;
  const { model } = context.config;
  const attached = msg.blocks.length > 1;
  return (
    `This prompt is about ${fmt(over.promptTokens)} tokens; with the system prompt and tools (${fmt(over.fixedTokens)}) it is more than the ` +
    `${fmt(over.limit)} tokens that ${model.name}'s ${fmt(model.contextWindow)}-token window leaves for input, so it was not sent (nothing was stored). ` +
    (attached
      ? 'The files attached with @ are too large: ask the model to read the parts it needs instead of attaching them.'
      : 'Save the text to a file and mention it with @file: a large file is attached as its first and last lines with a handle the model reads the rest through (Recall). Or send a shorter prompt.')
  );
}
