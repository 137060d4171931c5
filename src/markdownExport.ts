// `agent sessions export <id> --format md`: the whole session as one Markdown document. Every
// message in the order it happened, archived ones in their place (marked) with the checkpoint
// that replaced them right after; tool calls and outputs fenced; tool results under their
// call's message rather than headed as the user's; headings inside messages nested below the
// message's own heading.
import type { Message } from './llm/messages.js';
import { collectToolCalls, messageText, speakerOf, type TextStyle } from './llm/messageText.js';
import type { SessionInfo, TranscriptEntry } from './store/index.js';
import { spillHandleOf } from './tools/spill.js';
import { archiveCause } from './session/recordIds.js';

const CHECKPOINT_ID = /^\[Context checkpoint — compaction (\S+)\]/;

/** A fence longer than any run of backticks in the text, so the text cannot close it. */
export function fenced(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text.replace(/\n$/, '')}\n${fence}`;
}

/** Pushes Markdown headings down `by` levels (outside code fences), so they sit under the message's heading. */
export function nestHeadings(text: string, by: number): string {
  let fence: string | null = null;
  return text
    .split('\n')
    .map((line) => {
      const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
      if (f) {
        if (fence === null) fence = f[1]!;
        else if (f[1]!.startsWith(fence[0]!) && f[1]!.length >= fence.length) fence = null;
        return line;
      }
      if (fence !== null) return line;
      const h = /^(#{1,6})(\s)/.exec(line);
      return h ? `${'#'.repeat(Math.min(6, h[1]!.length + by))}${line.slice(h[1]!.length)}` : line;
    })
    .join('\n');
}

/** Archived messages in their place: each checkpoint moves to just after the last message its compaction archived. */
export function inPlace(entries: readonly TranscriptEntry[]): TranscriptEntry[] {
  const out = entries.filter((e) => e.message.kind !== 'checkpoint');
  const checkpoints = entries.filter((e) => e.message.kind === 'checkpoint');
  for (const c of checkpoints) {
    const text = c.message.blocks[0]?.type === 'text' ? c.message.blocks[0].text : '';
    const compaction = CHECKPOINT_ID.exec(text)?.[1];
    let at = -1;
    if (compaction) for (let i = 0; i < out.length; i++) if (out[i]!.archivedBy === compaction) at = i;
    // an earlier checkpoint archived by this compaction counts too, so search again after inserting
    if (at === -1) at = out.findIndex((e) => e.message.createdAt > c.message.createdAt) - 1;
    out.splice(at === -2 ? out.length : at + 1, 0, c);
  }
  return out;
}

const when = (ms: number): string => new Date(ms).toISOString();

const WHO = { tool_results: 'Tool results', checkpoint: 'Checkpoint', meta: 'Agent note', user: 'User', assistant: 'Assistant' } as const;

function heading(m: Message, archivedBy: string | null): string {
  const speaker = speakerOf(m);
  const marks = [
    m.pinned ? 'pinned' : '',
    m.interrupted ? 'interrupted' : '',
    archivedBy ? `archived by ${archiveCause(archivedBy)} ${archivedBy}` : '',
  ].filter(Boolean);
  return `${speaker === 'tool_results' ? '###' : '##'} ${WHO[speaker]}${marks.length > 0 ? ` (${marks.join(', ')})` : ''} — ${when(m.createdAt)}`;
}

/** The whole text of a spilled output by its handle (from the store), when there is one. */
export type SpilledText = (handle: string) => string | undefined;

/** Texts with their headings nested under the message's, tool calls and outputs fenced; a spilled output marked and printed whole after its preview. */
const markdownStyle = (spilled: SpilledText): TextStyle => ({
  separator: '\n\n',
  text: (text, block) => {
    if (text.trim() === '') return null;
    // a spilled @mention: the whole file from the archive after its preview
    const handle = block.origin?.kind === 'attachment' ? block.origin.archived : undefined;
    const whole = handle ? spilled(handle) : undefined;
    return nestHeadings(text.trim(), 2) + (whole !== undefined ? `\n\nThe whole file (${handle}):\n\n${fenced(whole)}` : '');
  },
  toolUse: (b) => `**Tool call** \`${b.name}\` (${b.id})\n\n${fenced(JSON.stringify(b.input, null, 2), 'json')}`,
  toolResult: (b, call) => {
    const handle = spillHandleOf(b.content);
    const state = b.isError
      ? ', error'
      : b.cleared
        ? `, cleared by compaction; Recall id ${b.cleared.archiveId}`
        : handle
          ? `, spilled to the archive as ${handle}`
          : '';
    const whole = handle ? spilled(handle) : undefined;
    const rest = whole !== undefined ? `\n\nThe whole output (${handle}):\n\n${fenced(whole)}` : '';
    return `**${call?.name ?? 'tool'} result** (${b.toolUseId}${state})\n\n${fenced(b.content)}${rest}`;
  },
  thinking: (t) =>
    t.trim()
      ? `> **Thinking**\n>\n${t
          .trim()
          .split('\n')
          .map((l) => `> ${l}`.trimEnd())
          .join('\n')}`
      : '> **Thinking** (not shown by the provider)',
});

export function sessionMarkdown(info: SessionInfo, entries: readonly TranscriptEntry[], spilled: SpilledText = () => undefined): string {
  const style = markdownStyle(spilled);
  const calls = collectToolCalls(entries.map((e) => e.message));
  const out: string[] = [`# ${info.title ?? '(untitled)'}`, `session ${info.id} · ${info.provider}/${info.model} · ${info.cwd}`];
  for (const { message, archivedBy } of inPlace(entries)) {
    const text = messageText(message, style, calls);
    out.push(archivedBy ? `${heading(message, archivedBy)}\n\n${quote(text)}` : `${heading(message, archivedBy)}\n\n${text}`);
  }
  return `${out.join('\n\n').replace(/\s+$/, '')}\n`;
}

/** Archived messages are quoted, so they read as out of the model's view. */
function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => (l === '' ? '>' : `> ${l}`))
    .join('\n');
}
