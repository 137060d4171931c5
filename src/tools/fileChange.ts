// What Edit and Write share: loading the file as the model knows it (refusals for what must
// not be changed), checking the session has read it and it has not changed since, and
// writing the new text back in the file's own format.
import { mkdir, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import { computeDiff, diffStat, formatUnified, type FileDiff } from './fileDiff.js';
import { localFiles, seenState } from './fileAccess.js';
import { contentHash } from './fileTracker.js';
import { fmtBytes } from './format.js';
import { describeFsError, errnoCode, similarNames } from './fsErrors.js';
import { displayPath, isInside, resolvePath } from './paths.js';
import { decodeText, DEFAULT_FORMAT, encodeText, type TextFormat } from './textFile.js';
import type { z } from 'zod/mini';
import { parseInput, toInputSchema } from './inputSchema.js';
import { callFiles, type Tool, type ToolContext, type ToolOutput, type ToolSession } from './types.js';

/** Files larger than this are not edited as text (FileRead pages through them; an edit needs them whole). */
export const MAX_EDIT_BYTES = 64 * 1024 * 1024;
/** Lines of diff the tool result carries; the rest is counted, not shown. */
const RESULT_DIFF_LINES = 200;

export const fail = (content: string): ToolOutput => ({ content, isError: true });

export interface LoadedFile {
  abs: string;
  shown: string;
  /** Undefined when the file does not exist yet. */
  existing?: { bytes: Buffer; text: string; format: TextFormat; stat: Stats };
}

export type Loaded = { ok: true; file: LoadedFile } | { ok: false; output: ToolOutput };

/**
 * Reads a file for a change. `mustExist`: Edit refuses a missing file (with similar names), Write
 * creates it. An existing file must have been read in this session and be unchanged since.
 */
export async function loadForChange(path: string, ctx: ToolContext, session: ToolSession, opts: { mustExist: boolean; tool: string }): Promise<Loaded> {
  const abs = resolvePath(ctx.cwd, path);
  const shown = displayPath(ctx.cwd, abs);
  const no = (content: string): Loaded => ({ ok: false, output: fail(content) });
  let st: Stats;
  try {
    st = await stat(abs);
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT') return no(`${describeFsError(e, shown)}; the file was not changed.`);
    if (!opts.mustExist) return { ok: true, file: { abs, shown } };
    const similar = await similarNames(abs);
    const hint = similar.length > 0 ? ` Did you mean: ${similar.map((n) => displayPath(ctx.cwd, join(abs, '..', n))).join(', ')}?` : '';
    return no(`${shown} does not exist.${hint} To create a new file, use Write.`);
  }
  if (st.isDirectory())
    return no(
      `${shown} is a directory, not a file; ${opts.tool} changes one file. To see what it holds use Glob with pattern "${shown === '.' ? '' : `${shown}/`}*".`,
    );
  if (!st.isFile()) return no(`${shown} is not a regular file (a device, socket or pipe); ${opts.tool} only changes files.`);
  if (st.size > MAX_EDIT_BYTES)
    return no(`${shown} is ${fmtBytes(st.size)}, more than ${opts.tool} changes (${fmtBytes(MAX_EDIT_BYTES)}); change it with a script through Bash instead.`);
  let bytes: Buffer;
  try {
    // the content as the person sees it: the disk's, or an editor's buffer with its unsaved changes
    bytes = await (session.fileAccess ?? localFiles).read(abs);
  } catch (e) {
    return no(`${describeFsError(e, shown)}; the file was not changed.`);
  }
  // what no read could fix comes first: a binary file would otherwise be "read it first" forever
  const decoded = decodeText(bytes);
  if (!decoded.ok) return no(`${shown} ${decoded.why}; ${opts.tool} only changes text files. The file was not changed.`);
  const freshness = session.files?.check(abs, st, bytes) ?? { kind: 'unread' as const };
  if (freshness.kind === 'unread')
    return no(
      `${shown} has not been read in this session: read it first with FileRead, then ${opts.tool === 'Write' ? 'write' : 'edit'} it. The file was not changed.`,
    );
  if (freshness.kind === 'stale' && freshness.restoredBefore !== undefined)
    return no(
      `${shown} was restored by /rewind since you read it (to how it was before turn ${freshness.restoredBefore}): read it again with FileRead before changing it. The file was not changed.`,
    );
  if (freshness.kind === 'stale')
    return no(
      `${shown} changed on disk since you read it (by the user, a formatter or a command): read it again with FileRead before changing it. The file was not changed.`,
    );
  return { ok: true, file: { abs, shown, existing: { bytes, text: decoded.decoded.text, format: decoded.decoded.format, stat: st } } };
}

export interface PlannedChange {
  file: LoadedFile;
  after: string;
  diff: FileDiff;
  /** First line of the result: "Edited src/a.ts (+2 −1): replaced 1 occurrence". */
  headline: string;
}

export function plan(file: LoadedFile, after: string, headline: (diff: FileDiff) => string): PlannedChange {
  const diff = computeDiff(file.shown, file.existing?.text, after);
  return { file, after, diff, headline: headline(diff) };
}

/**
 * Writes the change. The file is loaded again first: if it changed while the person was
 * looking at the diff, nothing is written. The snapshot hook runs before the first byte.
 */
export async function commit(change: PlannedChange, ctx: ToolContext, session: ToolSession): Promise<ToolOutput> {
  const { abs, shown, existing } = change.file;
  const access = session.fileAccess ?? localFiles;
  let current: Buffer | undefined;
  try {
    current = await access.read(abs);
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT') return fail(`${describeFsError(e, shown)}; the file was not changed.`);
  }
  const unchanged = existing
    ? current !== undefined && current.length === existing.bytes.length && contentHash(current) === contentHash(existing.bytes)
    : current === undefined;
  if (!unchanged) return fail(`${shown} changed on disk while the change waited: read it again with FileRead before changing it. The file was not changed.`);
  const format = existing?.format ?? DEFAULT_FORMAT;
  const bytes = encodeText(change.after, format);
  try {
    await session.beforeFileChange?.(abs, existing?.bytes, existing?.stat.mode);
    if (!existing) await mkdir(dirname(abs), { recursive: true });
    // written in place: the inode keeps its mode bits, owner and hard links (a symlink stays one)
    await access.write(abs, bytes);
    // an editor's buffer may not be saved yet: what was written is its content, not the disk's state
    callFiles(session, ctx)?.record(abs, access.buffered ? seenState(access, { mtimeMs: -1, size: bytes.length }, bytes) : await stat(abs), bytes);
  } catch (e) {
    return fail(`${describeFsError(e, shown)}; the change could not be written.`);
  }
  return { content: resultText(change), isError: false };
}

function resultText(change: PlannedChange): string {
  const unified = formatUnified(change.diff).split('\n');
  const shown =
    unified.length > RESULT_DIFF_LINES
      ? [...unified.slice(0, RESULT_DIFF_LINES), `… ${unified.length - RESULT_DIFF_LINES} more diff lines not shown`]
      : unified;
  return `${change.headline}\n\n${shown.join('\n')}`;
}

export const statOf = (d: FileDiff): string => diffStat(d).slice(d.path.length + 1);

export const outsideCwd = (ctx: { cwd: string }, abs: string): boolean => !isInside(ctx.cwd, abs);

export type Planned = { ok: true; change: PlannedChange } | { ok: false; output: ToolOutput };

/**
 * A tool that changes one file (Edit, Write): its preview is the plan (the diff the approval
 * shows, or the refusal), and its run plans again and writes only if the plan still holds. It
 * closes over its session's file port, tracker and snapshot hook.
 */
export function fileChangeTool<S extends z.ZodMiniObject<{ path: z.ZodMiniString }>>(
  name: string,
  description: string,
  schema: S,
  planChange: (input: z.infer<S>, ctx: ToolContext, session: ToolSession) => Promise<Planned>,
  session: ToolSession,
): Tool<z.infer<S>> {
  const inputSchema = toInputSchema(schema);
  return {
    name,
    description,
    inputSchema,
    kind: 'edit',
    parse: (input) => parseInput(name, schema, inputSchema, input),
    summarize: (input) => input.path,
    pathOf: (input) => input.path,
    preview: async (input, ctx) => planChange(input, ctx, session),
    run: async (input, ctx) => {
      const p = await planChange(input, ctx, session);
      return p.ok ? commit(p.change, ctx, session) : p.output;
    },
  };
}
