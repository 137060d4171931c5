// A prompt that got no reply goes back to the person (the TUI's input): Esc before the model wrote
// anything, Esc while a prompt hook or a command's expansion ran, or a provider that failed on
// every retry. It leaves the conversation by a withdrawal record (HistoryEdits.withdraw: archived,
// still searchable, never sent again), so sending it again gives the model the prompt once, with
// no "[No reply]" marker between two copies. A reply cut off by the failure leaves with it: it
// stays on the person's screen and in the archive.
import type { TurnEndReason } from '../protocol/events.js';
import type { TurnResult } from '../agent/host.js';
import { emptyUsage, isToolResultMessage, type Message } from '../llm/messages.js';
import type { SessionEvent } from '../protocol/events.js';

export interface PromptBackDeps {
  /** Takes the prompt (and a cut-off reply after it) out of the conversation; false when it cannot (a reply, a tool call, a refused write). */
  edits: { withdraw(messageId: string, failed: boolean): boolean };
  emit: (e: SessionEvent) => void;
}

export interface EndedTurn {
  /** The front end puts prompts back (TurnScope.giveBack). */
  wanted: boolean;
  /** What the person sent, as they typed it. */
  asked: string;
  /** The prompt's message, once it was added to the history (undefined: the turn ended before). */
  messageId: string | undefined;
  reason: TurnEndReason;
  /** The turn's signal: aborted with PromptTakenBack when the person took the prompt back (Esc), not by a signal ending the program. */
  signal: AbortSignal;
}

/** The reason a turn is aborted with when the person takes its prompt back (Session.interrupt(true)). */
export class PromptTakenBack extends Error {
  constructor() {
    super('interrupted by the user');
  }
}

/** What a turn that ended before its prompt was sent returns. */
export const ABORTED: TurnResult = Object.freeze({ reason: 'aborted', steps: 0, usage: emptyUsage(), text: '' });

/** Gives the prompt of a turn that got no reply back to the person; false when the turn got one (or ended otherwise). */
export function givePromptBack(d: PromptBackDeps, turn: EndedTurn): boolean {
  const failed = turn.reason === 'error';
  if (!turn.wanted || !(failed || (turn.reason === 'aborted' && turn.signal.reason instanceof PromptTakenBack))) return false;
  if (turn.messageId !== undefined && !d.edits.withdraw(turn.messageId, failed)) return false;
  const message = failed
    ? 'Your message is back in the input and out of the conversation (the request failed); send it again when the provider answers.'
    : 'Your message is back in the input and out of the conversation; edit it or send it again.';
  d.emit({ type: 'prompt_returned', text: turn.asked, message });
  return true;
}

/**
 * Whether the prompt `at` got no reply: nothing after it, or (`failed`) only the text of a reply
 * the failure cut off. A reply the person saw begin (Esc) or any tool call keeps the prompt.
 */
export function unanswered(history: readonly Message[], at: number, failed: boolean): boolean {
  return at >= 0 && history.slice(at + 1).every((m) => failed && isCutReply(m));
}

const isCutReply = (m: Message): boolean =>
  m.role === 'assistant' && m.interrupted === true && !isToolResultMessage(m) && m.blocks.every((b) => b.type === 'text' || b.type === 'thinking');
