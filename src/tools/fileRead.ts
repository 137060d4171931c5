import { isUtf8 } from 'node:buffer';
import type { Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { describeBinary, readHead, sniff } from './binary.js';
import { fmtBytes, fmtInt } from './format.js';
import { localFiles, seenState } from './fileAccess.js';
import { describeFsError, errnoCode, similarNames } from './fsErrors.js';
import { parseInput, toInputSchema } from './inputSchema.js';
import { ReadRows } from './readRows.js';
import { displayPath, resolvePath } from './paths.js';
import { decodeText } from './textFile.js';
import { truncateLine } from './truncate.js';
import { callFiles, type Tool, type ToolContext, type ToolOutput, type ToolSession } from './types.js';
import { promptText } from '../promptText.js';
import { describeImage, prepareImage } from '../media/prepare.js';
import DESCRIPTION from './fileRead.md';
import { TOOL } from './toolNames.js';

export interface FileReadOptions {
  /** Lines per read when the model gives no limit. */
  maxLines?: number;
  /** Characters of output per read (line numbers included). */
  maxChars?: number;
  /** Longer lines are cut. */
  maxLineChars?: number;
}

const DEFAULTS = { maxLines: 2000, maxChars: 100_000, maxLineChars: 2000 };

const FileReadInput = z.object({
  path: z.string().check(z.minLength(1), z.describe("The file's path.")),
  offset: z.optional(z.int().check(z.minimum(1))).check(z.describe('First line (1-based). Default 1.')),
  limit: z.optional(z.int().check(z.minimum(1))).check(z.describe('Lines to read. Default 2000.')),
});
export type FileReadInput = z.infer<typeof FileReadInput>;

/** FileRead reads through its session's file port and records what it read in its tracker. */
export function createFileReadTool(options: FileReadOptions = {}, session: ToolSession = {}): Tool<FileReadInput> {
  const o = { ...DEFAULTS, ...options };
  const inputSchema = toInputSchema(FileReadInput);
  return {
    name: TOOL.FileRead,
    description: promptText(DESCRIPTION, { maxLines: fmtInt(o.maxLines), maxChars: fmtInt(o.maxChars), maxLineChars: fmtInt(o.maxLineChars) }),
    inputSchema,
    kind: 'read',
    parse: (input) => parseInput('FileRead', FileReadInput, inputSchema, input),
    summarize: (input) =>
      input.path +
      (input.offset !== undefined || input.limit !== undefined
        ? ` (from line ${input.offset ?? 1}${input.limit !== undefined ? `, ${input.limit} lines` : ''})`
        : ''),
    run: (input, ctx) => readFileLines(input, ctx, session, o),
  };
}

const fail = (content: string): ToolOutput => ({ content, isError: true });
/** Windows-1252's 0x80–0x9F (Node's TextDecoder reads the label as Latin-1 there, giving control characters); the five it leaves undefined as U+FFFD. */
const CP1252_HIGH = '€\uFFFD‚ƒ„…†‡ˆ‰Š‹Œ\uFFFDŽ\uFFFD\uFFFD‘’“”•–—˜™š›œ\uFFFDžŸ';
const decodeWindows1252 = (bytes: Buffer): string => bytes.toString('latin1').replace(/[\x80-\x9f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]!);

async function readFileLines(input: FileReadInput, ctx: ToolContext, session: ToolSession, o: typeof DEFAULTS): Promise<ToolOutput> {
  const files = callFiles(session, ctx);
  const abs = resolvePath(ctx.cwd, input.path);
  const shown = displayPath(ctx.cwd, abs);
  if (ctx.signal.aborted) return fail('Interrupted before the file was read.');

  let size: number;
  let seen: Stats;
  try {
    const st = await stat(abs);
    seen = st;
    if (st.isDirectory()) {
      const p = shown === '.' ? '' : `${shown}/`;
      return fail(`${shown} is a directory, not a file. To list its files use Glob with pattern "${p}*" (or "${p}**/*" for everything below it).`);
    }
    if (!st.isFile()) return fail(`${shown} is not a regular file (a device, socket or pipe); FileRead only reads files.`);
    size = st.size;
  } catch (e) {
    let msg = describeFsError(e, shown);
    if (errnoCode(e) === 'ENOENT') {
      const similar = await similarNames(abs);
      if (similar.length > 0) msg += `. Did you mean: ${similar.map((n) => displayPath(ctx.cwd, join(abs, '..', n))).join(', ')}?`;
    }
    return fail(msg);
  }

  try {
    const head = await readHead(abs);
    if (head.length >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff))) {
      const out = await readUtf16(abs, shown, size, input, o);
      if (!out.isError) files?.record(abs, seen);
      return out;
    }
    const s = sniff(head);
    if (s.kind && IMAGE_KINDS.has(s.kind)) return await readImage(abs, shown, size, s.kind);
    if (s.binary) return fail(`${shown} is ${describeBinary(s)} of ${fmtBytes(size)}; FileRead only reads text files.`);
  } catch (e) {
    return fail(describeFsError(e, shown));
  }

  const start = input.offset ?? 1;
  const limit = input.limit ?? o.maxLines;
  const rows = new ReadRows(start, o.maxChars, o.maxLineChars);

  const maxLineBytes = o.maxLineChars * 4 + 4;
  let parts: Buffer[] = [];
  let partBytes = 0;
  let lineBytes = 0;
  let lineNo = 1;
  let pendingLine = false; // bytes seen since the last newline

  const collecting = (): boolean => lineNo >= start && lineNo < start + limit && !rows.full;
  const finishLine = (): void => {
    if (!collecting()) return;
    const bytes = Buffer.concat(parts);
    // a line that is not UTF-8 (a Latin-1 file) is shown as Windows-1252 reads it, and said to be so
    const foreign = lineBytes === partBytes && !isUtf8(bytes);
    let text = foreign ? decodeWindows1252(bytes) : bytes.toString('utf8');
    if (lineNo === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.endsWith('\r')) text = text.slice(0, -1);
    const cut =
      lineBytes > partBytes
        ? { text: `${text.slice(0, o.maxLineChars)}… [line cut; ${fmtBytes(lineBytes)} in all]`, truncated: true }
        : truncateLine(text, o.maxLineChars);
    rows.add(lineNo, cut.text, cut.truncated, foreign);
  };

  // the content comes through the session's file port: the disk, or an editor's buffer (unsaved changes included)
  const access = session.fileAccess ?? localFiles;
  const whole: Buffer[] = [];
  try {
    for await (const buf of access.chunks(abs)) {
      if (ctx.signal.aborted) return fail(`Interrupted while reading ${shown}.`);
      if (access.buffered) whole.push(buf);
      const bytesRead = buf.length;
      let pos = 0;
      while (pos < bytesRead) {
        const nl = buf.indexOf(10, pos);
        const end = nl === -1 || nl >= bytesRead ? bytesRead : nl;
        if (end > pos) pendingLine = true;
        lineBytes += end - pos;
        if (collecting() && partBytes < maxLineBytes) {
          const take = Math.min(end - pos, maxLineBytes - partBytes);
          parts.push(Buffer.from(buf.subarray(pos, pos + take)));
          partBytes += take;
        }
        if (end === bytesRead) break;
        finishLine();
        parts = [];
        partBytes = 0;
        lineBytes = 0;
        pendingLine = false;
        lineNo++;
        pos = nl + 1;
      }
    }
  } catch (e) {
    return fail(describeFsError(e, shown));
  }
  // a last line without a trailing newline
  if (pendingLine) finishLine();
  // the version the model has now seen: Edit and Write check against it (a buffer's by its content)
  if (access.buffered) {
    const content = Buffer.concat(whole);
    files?.record(abs, seenState(access, seen, content), content);
  } else files?.record(abs, seen);
  const total = pendingLine ? lineNo : lineNo - 1;
  // (files in /proc report size 0 but have content, so emptiness is known only now)
  return rows.result(shown, total);
}

const IMAGE_KINDS = new Set(['PNG image', 'JPEG image', 'GIF image', 'WebP image']);
/** Image files larger than this are not decoded (a screenshot or photo is far smaller). */
const MAX_IMAGE_FILE_BYTES = 64 * 1024 * 1024;

/** An image file: decoded, downscaled to the providers' limits when larger, and handed to the model as an image. */
async function readImage(abs: string, shown: string, size: number, kind: string): Promise<ToolOutput> {
  if (size > MAX_IMAGE_FILE_BYTES) return fail(`${shown} is an image of ${fmtBytes(size)}; FileRead decodes images up to ${fmtBytes(MAX_IMAGE_FILE_BYTES)}.`);
  const r = await prepareImage(await readFile(abs), shown, `a ${kind}`);
  if (!r.ok) return fail(`${r.why}.`);
  return { content: describeImage(shown, r.image), isError: false, images: [{ mediaType: r.image.mediaType, data: r.image.data }] };
}

/** Files in UTF-16 (with a byte order mark) are decoded whole, up to this size. */
const MAX_UTF16_BYTES = 16 * 1024 * 1024;

/** A UTF-16 file (FileRead's byte reader speaks UTF-8): decoded whole, numbered the same way. */
async function readUtf16(abs: string, shown: string, size: number, input: FileReadInput, o: typeof DEFAULTS): Promise<ToolOutput> {
  if (size > MAX_UTF16_BYTES) return fail(`${shown} is a UTF-16 file of ${fmtBytes(size)}; FileRead decodes UTF-16 files up to ${fmtBytes(MAX_UTF16_BYTES)}.`);
  const decoded = decodeText(await readFile(abs));
  if (!decoded.ok) return fail(`${shown} ${decoded.why}.`);
  const lines = decoded.decoded.text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const start = input.offset ?? 1;
  const limit = input.limit ?? o.maxLines;
  const rows = new ReadRows(start, o.maxChars, o.maxLineChars);
  for (let n = start; n < start + limit && n <= lines.length && !rows.full; n++) {
    const cut = truncateLine(lines[n - 1]!, o.maxLineChars);
    rows.add(n, cut.text, cut.truncated);
  }
  return rows.result(shown, lines.length);
}
