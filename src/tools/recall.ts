import * as z from 'zod/mini';
import { fmtInt, plural } from './format.js';
import { parseInput, toInputSchema } from './inputSchema.js';
import { truncateLine } from './truncate.js';
import { ToolInputError, type RecallHit, type Tool, type ToolOutput, type ToolSession } from './types.js';
import { promptText } from '../promptText.js';
import DESCRIPTION from './recall.md';
import { TOOL } from './toolNames.js';

export interface RecallOptions {
  /** Hits per search page (default 10). */
  pageSize?: number;
  /** Lines per page of an item (default 500)... */
  pageLines?: number;
  /** ...and characters (default 30,000). */
  pageChars?: number;
}

const RecallInputSchema = z.object({
  query: z.optional(z.string().check(z.minLength(1))).check(z.describe('Words to search for. Give query or id.')),
  id: z.optional(z.string().check(z.minLength(1))).check(z.describe("An archived item's id (a hit's, a placeholder's, o12, b1) to read.")),
  offset: z.optional(z.int().check(z.minimum(0))).check(z.describe('With query: hits to skip. With id: first line (1-based).')),
  limit: z.optional(z.int().check(z.minimum(1), z.maximum(2000))).check(z.describe('With query: hits (default 10, at most 50). With id: lines (default 500).')),
  pattern: z.optional(z.string().check(z.minLength(1))).check(z.describe('With id: a regular expression; only the matching lines, with context.')),
  context: z.optional(z.int().check(z.minimum(0), z.maximum(20))).check(z.describe('With pattern: lines of context (default 2).')),
  since_last_read: z.optional(z.boolean()).check(z.describe("With a background command's id: only its output since you last read it.")),
});
export type RecallInput = z.infer<typeof RecallInputSchema>;

const SNIPPET_CHARS = 300;

/** Recall reads its session's archive and background commands' output. */
export function createRecallTool(options: RecallOptions = {}, session: ToolSession = {}): Tool<RecallInput> {
  const o = { pageSize: 10, pageLines: 500, pageChars: 30_000, ...options };
  const inputSchema = toInputSchema(RecallInputSchema);
  return {
    name: TOOL.Recall,
    description: promptText(DESCRIPTION),
    inputSchema,
    kind: 'read',
    // its pages are cut to the spill threshold instead (ToolSession.resultChars)
    traits: { spills: false },
    parse(input) {
      const parsed = parseInput('Recall', RecallInputSchema, inputSchema, input);
      if (parsed.query === undefined && parsed.id === undefined) throw new ToolInputError('Recall: give "query" (to search) or "id" (to read one item)');
      if (parsed.query !== undefined && parsed.id !== undefined) throw new ToolInputError('Recall: give either "query" or "id", not both');
      if (parsed.pattern !== undefined && parsed.id === undefined)
        throw new ToolInputError('Recall: "pattern" reads matching lines of one item: give "id" with it');
      if (parsed.since_last_read === true && (parsed.id === undefined || parsed.offset !== undefined))
        throw new ToolInputError('Recall: "since_last_read" reads on in one background command\'s output: give "id" with it, and no "offset"');
      return parsed;
    },
    summarize: (input) => (input.id !== undefined ? `id ${input.id}` : `"${input.query ?? ''}"`),
    run: async (input) => runRecall(input, session, o),
  };
}

const fail = (content: string): ToolOutput => ({ content, isError: true });

/** Room a page leaves for its header and footer within the call's result limit. */
const FRAME_CHARS = 400;

async function runRecall(input: RecallInput, session: ToolSession, options: Required<RecallOptions>): Promise<ToolOutput> {
  // never spilled: a page stays within the spill threshold, cut with a note on how to read on
  const limit = session.resultChars?.(TOOL.Recall) ?? 0;
  const o = limit > 0 ? { ...options, pageChars: Math.max(1_000, Math.min(options.pageChars, limit - FRAME_CHARS)) } : options;
  // a background command's output, running or ended (b1, b2, …), is read from its own archive
  const shell = input.id !== undefined ? session.background?.output(input.id) : undefined;
  if (shell && input.pattern !== undefined) return grepItem(shell, input, o);
  if (shell) {
    const from = input.since_last_read ? shell.lastRead + 1 : input.offset;
    const page = readItem(shell, { ...input, ...(from !== undefined ? { offset: from } : {}) }, o, true);
    if (page.lastLine !== undefined) session.background?.markRead(shell.id, page.lastLine);
    return page.output;
  }
  const source = session.recall;
  // background commands' output is searched too (first: newest, and live), then the store's archive
  const live = input.query !== undefined ? (session.background?.search(input.query) ?? []) : [];
  if (!source && (input.id !== undefined || !session.background))
    return fail('Nothing has been archived in this session yet: no compaction has happened, so the whole conversation is still in view.');
  try {
    if (input.id !== undefined && input.pattern !== undefined) return grepItem(source?.get(input.id), input, o);
    if (input.id !== undefined) {
      const item = source?.get(input.id);
      return withImages(item, readItem(item, input, o).output, input);
    }
    const both = (q: string, opts: { limit: number; offset: number }): RecallHit[] => {
      const own = live.slice(opts.offset, opts.offset + opts.limit);
      const rest = opts.limit - own.length;
      const stored = source && rest > 0 ? source.search(q, { limit: rest, offset: Math.max(0, opts.offset - live.length) }) : [];
      return [...own, ...stored];
    };
    return search(both, input.query ?? '', input, o);
  } catch (e) {
    return fail(`Recall failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** A cleared image (or a cleared result's images) comes back attached to the first page of its item. */
function withImages(item: { images?: { mediaType: string; data: string }[] } | undefined, out: ToolOutput, input: RecallInput): ToolOutput {
  const images = item?.images ?? [];
  if (out.isError || images.length === 0 || (input.offset ?? 1) > 1) return out;
  const n = images.length;
  return { ...out, content: `${out.content}\n\n[${n === 1 ? 'its image is' : `its ${n} images are`} attached to this result]`, images };
}

function search(
  run: (q: string, opts: { limit: number; offset: number }) => RecallHit[],
  query: string,
  input: RecallInput,
  o: Required<RecallOptions>,
): ToolOutput {
  const limit = Math.min(input.limit ?? o.pageSize, 50);
  const offset = input.offset ?? 0;
  // one extra hit tells whether there is a next page
  const hits = run(query, { limit: limit + 1, offset });
  const found = hits.slice(0, limit);
  if (found.length === 0) {
    return {
      content:
        offset > 0
          ? `No more hits for "${query}" after the first ${fmtInt(offset)}.`
          : `No archived messages or tool outputs match "${query}". Try other or fewer words.`,
      isError: false,
    };
  }
  const mixedSessions = new Set(found.map((h) => h.sessionId)).size > 1;
  const rows: string[] = [];
  let chars = 0;
  for (const [i, h] of found.entries()) {
    const when = new Date(h.createdAt).toISOString().slice(0, 16).replace('T', ' ');
    const snippet = h.snippet.replace(/\s+/g, ' ').trim();
    const cut = snippet.length > SNIPPET_CHARS ? `${snippet.slice(0, SNIPPET_CHARS)}…` : snippet;
    const row = `${offset + i + 1}. id: ${h.id} — ${h.label} · ${when} UTC${mixedSessions ? ` · session ${h.sessionId}` : ''}\n   ${cut}`;
    // the page's characters bound the hits too (a page stays under the call's result limit)
    if (rows.length > 0 && chars + row.length + 2 > o.pageChars) break;
    rows.push(row);
    chars += row.length + 2;
  }
  const page = found.slice(0, rows.length);
  const more = hits.length > page.length;
  const range = `${offset + 1}-${offset + page.length}`;
  const next = more ? ` More hits: Recall with query=${JSON.stringify(query)}, offset=${offset + page.length}.` : '';
  return {
    content: `Archive hits ${range} for "${query}" (read one in full with Recall id=…):\n\n${rows.join('\n\n')}${next ? `\n\n${next.trim()}` : ''}`,
    isError: false,
  };
}

/** One page of an item; `lastLine`: the last line it shows. `growing`: a background command's output, where reading at its end is no error. */
function readItem(
  item: { id: string; label: string; text: string } | undefined,
  input: RecallInput,
  o: Required<RecallOptions>,
  growing = false,
): { output: ToolOutput; lastLine?: number } {
  const id = input.id ?? '';
  if (!item)
    return {
      output: fail(
        `No archived item with id "${id}". Ids come from Recall search hits, background commands (b1, b2, ...) and placeholders of cleared tool outputs; search with query to find one.`,
      ),
    };
  const lines = item.text.split('\n');
  // in a command's output a trailing newline ends the last line; it starts none
  if (growing && lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const total = item.text === '' ? 0 : lines.length;
  const start = Math.max(1, input.offset ?? 1);
  if (start > total) {
    if (growing) return { output: { content: `${item.label} (id ${item.id}) has no new output: ${plural(total, 'line')} so far, all read.`, isError: false } };
    if (total === 0) return { output: { content: `${item.label} (id ${item.id}) is empty.`, isError: false } };
    return { output: fail(`${item.label} (id ${item.id}) has ${plural(total, 'line')}; offset=${start} is past the end.`) };
  }
  const limit = input.limit ?? o.pageLines;
  const out: string[] = [];
  let chars = 0;
  let last = start - 1;
  for (let n = start; n <= total && n < start + limit; n++) {
    const line = truncateLine(lines[n - 1]!, o.pageChars).text;
    if (out.length > 0 && chars + line.length + 1 > o.pageChars) break;
    out.push(line);
    chars += line.length + 1;
    last = n;
  }
  const whole = start === 1 && last === total;
  const header = whole ? `${item.label} (id ${item.id}):` : `${item.label} (id ${item.id}), lines ${fmtInt(start)}-${fmtInt(last)} of ${fmtInt(total)}:`;
  const footer = last < total ? `\n\n… ${plural(total - last, 'more line')}. Read on with Recall id=${JSON.stringify(item.id)}, offset=${last + 1}.` : '';
  return { output: { content: `${header}\n${out.join('\n')}${footer}`, isError: false }, lastLine: last };
}

const MAX_MATCHES = 200;

/** The lines of an item that match a regex, numbered, each with `context` lines around; capped at pageChars. */
function grepItem(item: { id: string; label: string; text: string } | undefined, input: RecallInput, o: Required<RecallOptions>): ToolOutput {
  const id = input.id ?? '';
  if (!item)
    return fail(
      `No archived item with id "${id}". Ids come from Recall search hits, spilled output handles (o1, o2, ...) and placeholders of cleared tool outputs; search with query to find one.`,
    );
  let re: RegExp;
  try {
    re = new RegExp(input.pattern ?? '');
  } catch (e) {
    return fail(`Recall: pattern is not a valid regular expression: ${e instanceof Error ? e.message : String(e)}`);
  }
  const lines = item.text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const ctxLines = input.context ?? 2;
  const matches: number[] = [];
  for (let i = 0; i < lines.length; i++) if (re.test(lines[i]!)) matches.push(i);
  const matched = new Set(matches);
  if (matches.length === 0)
    return { content: `No line of ${item.label} (id ${item.id}, ${plural(lines.length, 'line')}) matches /${input.pattern ?? ''}/.`, isError: false };
  const width = String(lines.length).length;
  const out: string[] = [];
  let chars = 0;
  let shownMatches = 0;
  let lastShown = -1;
  let cut = false;
  for (const m of matches) {
    if (shownMatches >= MAX_MATCHES) {
      cut = true;
      break;
    }
    const from = Math.max(m - ctxLines, lastShown + 1);
    const to = Math.min(lines.length - 1, m + ctxLines);
    const block: string[] = [];
    if (lastShown >= 0 && from > lastShown + 1) block.push('--');
    for (let i = from; i <= to; i++) block.push(`${String(i + 1).padStart(width)}${matched.has(i) ? ':' : '-'} ${truncateLine(lines[i]!, 500).text}`);
    const size = block.reduce((n, l) => n + l.length + 1, 0);
    if (out.length > 0 && chars + size > o.pageChars) {
      cut = true;
      break;
    }
    out.push(...block);
    chars += size;
    lastShown = Math.max(lastShown, to);
    shownMatches++;
  }
  const footer = cut
    ? `\n\n… ${plural(matches.length - shownMatches, 'more matching line')} not shown: narrow the pattern, or read a range with offset and limit.`
    : '';
  return {
    content:
      `${plural(matches.length, 'line')} of ${item.label} (id ${item.id}, ${plural(lines.length, 'line')}) match /${input.pattern ?? ''}/ ` +
      `(line numbers with ":" match, "-" are context):\n${out.join('\n')}${footer}`,
    isError: false,
  };
}
