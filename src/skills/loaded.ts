// A skill's body in the conversation, and keeping it there. Every loaded body (by /name or by
// the Skill tool) is wrapped in one marker, so the history itself says which skills are loaded:
// nothing to save beside it, and a resumed session knows as much as the live one. After a
// compaction archived them, `skillsAfterCompaction` is the one function that puts them back:
// newest first within a budget, the rest named with the Recall id of the message that held them.
import { newId, type Message } from '../llm/messages.js';
import type { Skill } from './skillFile.js';

/** Claude Code re-attaches invoked skills up to 5,000 tokens each, 25,000 together. */
export const REATTACH_EACH_TOKENS = 5_000;
export const REATTACH_TOTAL_TOKENS = 25_000;
const CHARS_PER_TOKEN = 4;

const OPEN = /<skill name="([a-z0-9-]+)" folder="([^"\n]*)">\n/g;
const CLOSE = '\n</skill>';
export const REATTACH_HEADER = 'Context from the agent (not typed by the user): skills loaded earlier in this conversation, attached again after a compaction.';

/** The text a loaded skill is in the conversation: its folder (for FileRead and scripts) and its body, arguments in place. */
export function wrapSkill(skill: Pick<Skill, 'name' | 'dir'>, body: string): string {
  return `<skill name="${skill.name}" folder="${skill.dir}">\nBase directory for this skill: ${skill.dir}\n\n${body.trim()}${CLOSE}`;
}

export interface LoadedSkill {
  name: string;
  folder: string;
  /** The whole marked text. */
  text: string;
  /** The message that holds it (a Recall id once archived). */
  messageId: string;
}

/** Every loaded skill's marked text in a string, in order. */
function loadedIn(text: string, messageId: string): LoadedSkill[] {
  const out: LoadedSkill[] = [];
  for (const m of text.matchAll(OPEN)) {
    const end = text.indexOf(CLOSE, m.index + m[0].length);
    if (end < 0) continue;
    out.push({ name: m[1]!, folder: m[2]!, text: text.slice(m.index, end + CLOSE.length), messageId });
  }
  return out;
}

/** Skills loaded in a history, the newest load of each name, oldest first; also the names only listed by Recall id. */
export function loadedSkills(history: readonly Message[]): { loaded: LoadedSkill[]; byId: Map<string, string> } {
  const byName = new Map<string, LoadedSkill>();
  const byId = new Map<string, string>();
  for (const m of history) {
    if (m.role !== 'user') continue;
    for (const b of m.blocks) {
      const text = b.type === 'text' ? b.text : b.type === 'tool_result' && !b.cleared ? b.content : undefined;
      if (text === undefined || !text.includes('<skill name="')) continue;
      for (const l of loadedIn(text, m.id)) {
        byName.delete(l.name);
        byName.set(l.name, l);
      }
      if (m.kind === 'meta' && text.startsWith(REATTACH_HEADER)) for (const r of text.matchAll(/^- ([a-z0-9-]+): Recall id (\S+)$/gm)) byId.set(r[1]!, r[2]!);
    }
  }
  for (const name of byName.keys()) byId.delete(name);
  return { loaded: [...byName.values()], byId };
}

/** Names of the skills whose body the history holds (re-invoking one adds a note, not a copy). */
export const loadedNames = (history: readonly Message[]): Set<string> => new Set(loadedSkills(history).loaded.map((l) => l.name));

/**
 * After a compaction: the skills loaded before it (in `before`, the history as it was) whose body
 * the compacted history (`after`) no longer holds, as one meta message to append; undefined when
 * none is missing. Newest first, each cut to `eachTokens`, together within `totalTokens`; the
 * rest are named with the Recall id of the message that held them. The ledger calls this too.
 */
export function skillsAfterCompaction(
  before: readonly Message[],
  after: readonly Message[],
  budget: { eachTokens?: number; totalTokens?: number } = {},
): Message | undefined {
  const kept = loadedNames(after);
  const { loaded, byId } = loadedSkills(before);
  const missing = loaded.filter((l) => !kept.has(l.name)).reverse();
  const each = (budget.eachTokens ?? REATTACH_EACH_TOKENS) * CHARS_PER_TOKEN;
  let room = (budget.totalTokens ?? REATTACH_TOTAL_TOKENS) * CHARS_PER_TOKEN;
  const parts: string[] = [];
  const named: string[] = [];
  for (const l of missing) {
    const text = l.text.length <= each ? l.text : `${l.text.slice(0, each - CLOSE.length - 80)}\n[… cut here; Recall id ${l.messageId} holds it whole]${CLOSE}`;
    if (text.length > room) {
      named.push(`- ${l.name}: Recall id ${l.messageId}`);
      continue;
    }
    room -= text.length;
    parts.push(text);
  }
  for (const [name, id] of byId) if (!kept.has(name)) named.push(`- ${name}: Recall id ${id}`);
  if (parts.length === 0 && named.length === 0) return undefined;
  const more =
    named.length > 0
      ? `\n\nSkills loaded earlier that did not fit here (the Skill tool loads one again, Recall opens the text as it was):\n${named.join('\n')}`
      : '';
  return {
    id: newId(),
    role: 'user',
    kind: 'meta',
    blocks: [{ type: 'text', text: `${REATTACH_HEADER}\n\n${parts.join('\n\n')}${more}` }],
    createdAt: Date.now(),
  };
}
