import { newId, type Block, type Message, type ToolResultBlock } from '../llm/messages.js';
import { isSpillPreview } from '../tools/spill.js';
import { imageLabel } from '../llm/withoutImages.js';
import { oneLine } from '../llm/messageText.js';
import { TOOL_RESULT_OVERHEAD, type TokenCounter } from './tokens.js';
import type { ClearedOutput } from '../history/compaction.js';
import { fmtInt } from '../tools/format.js';

/** Names a tool call by its key argument (the Tool's own `summarize`, when the session has it). */
export type DescribeToolUse = (name: string, input: Record<string, unknown>) => string;

const KEY_FIELDS = ['command', 'path', 'file_path', 'pattern', 'query', 'id', 'url'];
const MAX_KEY_CHARS = 80;

/** The key argument of a tool call: its command, path, pattern, ... on one short line. */
export const toolKeyArgument: DescribeToolUse = (_name, input) => {
  for (const key of KEY_FIELDS) {
    const v = input[key];
    if (typeof v === 'string' && v.trim() !== '') return oneLine(v, MAX_KEY_CHARS);
  }
  const json = JSON.stringify(input);
  return json === '{}' ? '' : oneLine(json, MAX_KEY_CHARS);
};

/** Results smaller than this are not worth a placeholder. */
export const MIN_CLEAR_TOKENS = 64;

export interface MicroOptions {
  /** Tools whose old results may be cleared (FileRead, Bash, Grep, Glob, Recall, ...). */
  compactableTools: readonly string[];
  /** The most recent compactable results stay intact. */
  keepRecent: number;
  describe?: DescribeToolUse;
  /** Images in the person's last this-many turns stay (default IMAGE_KEEP_TURNS); older ones give way to a placeholder. */
  imageKeepTurns?: number;
}

/**
 * Images in the person's last IMAGE_KEEP_TURNS turns stay in view; an older one (a message's
 * image block, a tool result's images) is replaced by a placeholder naming a Recall id, and
 * Recall with that id attaches it again (the message row in the store keeps its bytes).
 */
export const IMAGE_KEEP_TURNS = 2;

export interface MicroCandidate {
  messageIndex: number;
  blockIndex: number;
  toolUseId: string;
  toolName: string;
  /** The call's key argument. */
  summary: string;
  /** Tokens of the result's content. */
  tokens: number;
  /** Only the images go (a tool result's images, or a message's image block: toolUseId `image:<block index>`); the text stays. */
  imagesOnly?: boolean;
}

interface CallInfo {
  name: string;
  input: Record<string, unknown>;
  messageIndex: number;
}

/**
 * Old results of compactable tools to clear: every compactable result except the keepRecent
 * most recent ones, those the model has not seen yet (after the last assistant message: the
 * current step), pinned pairs, results already cleared or spilled (a spill preview is small
 * and names its handle), and results too small to matter.
 */
export function selectMicro(history: readonly Message[], opts: MicroOptions, counter: TokenCounter): MicroCandidate[] {
  const compactable = new Set(opts.compactableTools);
  const describe = opts.describe ?? toolKeyArgument;
  const calls = new Map<string, CallInfo>();
  let lastAssistant = -1;
  const found: Array<{ messageIndex: number; blockIndex: number; block: ToolResultBlock; call: CallInfo }> = [];
  for (let i = 0; i < history.length; i++) {
    const msg = history[i]!;
    if (msg.role === 'assistant') {
      lastAssistant = i;
      for (const b of msg.blocks) if (b.type === 'tool_use') calls.set(b.id, { name: b.name, input: b.input, messageIndex: i });
      continue;
    }
    msg.blocks.forEach((b, j) => {
      if (b.type !== 'tool_result') return;
      const call = calls.get(b.toolUseId);
      if (call && compactable.has(call.name)) found.push({ messageIndex: i, blockIndex: j, block: b, call });
    });
  }
  const older = found.slice(0, Math.max(0, found.length - opts.keepRecent));
  const out: MicroCandidate[] = [];
  for (const f of older) {
    if (f.messageIndex > lastAssistant) continue; // the current step: the model has not seen it yet
    if (f.block.cleared) continue;
    if (isSpillPreview(f.block.content)) continue; // spilled: already small, and its handle must stay in view
    if (history[f.messageIndex]!.pinned || history[f.call.messageIndex]!.pinned) continue;
    const tokens = counter.countBlock(f.block) - TOOL_RESULT_OVERHEAD;
    if (tokens < MIN_CLEAR_TOKENS) continue;
    out.push({
      messageIndex: f.messageIndex,
      blockIndex: f.blockIndex,
      toolUseId: f.block.toolUseId,
      toolName: f.call.name,
      summary: describe(f.call.name, f.call.input),
      tokens,
    });
  }
  return [...out, ...selectImages(history, opts, counter, calls, lastAssistant, out)];
}

/** Old images not cleared with their result: those before the person's last imageKeepTurns turns that the model has seen. */
function selectImages(
  history: readonly Message[],
  opts: MicroOptions,
  counter: TokenCounter,
  calls: ReadonlyMap<string, CallInfo>,
  lastAssistant: number,
  taken: readonly MicroCandidate[],
): MicroCandidate[] {
  const turns = history.flatMap((m, i) => (m.role === 'user' && m.kind === 'normal' && !m.blocks.some((b) => b.type === 'tool_result') ? [i] : []));
  const keep = opts.imageKeepTurns ?? IMAGE_KEEP_TURNS;
  const cutoff = Math.min(turns.length >= keep ? turns[turns.length - keep]! : 0, lastAssistant + 1);
  const describe = opts.describe ?? toolKeyArgument;
  const out: MicroCandidate[] = [];
  for (let i = 0; i < cutoff; i++) {
    const msg = history[i]!;
    if (msg.role !== 'user' || msg.pinned) continue;
    msg.blocks.forEach((b, j) => {
      if (taken.some((t) => t.messageIndex === i && t.blockIndex === j)) return;
      if (b.type === 'image') {
        const tokens = counter.countBlock(b);
        if (tokens >= MIN_CLEAR_TOKENS)
          out.push({ messageIndex: i, blockIndex: j, toolUseId: `image:${j}`, toolName: 'image', summary: imageLabel(b), tokens, imagesOnly: true });
      } else if (b.type === 'tool_result' && b.images && b.images.length > 0 && !b.cleared) {
        const call = calls.get(b.toolUseId);
        const tokens = counter.countBlock(b) - counter.countBlock({ ...b, images: [] });
        if (tokens >= MIN_CLEAR_TOKENS)
          out.push({
            messageIndex: i,
            blockIndex: j,
            toolUseId: b.toolUseId,
            toolName: call?.name ?? 'tool',
            summary: call ? describe(call.name, call.input) : '',
            tokens,
            imagesOnly: true,
          });
      }
    });
  }
  return out;
}

/** "PNG 800×600" (or "2 images"), what a placeholder names. */
const imagesLabel = (images: readonly { mediaType: string; data: string }[]): string =>
  images.length === 1 ? imageLabel(images[0]!) : `${images.length} images`;

/** What stands where images were: what they were, and the Recall id that attaches them again. */
export const imagePlaceholder = (images: readonly { mediaType: string; data: string }[], archiveId: string): string =>
  `[image${images.length === 1 ? '' : 's'} (${imagesLabel(images)}) removed to save context — Recall id ${archiveId} attaches ${images.length === 1 ? 'it' : 'them'} again]`;

/** What replaces a cleared output: what it was, its size, and how to get it back. */
export function clearedPlaceholder(toolName: string, summary: string, tokens: number, archiveId: string): string {
  const what = summary ? `${toolName} output for \`${summary}\`` : `${toolName} output`;
  return `[${what} cleared to save context (${fmtInt(tokens)} tokens) — Recall id ${archiveId}]`;
}

/** What a cleared result with images adds to its placeholder: the same Recall id attaches them again. */
const imagesNote = (n: number): string =>
  n === 0 ? '' : ` [${n === 1 ? 'an image was' : `${n} images were`} removed with it; the same Recall id attaches ${n === 1 ? 'it' : 'them'} again]`;

export interface MicroResult {
  /** The history with the cleared blocks (unchanged messages are the same objects). */
  messages: Message[];
  /** New versions of the messages whose blocks changed (same ids). */
  replaced: Message[];
  cleared: ClearedOutput[];
  /** Uncalibrated tokens saved. */
  savedRaw: number;
}

/** Replaces the candidates' contents with placeholders; the input history is left untouched. */
export function applyMicro(
  history: readonly Message[],
  candidates: readonly MicroCandidate[],
  counter: TokenCounter,
  archiveId: () => string = () => newId('tx'),
): MicroResult {
  const byMessage = new Map<number, MicroCandidate[]>();
  for (const c of candidates) {
    const list = byMessage.get(c.messageIndex) ?? [];
    list.push(c);
    byMessage.set(c.messageIndex, list);
  }
  const messages = history.slice();
  const replaced: Message[] = [];
  const cleared: ClearedOutput[] = [];
  let savedRaw = 0;
  for (const [index, list] of byMessage) {
    const original = history[index]!;
    const blocks: Block[] = original.blocks.slice();
    for (const c of list) {
      const block = blocks[c.blockIndex];
      if (c.imagesOnly && block?.type === 'image') {
        const id = archiveId();
        const next: Block = { type: 'text', text: imagePlaceholder([block], id) };
        blocks[c.blockIndex] = next;
        savedRaw += counter.countBlock(block) - counter.countBlock(next);
        cleared.push({
          archiveId: id,
          messageId: original.id,
          toolUseId: c.toolUseId,
          toolName: c.toolName,
          summary: c.summary,
          content: next.text,
          isError: false,
          tokens: c.tokens,
        });
        continue;
      }
      if (block?.type !== 'tool_result') continue;
      const id = archiveId();
      const { images, ...kept } = block;
      const next: ToolResultBlock =
        c.imagesOnly && images
          ? { ...kept, content: `${block.content}\n${imagePlaceholder(images, id)}` }
          : {
              ...kept,
              // its images are dropped with it (the archive keeps the text): the placeholder says how to see one again
              content: clearedPlaceholder(c.toolName, c.summary, c.tokens, id) + imagesNote(images?.length ?? 0),
              cleared: { archiveId: id, originalTokens: c.tokens },
            };
      blocks[c.blockIndex] = next;
      savedRaw += counter.countBlock(block) - counter.countBlock(next);
      cleared.push({
        archiveId: id,
        messageId: original.id,
        toolUseId: block.toolUseId,
        toolName: c.toolName,
        summary: c.summary,
        content: block.content,
        isError: block.isError,
        tokens: c.tokens,
      });
    }
    const updated: Message = { ...original, blocks };
    messages[index] = updated;
    replaced.push(updated);
  }
  return { messages, replaced, cleared, savedRaw };
}
