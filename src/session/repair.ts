import { newId, toolUses, type Block, type Message, type ToolResultBlock } from '../llm/messages.js';
import { isShellNote } from './shellNote.js';

export const INTERRUPTED_TOOL_RESULT =
  'interrupted: the session ended (crash or kill) before this tool call finished; it may or may not have had effects. Check before retrying.';

/** What stands between a prompt that got no reply and the next one, so neither the model nor the person reads them as one. */
export const UNANSWERED_PROMPT_REPLY =
  '[No reply: the turn for the message above ended before the model answered (an error, an interruption or a crash). It was not answered; the next message is a new request.]';

function interruptedResults(ids: readonly string[]): Message {
  return {
    id: newId(),
    role: 'user',
    kind: 'normal',
    createdAt: Date.now(),
    blocks: ids.map((id) => ({
      type: 'tool_result' as const,
      toolUseId: id,
      content: INTERRUPTED_TOOL_RESULT,
      isError: true,
      outcome: 'interrupted' as const,
    })),
  };
}

/** The assistant placeholder that marks a prompt as unanswered. */
export function unansweredReply(): Message {
  return {
    id: newId(),
    role: 'assistant',
    kind: 'normal',
    createdAt: Date.now(),
    interrupted: true,
    blocks: [{ type: 'text', text: UNANSWERED_PROMPT_REPLY }],
    origin: { kind: 'unanswered' },
  };
}

/** A person's request (not a tool result, pin, checkpoint, agent note or `!command` note, none of which expects a reply). */
export const isPrompt = (m: Message): boolean =>
  m.role === 'user' &&
  m.kind === 'normal' &&
  !m.pinned &&
  m.blocks.length > 0 &&
  m.blocks.every((b) => b.type === 'text' || b.type === 'image') &&
  !isShellNote(m);

/** True when the history ends with a prompt the model never answered. */
export const endsUnanswered = (history: readonly Message[]): boolean => {
  const last = history.at(-1);
  return last !== undefined && isPrompt(last);
};

export interface HistoryRepair {
  /** The repaired visible history: the old messages in order (some replaced), new ones inserted. */
  messages: Message[];
  added: Message[];
  replaced: Message[];
  /** One line per kind of fix, for the person. */
  notes: string[];
}

/**
 * Makes a history valid for both providers, whatever made it invalid (a crash, two writers,
 * an old database): tool calls without results get "interrupted" results right after them;
 * results that answer no call of the message before them become text (nothing is dropped);
 * a prompt followed by another prompt gets a "no reply" placeholder between them, so they are
 * not merged into one request. Undefined when the history is already valid.
 */
export function repairHistory(history: readonly Message[]): HistoryRepair | undefined {
  const out: Message[] = [];
  const added: Message[] = [];
  const replaced: Message[] = [];
  let unansweredCalls = 0;
  let orphanResults = 0;
  let unansweredPrompts = 0;
  let pending: string[] = [];
  /** The message before was a prompt as stored (a result turned into text is not one). */
  let prevPrompt = false;
  const insert = (m: Message): void => {
    out.push(m);
    added.push(m);
  };

  for (const m of history) {
    if (m.role === 'assistant') {
      prevPrompt = false;
      if (pending.length > 0) {
        unansweredCalls += pending.length;
        insert(interruptedResults(pending));
      }
      out.push(m);
      pending = toolUses(m).map((u) => u.id);
      continue;
    }
    const answered = new Set(m.blocks.filter((b): b is ToolResultBlock => b.type === 'tool_result' && pending.includes(b.toolUseId)).map((b) => b.toolUseId));
    const missing = pending.filter((id) => !answered.has(id));
    if (missing.length > 0) {
      unansweredCalls += missing.length;
      insert(interruptedResults(missing));
    } else if (prevPrompt && isPrompt(m)) {
      unansweredPrompts++;
      insert(unansweredReply());
    }
    const seen = new Set<string>();
    let changed = false;
    const blocks: Block[] = m.blocks.map((b) => {
      if (b.type !== 'tool_result') return b;
      if (answered.has(b.toolUseId) && !seen.has(b.toolUseId)) {
        seen.add(b.toolUseId);
        return b;
      }
      changed = true;
      orphanResults++;
      return {
        type: 'text',
        text: `[Result of tool call ${b.toolUseId}, which has no matching call before it${b.isError ? '; it was an error' : ''}:]\n${b.content}`,
      };
    });
    const kept = changed ? { ...m, blocks } : m;
    if (changed) replaced.push(kept);
    out.push(kept);
    pending = [];
    prevPrompt = isPrompt(m);
  }
  if (pending.length > 0) {
    unansweredCalls += pending.length;
    insert(interruptedResults(pending));
  }

  if (added.length === 0 && replaced.length === 0) return undefined;
  const notes: string[] = [];
  if (unansweredCalls > 0) notes.push(`${plural(unansweredCalls, 'tool call')} without a result closed as interrupted`);
  if (orphanResults > 0) notes.push(`${plural(orphanResults, 'tool result')} answering no call kept as text`);
  if (unansweredPrompts > 0) notes.push(`${plural(unansweredPrompts, 'unanswered prompt')} marked as such, so it is not merged into the next one`);
  return { messages: out, added, replaced, notes };
}

const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;
