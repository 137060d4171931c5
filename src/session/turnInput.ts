// What a turn sends for the person, built once the turn began. A prompt larger than the window
// can ever carry is refused first: beside it a request always holds the system prompt, the tool
// schemas and the pinned messages, and no compaction can shrink those or the prompt itself (it is
// kept verbatim); it is refused before anything is stored or sent, with the advice to attach it
// as a file, and the front end gives the text back. Then a custom command's body is expanded (its
// !`command`s through the gate), the prompt hooks have their say, a date note goes first when the
// day changed, and the message carries its @mentions, the turn's images (checked as a file's are)
// and the hooks' context.
import type { AgentEvent } from '../protocol/events.js';
import type { ImageBlock, Message, TextBlock } from '../llm/messages.js';
import { prepareGivenImages } from '../media/prepare.js';
import type { AnyTool, SpillSink } from '../tools/types.js';
import type { SessionParts } from './assemble.js';
import { dateNoteFor } from './dateNote.js';
import { mentionSpill, promptMessage } from './mentions.js';
import { endsUnanswered, unansweredReply } from './repair.js';
import { gatedShell, type TurnScope } from './turnScope.js';
import { withoutTypedCommand } from './typedCommand.js';
import { fmtInt } from '../tools/format.js';

/**
 * The images a front end handed over with the prompt (--input-format stream-json, ACP), checked
 * as FileRead's and @'s are (media/prepare.ts): decoded, sent as what they are, downscaled to the
 * limits; `note` hears of each change. A string says why the prompt is refused (corrupt data).
 */
export async function givenImages(images: readonly ImageBlock[] | undefined, note: (text: string) => void): Promise<ImageBlock[] | string> {
  if (!images || images.length === 0) return [];
  const r = await prepareGivenImages(images);
  if (!r.ok) return `${r.why}; the prompt was not sent`;
  for (const n of r.notes) note(n);
  return r.images.map((i) => ({ type: 'image', mediaType: i.mediaType, data: i.data }));
}

/** The prompt as the turn sends it (a custom command's body expanded) and what the prompt hooks say of it. */
export async function expandPrompt(
  p: Pick<SessionParts, 'direct' | 'gate' | 'frames' | 'caps'>,
  asked: string,
  scope: TurnScope,
  signal: AbortSignal,
  emit: (e: AgentEvent) => void,
): Promise<{ text: string; hooked: { block?: string; blocks: TextBlock[] } }> {
  const approved = scope.commandsApproved === true;
  const text = scope.expand ? await scope.expand((c) => gatedShell(p.direct(), p.gate, c, p.frames.current.config.cwd, signal, emit, approved)) : asked;
  return { text, hooked: await p.caps.beforePrompt(withoutTypedCommand(text), signal) };
}

/** The person's message, after a date note when the day changed: the prompt with its @mentions attached, then `extra` (images, hooks' context); or why it is not sent. */
export async function personMessage(
  p: Pick<SessionParts, 'direct' | 'log' | 'frames' | 'compactor' | 'spill'>,
  text: string,
  extra: readonly (ImageBlock | TextBlock)[],
  signal: AbortSignal,
  warn: (problem: string) => void,
): Promise<Message | { refused: string }> {
  const typed = await promptMessage(text, {
    tools: p.direct(),
    cwd: p.frames.current.config.cwd,
    signal,
    warn,
    spill: mentionSpill(p.spill, p.compactor.usage().effectiveWindow),
  });
  if ('refused' in typed) return typed;
  const note = dateNoteFor(p.log.messages());
  if (note) p.log.append(note);
  return { ...typed, blocks: [...typed.blocks, ...extra] };
}

/** Marks a prompt left without a reply: the reply appended, or undefined when the history ends otherwise. */
export function markUnanswered(log: SessionParts['log']): Message | undefined {
  return endsUnanswered(log.messages()) ? log.append(unansweredReply()) : undefined;
}

/** Spills as the session's sink would, storing nothing (the handle is a stand-in of the same length as a first one). */
const DRY_SINK: SpillSink = { thresholdFor: () => 0, archive: () => 'o1' };

/** Why `text` cannot be sent (the message shown to the person): too large, or an @image that cannot be read; undefined when it can. */
export async function oversizedPrompt(
  p: Pick<SessionParts, 'frames' | 'compactor'>,
  tools: readonly AnyTool[],
  text: string,
  signal: AbortSignal,
  /** The session's spill sink: only whether there is one matters (a large mention is then spilled), nothing is archived here. */
  sink: SpillSink | undefined,
): Promise<string | undefined> {
  // tools over no read tracker (the real one counts attachments as read only when the prompt is sent),
  // and a spill sink that archives nothing: a large mention is measured as the preview it will be
  const msg = await promptMessage(text, {
    tools,
    cwd: p.frames.current.config.cwd,
    signal,
    warn: () => undefined,
    spill: sink ? mentionSpill(DRY_SINK, p.compactor.usage().effectiveWindow) : undefined,
  });
  if ('refused' in msg) return msg.refused;
  const over = await p.compactor.promptTooLarge(msg);
  if (!over) return undefined;
  const { model } = p.frames.current.config;
  const attached = msg.blocks.length > 1;
  return (
    `This prompt is about ${fmtInt(over.promptTokens)} tokens; with the system prompt and tools (${fmtInt(over.fixedTokens)}) it is more than the ` +
    `${fmtInt(over.limit)} tokens that ${model.name}'s ${fmtInt(model.contextWindow)}-token window leaves for input, so it was not sent (nothing was stored). ` +
    (attached
      ? 'The files attached with @ are too large: ask the model to read the parts it needs instead of attaching them.'
      : 'Save the text to a file and mention it with @file: a large file is attached as its first and last lines with a handle the model reads the rest through (Recall). Or send a shorter prompt.')
  );
}
