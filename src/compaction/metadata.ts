import { textOf, type Message } from '../llm/messages.js';
import { oneLine } from '../llm/messageText.js';
import { modifiedFiles } from './modified.js';
import { isTurnStart } from './split.js';
import { truncateMiddle } from './text.js';

const MAX_LIST = 30;
const LAST_MESSAGE_CHARS = 800;
const PREVIOUS_CHARS = 12_000;

const quote = (text: string): string =>
  truncateMiddle(text.trim(), LAST_MESSAGE_CHARS)
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');

/**
 * The last resort when no summarizer request fits: a checkpoint built without a model, from
 * what the messages hold mechanically — counts, files touched, commands run, the last request
 * and the last reply — plus the previous checkpoint, so earlier knowledge is not dropped.
 */
export function metadataSummary(messages: readonly Message[], previous?: string): string {
  let requests = 0;
  let replies = 0;
  const toolCounts = new Map<string, number>();
  const files = new Map<string, Set<string>>();
  const commands: Array<{ id: string; command: string }> = [];
  const failed = new Set<string>();
  let lastUser = '';
  let lastAssistant = '';
  for (const m of messages) {
    if (isTurnStart(m)) {
      requests += 1;
      const t = textOf(m);
      if (t.trim()) lastUser = t;
    }
    if (m.role === 'assistant') {
      replies += 1;
      const t = textOf(m);
      if (t.trim()) lastAssistant = t;
    }
    for (const b of m.blocks) {
      if (b.type === 'tool_result' && b.isError) failed.add(b.toolUseId);
      if (b.type !== 'tool_use') continue;
      toolCounts.set(b.name, (toolCounts.get(b.name) ?? 0) + 1);
      const path = b.input.path ?? b.input.file_path;
      if (typeof path === 'string' && path) {
        const tools = files.get(path) ?? new Set<string>();
        tools.add(b.name);
        files.set(path, tools);
      }
      if (typeof b.input.command === 'string' && b.input.command) commands.push({ id: b.id, command: b.input.command });
    }
  }
  const modified = modifiedFiles(messages);
  const tools = [...toolCounts].map(([name, n]) => `${name} ×${n}`).join(', ');
  const fileLines = [...files].slice(-MAX_LIST).map(([p, t]) => `- \`${p}\` (${[...t].join(', ')})`);
  const commandLines = commands.slice(-MAX_LIST).map((c) => `- \`${oneLine(c.command, 200)}\`${failed.has(c.id) ? ' — failed' : ''}`);
  const parts = [
    'This checkpoint was built without a summarizer (every summarizing request was too large for the model), so it only lists what the',
    'archived messages held. Use the Recall tool to search and read them when a detail is needed.',
    '',
  ];
  if (previous?.trim()) parts.push('## Previous Checkpoint', truncateMiddle(previous.trim(), PREVIOUS_CHARS), '');
  parts.push(
    '## Archived Conversation',
    `- ${messages.length} messages: ${requests} from the person, ${replies} from the assistant${tools ? `; tool calls: ${tools}` : ''}`,
    '',
    '## Files Modified (Edit, Write)',
    ...(modified.length ? modified.slice(-MAX_LIST).map((p) => `- \`${p}\``) : ['(none)']),
    '',
    '## Files Touched',
    ...(fileLines.length ? fileLines : ['(none)']),
    '',
    '## Commands Run',
    ...(commandLines.length ? commandLines : ['(none)']),
    '',
    '## Last Request of the Person',
    lastUser ? quote(lastUser) : '(none)',
    '',
    '## Last Reply of the Assistant',
    lastAssistant ? quote(lastAssistant) : '(none)',
  );
  return parts.join('\n');
}
