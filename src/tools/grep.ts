import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import ignore from 'ignore';
import * as z from 'zod/mini';
import { describeBinary, readHead, sniff } from './binary.js';
import { fmtBytes, fmtInt, plural } from './format.js';
import { describeFsError } from './fsErrors.js';
import { findIgnoreRoot, gitignoreAbove, GitignoreRules } from './gitignore.js';
import { sortByMtime } from './glob.js';
import { expandBraces } from './globPattern.js';
import { grepDirJs, grepFileJs, type DirTarget } from './grepJs.js';
import { grepDirRg } from './grepRg.js';
import type { FileHit, GrepMode, GrepQuery } from './grepTypes.js';
import { parseInput, toInputSchema } from './inputSchema.js';
import { displayPath, resolvePath } from './paths.js';
import { toRustRegex } from './rgPattern.js';
import { findOnPath } from './shell.js';
import type { Tool, ToolContext, ToolOutput } from './types.js';
import { promptText } from '../promptText.js';
import DESCRIPTION from './grep.md';
import { TOOL } from './toolNames.js';

export interface GrepOptions {
  /**
   * ripgrep binary: a path to use it, null never to use it, undefined for the packaged one
   * (@vscode/ripgrep), else `rg` from PATH. Results are the same either way; ripgrep is faster.
   */
  rgPath?: string | null;
  /** Files larger than this are not searched (default 10 MiB). */
  maxFileBytes?: number;
  /** Default of maxResults (default 100). */
  defaultMaxResults?: number;
}

const MAX_LINE_CHARS = 500;

const GrepInputSchema = z.object({
  pattern: z.string().check(z.minLength(1), z.describe('E.g. "function\\s+load", "TODO|FIXME"; escape ( [ { . * + ? | \\ to match them literally.')),
  path: z.optional(z.string().check(z.minLength(1))).check(z.describe('File or directory to search. Default: the working directory.')),
  glob: z.optional(z.string().check(z.minLength(1))).check(z.describe('Only files matching this glob: "*.ts" (any depth), "*.{ts,tsx}", "src/**/*.test.ts".')),
  ignoreCase: z.optional(z.boolean()).check(z.describe('Case-insensitive search.')),
  outputMode: z.optional(z.enum(['files', 'lines', 'count'])).check(z.describe('Default "files".')),
  contextLines: z.optional(z.int().check(z.minimum(0), z.maximum(20))).check(z.describe('With "lines": lines of context around each match.')),
  maxResults: z.optional(z.int().check(z.minimum(1), z.maximum(2000))).check(z.describe('Most files or lines returned. Default 100.')),
});
export type GrepInput = z.infer<typeof GrepInputSchema>;

export function createGrepTool(options: GrepOptions = {}): Tool<GrepInput> {
  const inputSchema = toInputSchema(GrepInputSchema);
  const maxFileBytes = options.maxFileBytes ?? 10 * 1024 * 1024;
  const defaultMax = options.defaultMaxResults ?? 100;
  return {
    name: TOOL.Grep,
    description: promptText(DESCRIPTION, { maxFileBytes: fmtBytes(maxFileBytes), maxResults: fmtInt(defaultMax) }),
    inputSchema,
    kind: 'read',
    parse: (input) => parseInput('Grep', GrepInputSchema, inputSchema, input),
    summarize: (input) => `/${input.pattern}/${input.ignoreCase ? 'i' : ''}${input.path ? ` in ${input.path}` : ''}${input.glob ? ` (${input.glob})` : ''}`,
    run: async (input, ctx) => (await runGrep(input, ctx, { ...options, maxFileBytes, defaultMaxResults: defaultMax })).output,
  };
}

let defaultRg: Promise<string | null> | undefined;

/**
 * The ripgrep binary to use: the configured one; by default the one the @vscode/ripgrep
 * dependency installed for this platform, else `rg` on PATH, else none (the JavaScript search).
 */
export const resolveRg = (configured: string | null | undefined): Promise<string | null> => {
  if (configured !== undefined) return Promise.resolve(configured);
  defaultRg ??= packagedRg().then((p) => p ?? findOnPath('rg') ?? null);
  return defaultRg;
};

/** The packaged ripgrep's path when it is installed and runs here; undefined otherwise (the import throws without the platform package). */
async function packagedRg(): Promise<string | undefined> {
  try {
    const { rgPath } = await import('@vscode/ripgrep');
    await access(rgPath, constants.X_OK);
    return rgPath;
  } catch {
    return undefined;
  }
}

export interface GrepRun {
  output: ToolOutput;
  /** Which engine searched (absent when nothing was searched). */
  engine?: 'rg' | 'js';
}

const fail = (content: string): GrepRun => ({ output: { content, isError: true } });

/** Compiles with the u flag when the pattern allows it (needed for \p{…}, and for ripgrep). */
export function compilePattern(pattern: string, ignoreCase: boolean): { regex: RegExp; unicode: boolean } | { error: string } {
  const flags = ignoreCase ? 'i' : '';
  try {
    return { regex: new RegExp(pattern, `${flags}u`), unicode: true };
  } catch {
    try {
      return { regex: new RegExp(pattern, flags), unicode: false };
    } catch (e) {
      const why = e instanceof Error ? e.message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '') : String(e);
      return {
        error: `Invalid regex ${JSON.stringify(pattern)}: ${why}. Grep uses JavaScript regex syntax; escape ( ) [ ] { } . * + ? | \\ with a backslash to match them literally.`,
      };
    }
  }
}

export async function runGrep(input: GrepInput, ctx: ToolContext, opts: GrepOptions & { maxFileBytes: number; defaultMaxResults: number }): Promise<GrepRun> {
  const ignoreCase = input.ignoreCase ?? false;
  const compiled = compilePattern(input.pattern, ignoreCase);
  if ('error' in compiled) return fail(compiled.error);
  const mode: GrepMode = input.outputMode ?? 'files';
  const maxResults = input.maxResults ?? opts.defaultMaxResults;
  const q: GrepQuery = {
    regex: compiled.regex,
    unicode: compiled.unicode,
    source: input.pattern,
    ignoreCase,
    mode,
    contextLines: mode === 'lines' ? (input.contextLines ?? 0) : 0,
    maxLinesPerFile: maxResults,
    maxFileBytes: opts.maxFileBytes,
  };
  const abs = resolvePath(ctx.cwd, input.path ?? '.');
  const shown = displayPath(ctx.cwd, abs);
  let isDir: boolean;
  let size: number;
  try {
    const st = await stat(abs);
    isDir = st.isDirectory();
    size = st.size;
    if (!isDir && !st.isFile()) return fail(`${shown} is not a regular file or directory.`);
  } catch (e) {
    return fail(describeFsError(e, shown));
  }

  let hits: FileHit[];
  let engine: 'rg' | 'js' = 'js';
  try {
    if (isDir) {
      const rules = new GitignoreRules(await findIgnoreRoot(abs, ctx.cwd));
      const target: DirTarget = { kind: 'dir', dir: abs, rules, ...(input.glob ? { filter: globFilter(input.glob) } : {}) };
      let viaRg: FileHit[] | undefined;
      const rg = await resolveRg(opts.rgPath);
      const rust = rg && q.unicode ? toRustRegex(input.pattern) : undefined;
      if (rg && rust !== undefined && !(await gitignoreAbove(rules.root))) {
        viaRg = await grepDirRg(rg, rust, q, target, ctx.signal).catch(() => undefined);
      }
      if (viaRg) {
        hits = viaRg;
        engine = 'rg';
      } else {
        hits = await grepDirJs(q, target, ctx.signal);
      }
    } else {
      if (size > opts.maxFileBytes)
        return fail(`${shown} is ${fmtBytes(size)}, over the ${fmtBytes(opts.maxFileBytes)} Grep searches; use Bash (e.g. grep -n) for it.`);
      const s = sniff(await readHead(abs));
      if (s.binary) return fail(`${shown} is ${describeBinary(s)}; Grep searches text files only.`);
      const hit = await grepFileJs(q, abs);
      hits = hit ? [hit] : [];
    }
  } catch (e) {
    return fail(`Grep failed: ${describeFsError(e, shown)}`);
  }
  if (ctx.signal.aborted) return { output: { content: 'Grep interrupted.', isError: true }, engine };

  if (hits.length === 0) {
    const where = `${shown === '.' ? 'the working directory' : shown}${input.glob ? ` (files matching "${input.glob}")` : ''}`;
    return { output: { content: `No matches for /${input.pattern}/${ignoreCase ? 'i' : ''} in ${where}.`, isError: false }, engine };
  }
  const content = await format(hits, q, maxResults, ctx.cwd);
  return { output: { content, isError: false }, engine };
}

/** Glob filter with .gitignore syntax: no slash → matches the name at any depth; braces expanded. */
export function globFilter(glob: string): (rel: string) => boolean {
  const ig = ignore({ allowRelativePaths: true }).add(expandBraces(glob.replace(/^\.\//, '')));
  return (rel) => ig.ignores(rel);
}

const byPath = (a: { shown: string }, b: { shown: string }): number => (a.shown < b.shown ? -1 : a.shown > b.shown ? 1 : 0);

async function format(hits: FileHit[], q: GrepQuery, max: number, cwd: string): Promise<string> {
  if (q.mode === 'files') {
    const sorted = await sortByMtime(hits.map((h) => h.path));
    const rows = sorted.slice(0, max).map((p) => displayPath(cwd, p));
    if (sorted.length > max) {
      rows.push(
        '',
        `(${plural(sorted.length, 'file')} match; showing the ${fmtInt(max)} most recently modified, ${fmtInt(sorted.length - max)} more not shown. Narrow the search or raise maxResults.)`,
      );
    }
    return rows.join('\n');
  }
  const files = hits.map((h) => ({ ...h, shown: displayPath(cwd, h.path) })).sort(byPath);
  const totalMatches = files.reduce((n, f) => n + f.count, 0);
  if (q.mode === 'count') {
    const rows = files.slice(0, max).map((f) => `${f.shown}:${f.count}`);
    const omitted = files.length > max ? ` (${fmtInt(files.length - max)} more files not shown; narrow the search or raise maxResults)` : '';
    rows.push('', `Total: ${plural(totalMatches, 'matching line')} in ${plural(files.length, 'file')}${omitted}.`);
    return rows.join('\n');
  }
  const rows: string[] = [];
  let shownMatches = 0;
  let lastMatch = 0;
  const c = q.contextLines;
  for (const f of files) {
    if (shownMatches >= max) break;
    let prev = -1;
    for (const line of f.lines) {
      if (shownMatches >= max && (line.match || line.n > lastMatch + c)) break;
      if (c > 0 && rows.length > 0 && line.n !== prev + 1) rows.push('--');
      const sep = line.match ? ':' : '-';
      rows.push(`${f.shown}${sep}${line.n}${sep}${clip(line.text.replace(/\r$/, ''), q.regex)}`);
      prev = line.n;
      if (line.match) {
        shownMatches++;
        lastMatch = line.n;
      }
    }
  }
  // a legacy encoding (Latin-1, Windows-1252) is read as UTF-8: its accented letters come out as �
  const notUtf8 = files.filter((f) => f.lines.some((l) => l.text.includes('\uFFFD'))).map((f) => f.shown);
  if (notUtf8.length > 0)
    rows.push(
      '',
      `(${notUtf8.slice(0, 5).join(', ')}${notUtf8.length > 5 ? ` and ${fmtInt(notUtf8.length - 5)} more` : ''} ${notUtf8.length === 1 ? 'is' : 'are'} not UTF-8 ` +
        '(Latin-1 or another legacy encoding?): � stands for bytes that are not UTF-8, and a pattern with such letters does not match them there.)',
    );
  if (shownMatches < totalMatches) {
    rows.push(
      '',
      `(showing ${fmtInt(shownMatches)} of ${plural(totalMatches, 'matching line')} in ${plural(files.length, 'file')}; ${fmtInt(totalMatches - shownMatches)} not shown. ` +
        `Narrow the pattern, path or glob, or raise maxResults.)`,
    );
  }
  return rows.join('\n');
}

/** A long line is cut around its first match. */
function clip(text: string, regex: RegExp): string {
  if (text.length <= MAX_LINE_CHARS) return text;
  const at = regex.exec(text)?.index ?? 0;
  const start = at > MAX_LINE_CHARS - 100 ? Math.min(at - 100, text.length - MAX_LINE_CHARS) : 0;
  const end = start + MAX_LINE_CHARS;
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? `… [${fmtInt(text.length)} characters in all]` : ''}`;
}
