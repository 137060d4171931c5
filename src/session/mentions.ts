// `@path` in a prompt: the file is attached to the message, read through the FileRead tool
// (its size limits, binary refusal and error messages), and `@dir/` attaches a listing.
// The attachment goes through the registered FileRead tool's `run`, the same code path as a
// FileRead call of the model, so whatever tracks reads there (the per-session read tracker
// that lets a later edit through) counts an attached file as read, as a spilled FileRead does.
//
// A file larger than the attachment budget (a quarter of the effective window, at most 25,000
// tokens, shared by the message's mentions) goes through the spill rule of large tool outputs:
// the whole file (up to the archive's cap) is archived under a handle, and the message carries
// its head-and-tail preview with the handle, so the model Recalls the lines or the pattern it
// needs. A prompt that mentions a huge file so fits the window (docs/compaction.md, Spilled tool outputs).
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { userMessage, type ImageBlock, type Message, type TextBlock } from '../llm/messages.js';
import { GitignoreRules } from '../tools/gitignore.js';
import { displayPath, resolvePath } from '../tools/paths.js';
import { typedCommand } from './typedCommand.js';
import { estimateTokens, fullOutputOf, spillPreview } from '../tools/spill.js';
import type { AnyTool, SpillSink, ToolOutput } from '../tools/types.js';
import { TOOL } from '../tools/toolNames.js';

/** Starts every attachment block; its origin (`attachment`, with the header's label) makes the transcript show it as one "attached" line. */
export const ATTACHMENT_HEADER = '[Attached by the user with @';
/** More mentions than this in one prompt are not attached (each can be a large file). */
export const MAX_ATTACHMENTS = 10;
const MAX_LISTING = 200;
/** Lines asked of FileRead for a mention: the whole file (its output and the archive's caps still apply). */
const WHOLE_FILE_LINES = 100_000_000;

/** Tokens of file text one message may attach whole: a quarter of the effective window, at most 25,000. */
export const attachBudget = (effectiveWindow: number): number => Math.min(25_000, Math.floor(effectiveWindow / 4));

/** The spill option of promptMessage: none without a sink (a read-only store), else the budget of this window. */
export const mentionSpill = (sink: SpillSink | undefined, effectiveWindow: number): SpillOption | undefined =>
  sink ? { sink, budgetTokens: attachBudget(effectiveWindow) } : undefined;

/** Where a mentioned file over the budget goes whole (the session's spill sink), and the budget. */
export interface MentionSpill {
  sink: SpillSink;
  /** Tokens the message's mentions may attach whole (attachBudget). */
  budgetTokens: number;
  /** The id the archived output is filed under (the person's message id, with the mention). */
  messageId: string;
}

/** What promptMessage is given: the message id is its own. */
type SpillOption = Omit<MentionSpill, 'messageId'>;

export interface Attachments {
  /** An attachment's text block, each image it brought (an image file) right after it. */
  blocks: (TextBlock | ImageBlock)[];
  /** What was attached, as typed ("src/cli.ts", "src/"). */
  attached: string[];
  /** Absolute paths of the files read (not directories): what a read tracker should count as read. */
  readPaths: string[];
  /** Mentions that name a file but could not be attached, with the reason (shown to the person). */
  problems: string[];
  /** An image the prompt names could not be attached: the prompt is not sent (the model would answer without what it was shown). */
  refused?: string;
}

/** A path the person names as an image (a screenshot, a diagram): its failure stops the prompt. */
const IMAGE_PATH = /\.(png|jpe?g|gif|webp)$/i;

/** The `@word`s of a prompt: at the start or after a blank, trailing punctuation not included; `@"a path"` quoted (a pasted image's chip). */
export function findMentions(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\s)@(?:"((?:[^"\\]|\\.)+)"|([^\s@]+))/g)) {
    const word = m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!.replace(/[,;:!?)\]}'"]+$/, '').replace(/\.$/, '');
    if (word !== '' && !out.includes(word)) out.push(word);
  }
  return out;
}

/** What the person typed of a prompt: its text without the blocks added to it (@attachments, hooks' context, the plan-mode note), a custom command as typed. */
export const typedText = (m: Message): string =>
  m.blocks
    .flatMap((b) => (b.type !== 'text' ? [] : b.origin === undefined ? [b.text] : b.origin.kind === 'typed_command' ? [b.origin.typed] : []))
    .join('\n')
    .trim();

/** An attachment's text block: its header (`label` after the @) and body, and the origin that says so. */
function attachment(label: string, body: string, archived?: string): TextBlock {
  return {
    type: 'text',
    text: `${ATTACHMENT_HEADER}${label}]\n${body}`,
    origin: archived ? { kind: 'attachment', label, archived } : { kind: 'attachment', label },
  };
}

/**
 * Reads what the prompt mentions. A word that names nothing on disk is left alone (an e-mail
 * address, a decorator, a handle); one that names a file FileRead refuses is reported.
 */
export async function attachMentions(
  text: string,
  tools: readonly AnyTool[],
  cwd: string,
  signal: AbortSignal,
  /** The id FileRead records its reads under in the tracker its tools close over (the message's). */
  readId?: string,
  spill?: MentionSpill,
): Promise<Attachments> {
  const result: Attachments = { blocks: [], attached: [], readPaths: [], problems: [] };
  let budget = spill?.budgetTokens ?? 0;
  const fileRead = tools.find((t) => t.name === TOOL.FileRead);
  for (const word of findMentions(text)) {
    if (result.attached.length >= MAX_ATTACHMENTS) {
      result.problems.push(`@${word}: not attached, at most ${MAX_ATTACHMENTS} files per message`);
      continue;
    }
    const abs = resolvePath(cwd, word);
    const kind = await stat(abs).then(
      (s) => (s.isDirectory() ? 'dir' : 'file'),
      () => undefined,
    );
    if (!kind) continue;
    if (kind === 'dir') {
      result.blocks.push(attachment(`${word}: directory listing`, await listing(abs, cwd)));
      result.attached.push(word);
      continue;
    }
    if (!fileRead) {
      result.problems.push(`@${word}: not attached, this session has no FileRead tool`);
      continue;
    }
    const input = spill ? { path: word, limit: WHOLE_FILE_LINES } : { path: word };
    const out = await fileRead.run(fileRead.parse(input), { cwd, signal, ...(readId !== undefined ? { toolUseId: readId } : {}) });
    if (out.isError) {
      if (IMAGE_PATH.test(word)) result.refused ??= `@${word}: the image could not be attached: ${out.content}`;
      else result.problems.push(`@${word}: not attached: ${out.content}`);
      continue;
    }
    if (out.images && out.images.length > 0) {
      // an image file: its description, then the image itself (FileRead downscaled it to fit)
      result.blocks.push(attachment(`${word}: read with FileRead`, out.content));
      result.blocks.push(...out.images.map((i) => ({ type: 'image' as const, mediaType: i.mediaType, data: i.data })));
      result.attached.push(word);
      continue;
    }
    const tokens = estimateTokens(out.full?.totalChars ?? out.content.length);
    if (!spill || (out.full === undefined && tokens <= budget)) {
      budget -= tokens;
      result.blocks.push(attachment(`${word}: read with FileRead`, out.content));
    } else result.blocks.push(spilledAttachment(word, out, spill));
    result.attached.push(word);
    result.readPaths.push(abs);
  }
  return result;
}

/** A mention over the budget: the whole file archived, its preview and handle attached. */
function spilledAttachment(word: string, out: ToolOutput, spill: MentionSpill): TextBlock {
  const full = out.full ?? fullOutputOf(out.content);
  const handle = spill.sink.archive({ toolUseId: `${spill.messageId}@${word}`, toolName: TOOL.FileRead, summary: `@${word}`, isError: false, full });
  return attachment(`${word}: too large to attach whole, archived as ${handle}`, spillPreview(full, handle), handle);
}

/** The entries of a directory (directories with a trailing /), .gitignore'd ones left out. */
async function listing(abs: string, cwd: string): Promise<string> {
  const rules = await GitignoreRules.forSearch(abs, cwd);
  const entries = await readdir(abs, { withFileTypes: true });
  const kept: string[] = [];
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name === '.git') continue;
    const path = join(abs, e.name);
    if (await rules.isIgnored(path, e.isDirectory())) continue;
    kept.push(`${displayPath(cwd, path)}${e.isDirectory() ? '/' : ''}`);
  }
  const shown = kept.slice(0, MAX_LISTING);
  if (kept.length > shown.length) shown.push(`… and ${kept.length - shown.length} more`);
  return shown.length > 0 ? shown.join('\n') : '(empty directory)';
}

/**
 * The message of a prompt, with the files and directories it @mentions attached. The files go
 * through the FileRead of `tools`, built over the session's tracker: an @mentioned file counts as read for Edit.
 * An @mentioned image that cannot be read refuses the prompt (`refused`, shown to the person).
 */
export async function promptMessage(
  text: string,
  s: {
    tools: readonly AnyTool[];
    cwd: string;
    signal: AbortSignal;
    warn: (problem: string) => void;
    spill?: SpillOption | undefined;
  },
): Promise<Message | { refused: string }> {
  // a custom command's prompt: the command as typed is its origin (the transcript shows that, the model reads the body)
  const typed = typedCommand(text);
  const msg: Message = typed ? { ...userMessage(text), blocks: [{ type: 'text', text, origin: { kind: 'typed_command', typed } }] } : userMessage(text);
  if (!text.includes('@')) return msg;
  const spill = s.spill ? { ...s.spill, messageId: msg.id } : undefined;
  // the reads are stored under the message's id: a resumed session counts its @files as read (trackerRebuild.ts)
  const { blocks, problems, refused } = await attachMentions(text, s.tools, s.cwd, s.signal, msg.id, spill);
  if (refused) return { refused: `${refused} Your message was not sent: fix the image or remove its @mention, then send it again.` };
  for (const p of problems) s.warn(p);
  return blocks.length > 0 ? { ...msg, blocks: [...msg.blocks, ...blocks] } : msg;
}
