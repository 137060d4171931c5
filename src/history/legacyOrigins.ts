// The origin of a message stored before schema v13, which carries none: derived once, when the
// row is loaded (store/codec.ts), from the texts the producers wrote then, so that every reader
// (the transcript, `sessions show`, the export, the session itself) switches on the origin and
// none parses prose. This is the one place that reads those texts. They are frozen: an old row
// holds what an old build wrote, and today's producers write the same bytes (the model reads
// them) and set the origin themselves; test/history/legacyOrigins.test.ts checks that each
// producer's text is still recognised here. It never changes a block's text.
import type { Block, Message, MessageOrigin, TextOrigin, ToolResultBlock } from '../llm/messages.js';

const DATE_NOTE = "Context from the agent (not typed by the user): today's date is ";
const SHELL_NOTE = '[The user ran a shell command in the terminal (not a request to you); command and output for reference]\n$ ';
const SHELL_BODY = /^\$ (.*)\n<output( status="failed")?>\n([\s\S]*)\n<\/output>$/;
const UNANSWERED =
  '[No reply: the turn for the message above ended before the model answered (an error, an interruption or a crash). It was not answered; the next message is a new request.]';
const ATTACHMENT = '[Attached by the user with @';
const ARCHIVED = /: too large to attach whole, archived as (\S+)$/;
const PLAN_NOTE = '<system-reminder>\nPlan mode is on: ';
const HOOK_CONTEXT = /^\[Context from a \w+ hook\]/;
const TYPED_COMMAND = /^<command-name>(\/[^<\n]+)<\/command-name>\n<command-args>([\s\S]*?)<\/command-args>\n\n/;

/** The texts an interrupted call's output was written with (agent/runTools.ts, session/repair.ts, the Bash tool). */
const INTERRUPTED = 'The user interrupted this tool call before it finished; it did not complete.';
const CRASHED = 'interrupted: the session ended (crash or kill) before this tool call finished; it may or may not have had effects. Check before retrying.';
const COMMAND_INTERRUPTED = /^Command interrupted( before it started\.|; partial output:\n|, with no output\.)/;

/** Whether a tool's output says the call was interrupted (Esc, a signal, or a crash the repair closed), as opposed to failing. */
export const wasInterrupted = (content: string): boolean =>
  content === INTERRUPTED || content.endsWith(`[${INTERRUPTED}]`) || content === CRASHED || COMMAND_INTERRUPTED.test(content);

/** The message with the origins (and its results' outcomes) its producers would set today; the same object when it has none. */
export function withLegacyOrigins(m: Message): Message {
  const origin = messageOrigin(m);
  if (origin) return { ...m, origin };
  if (m.role !== 'user' || m.kind !== 'normal') return m;
  let changed = false;
  const blocks = m.blocks.map((b): Block => {
    if (b.type === 'text') {
      const o = textOrigin(b.text);
      if (!o) return b;
      changed = true;
      return { ...b, origin: o };
    }
    const outcome = b.type === 'tool_result' && b.isError ? outcomeOf(b.content) : undefined;
    if (!outcome) return b;
    changed = true;
    return { ...(b as ToolResultBlock), outcome };
  });
  return changed ? { ...m, blocks } : m;
}

/** How a failed call ended, from its result's text (session/toolGate.ts and agent/runTools.ts wrote the refusals). */
function outcomeOf(content: string): ToolResultBlock['outcome'] {
  if (wasInterrupted(content)) return 'interrupted';
  if (/^The user denied this \S+ call.*, and stopped the turn: wait for their next message\.$/s.test(content)) return 'stopped';
  if (/^The user denied this \S+ call/.test(content) || content.startsWith('Not run: the user denied an earlier call')) return 'denied';
  // the gate named why between "approval" and ", and nobody" from the sandbox's first build (ea97bff), hours before v13
  if (
    /^\S+ is not allowed here \(permissions mode "deny"\)/.test(content) ||
    /^\S+ needs the user's approval(?: \(.*?\))?, and nobody can approve/s.test(content)
  )
    return 'denied';
  return undefined;
}

function messageOrigin(m: Message): MessageOrigin | undefined {
  const block = m.blocks.length === 1 ? m.blocks[0] : undefined;
  if (block?.type !== 'text') return undefined;
  const only = block.text;
  if (m.role === 'assistant') return m.interrupted && only === UNANSWERED ? { kind: 'unanswered' } : undefined;
  if (m.kind === 'meta') return only.startsWith(DATE_NOTE) ? { kind: 'date_note' } : undefined;
  if (m.kind !== 'normal' || !only.startsWith(SHELL_NOTE)) return undefined;
  const n = SHELL_BODY.exec(only.slice(SHELL_NOTE.length - 2));
  if (!n) return undefined;
  const output = n[3]!;
  const status = n[2] === undefined ? 'done' : wasInterrupted(output) ? 'interrupted' : 'error';
  return { kind: 'shell', command: n[1]!, output, status };
}

function textOrigin(text: string): TextOrigin | undefined {
  if (text.startsWith(ATTACHMENT)) {
    const nl = text.indexOf('\n');
    const label = text.slice(ATTACHMENT.length, nl === -1 ? undefined : nl).replace(/\]$/, '');
    const archived = ARCHIVED.exec(label)?.[1];
    return archived ? { kind: 'attachment', label, archived } : { kind: 'attachment', label };
  }
  if (text.startsWith(PLAN_NOTE)) return { kind: 'plan_note' };
  if (HOOK_CONTEXT.test(text)) return { kind: 'hook_context' };
  const typed = TYPED_COMMAND.exec(text);
  return typed ? { kind: 'typed_command', typed: `${typed[1]}${typed[2] ? ` ${typed[2]}` : ''}` } : undefined;
}
