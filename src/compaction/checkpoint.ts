import { newId, type Message, type TextBlock } from '../llm/messages.js';
import type { Restoration } from './restore.js';
import { promptText } from '../promptText.js';
import HEADER from './checkpointHeader.md';
import { plural } from '../tools/format.js';

/** Between the checkpoint's header and its summary, in its first text block. */
const SEPARATOR = '\n\n---\n\n';

export function checkpointHeader(compactionId: string, archivedCount: number): string {
  return promptText(HEADER, { compactionId, messages: plural(archivedCount, 'message') });
}

/**
 * The checkpoint message (role user, kind checkpoint): header and summary in the first text
 * block, then the ledger, then the restored context (recent requests, re-read files) as further text blocks, so
 * that a later compaction can take the summary alone as "the previous checkpoint".
 */
export function buildCheckpointMessage(a: {
  compactionId: string;
  summary: string;
  archivedCount: number;
  restoration?: Restoration | undefined;
  createdAt: number;
  /** A tool loop in progress closed into the checkpoint, as text (openLoop.ts). */
  openLoop?: string | undefined;
  /** The working-state ledger (ledger/), its own block right after the summary. */
  ledger?: string | undefined;
}): Message {
  const blocks: TextBlock[] = [{ type: 'text', text: `${checkpointHeader(a.compactionId, a.archivedCount)}${SEPARATOR}${a.summary.trim()}` }];
  if (a.ledger) blocks.push({ type: 'text', text: `\n\n${a.ledger}` });
  if (a.openLoop) blocks.push({ type: 'text', text: `\n\n${a.openLoop}` });
  if (a.restoration?.requests) blocks.push({ type: 'text', text: `\n\n${a.restoration.requests}` });
  if (a.restoration?.files) blocks.push({ type: 'text', text: `\n\n${a.restoration.files}` });
  return { id: newId('m'), role: 'user', kind: 'checkpoint', blocks, createdAt: a.createdAt };
}

/** The summary a checkpoint message carries (without its header and restored context). */
export function checkpointSummary(m: Message): string {
  const first = m.blocks.find((b): b is TextBlock => b.type === 'text');
  if (!first) return '';
  const at = first.text.indexOf(SEPARATOR);
  return (at >= 0 ? first.text.slice(at + SEPARATOR.length) : first.text).trim();
}

export const BRIDGE_TEXT = '[The messages above are pinned: kept verbatim from earlier in the conversation.]';

/**
 * checkpoint + pinned units + tail. Where two assistant messages would meet (a pinned reply
 * followed by another, or by a tail that starts inside a turn), a short meta message bridges
 * them, keeping the user/assistant alternation the providers require.
 */
export function assembleHistory(
  checkpoint: Message,
  pinnedUnits: readonly (readonly Message[])[],
  tail: readonly Message[],
  createdAt: number,
): { messages: Message[]; bridges: Message[] } {
  const messages: Message[] = [checkpoint];
  const bridges: Message[] = [];
  const append = (segment: readonly Message[]): void => {
    const first = segment[0];
    if (!first) return;
    if (first.role === 'assistant' && messages[messages.length - 1]!.role === 'assistant') {
      const bridge: Message = { id: newId('m'), role: 'user', kind: 'meta', blocks: [{ type: 'text', text: BRIDGE_TEXT }], createdAt };
      bridges.push(bridge);
      messages.push(bridge);
    }
    messages.push(...segment);
  };
  for (const unit of pinnedUnits) append(unit);
  append(tail);
  return { messages, bridges };
}
