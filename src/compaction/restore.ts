import { textOf, type Message } from '../llm/messages.js';
import { isTurnStart } from './split.js';
import { truncateToTokens } from './text.js';
import type { TokenCounter } from './tokens.js';

/** Reads a file's current text for restoration; undefined when it cannot be read. */
export type ReadFile = (path: string) => Promise<string | undefined>;

export interface RestoreOptions {
  /** All restored context together. */
  budget: number;
  /** Per file. */
  fileBudget: number;
  maxFiles: number;
  /** Tools whose `path` (or `file_path`) input names a file that was read. */
  fileReadTools: readonly string[];
  readFile?: ReadFile | undefined;
  signal: AbortSignal;
  /** False when the ledger carries the person's words: no "recent requests" section, the files get the whole budget. */
  requests?: boolean;
  /** What earlier compactions archived: files read there are re-read too (newest first), or a second compaction loses them. */
  earlier?: readonly Message[];
}

export interface Restoration {
  /** "Your recent requests" text, absent when there were none. */
  requests?: string;
  /** "Files re-read" text, absent when none were restored. */
  files?: string;
  restoredPaths: string[];
  requestCount: number;
  tokens: number;
}

/** Requests take at most this share of the budget; files get the rest. */
const REQUEST_SHARE = 0.5;
const MAX_REQUESTS = 3;
const REQUESTS_HEADER =
  '## Recent requests of the person (verbatim)\nThe latest messages the person wrote in the archived part of the conversation, quoted exactly, oldest first:';
const FILES_HEADER =
  '## Files re-read after compaction\nFiles read or edited before the compaction, read again just now (their current contents; a long file keeps its start and end):';
/** Not worth a file section below this many tokens. */
const MIN_FILE_TOKENS = 100;

const pathOf = (input: Record<string, unknown>): string | undefined => {
  const p = input.path ?? input.file_path;
  return typeof p === 'string' && p.trim() ? p : undefined;
};

/**
 * Paths read in the archived head, most recent first, without those the tail still shows in full
 * (a read in the tail whose result was not cleared).
 */
export function recentReadPaths(archived: readonly Message[], tail: readonly Message[], fileReadTools: readonly string[], maxFiles: number): string[] {
  const readers = new Set(fileReadTools);
  const visible = new Set<string>();
  const uncleared = new Set<string>();
  for (const m of tail) for (const b of m.blocks) if (b.type === 'tool_result' && !b.cleared) uncleared.add(b.toolUseId);
  for (const m of tail) {
    for (const b of m.blocks) {
      const p = b.type === 'tool_use' && readers.has(b.name) ? pathOf(b.input) : undefined;
      if (p && b.type === 'tool_use' && uncleared.has(b.id)) visible.add(p);
    }
  }
  const out: string[] = [];
  for (let i = archived.length - 1; i >= 0 && out.length < maxFiles; i--) {
    const uses = archived[i]!.blocks;
    for (let j = uses.length - 1; j >= 0 && out.length < maxFiles; j--) {
      const b = uses[j]!;
      if (b.type !== 'tool_use' || !readers.has(b.name)) continue;
      const p = pathOf(b.input);
      if (p && !visible.has(p) && !out.includes(p)) out.push(p);
    }
  }
  return out;
}

const fenceFor = (text: string): string => {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
};

const quote = (text: string): string =>
  text
    .split('\n')
    .map((l) => (l ? `> ${l}` : '>'))
    .join('\n');

/** The requests a checkpoint message quoted in its restored context, oldest first, unquoted. */
export function quotedRequests(checkpoint: Message): string[] {
  for (const b of checkpoint.blocks) {
    if (b.type !== 'text') continue;
    const at = b.text.indexOf(`${REQUESTS_HEADER}\n\n`);
    if (at < 0) continue;
    const body = b.text.slice(at + REQUESTS_HEADER.length + 2);
    return body
      .split('\n\n')
      .filter((chunk) => chunk.startsWith('>'))
      .map((chunk) =>
        chunk
          .split('\n')
          .map((l) => (l === '>' ? '' : l.startsWith('> ') ? l.slice(2) : l))
          .join('\n'),
      );
  }
  return [];
}

/**
 * What the model was working with, brought back after an auto or manual compaction: the
 * person's latest requests from the archived part, verbatim (so no instruction is lost to
 * paraphrase), then the most recently read files, read again as they are now.
 */
export async function buildRestoration(
  archived: readonly Message[],
  tail: readonly Message[],
  opts: RestoreOptions,
  counter: TokenCounter,
): Promise<Restoration> {
  const count = (t: string): number => counter.countText(t);
  const result: Restoration = { restoredPaths: [], requestCount: 0, tokens: 0 };
  if (opts.budget <= 0) return result;

  // requests quoted by an archived checkpoint come first: a long turn keeps its request through many compactions
  const requests: Array<{ text: string; id?: string }> = [];
  for (const m of opts.requests === false ? [] : archived) {
    if (m.kind === 'checkpoint') requests.push(...quotedRequests(m).map((text) => ({ text })));
    else if (isTurnStart(m) && textOf(m).trim()) requests.push({ text: textOf(m).trim(), id: m.id });
  }
  const latest = requests.slice(-MAX_REQUESTS);
  let requestBudget = Math.floor(opts.budget * REQUEST_SHARE) - count(REQUESTS_HEADER) - 4;
  const quoted: string[] = [];
  for (let i = latest.length - 1; i >= 0 && requestBudget > 0; i--) {
    const r = latest[i]!;
    let block = quote(r.text);
    if (count(block) > requestBudget) {
      // quoting adds a marker per line: leave it room
      const cut = truncateToTokens(r.text, Math.floor((requestBudget - 40) * 0.8), count);
      if (!cut) break;
      block = quote(`${cut}\n[message shortened here${r.id ? ` — Recall id ${r.id} has it in full` : ''}]`);
      if (count(block) > requestBudget) break;
    }
    requestBudget -= count(block);
    quoted.unshift(block);
  }
  if (quoted.length > 0) {
    result.requests = `${REQUESTS_HEADER}\n\n${quoted.join('\n\n')}`;
    result.requestCount = quoted.length;
    result.tokens += count(result.requests);
  }

  if (!opts.readFile || opts.maxFiles <= 0) return result;
  let remaining = opts.budget - result.tokens - count(FILES_HEADER) - 2;
  const sections: string[] = [];
  const readIn = opts.earlier && opts.earlier.length > 0 ? [...opts.earlier, ...archived] : archived;
  for (const path of recentReadPaths(readIn, tail, opts.fileReadTools, opts.maxFiles)) {
    if (opts.signal.aborted || remaining < MIN_FILE_TOKENS) break;
    let content: string | undefined;
    try {
      content = await opts.readFile(path);
    } catch {
      content = undefined;
    }
    if (content === undefined) continue;
    const allowed = Math.min(opts.fileBudget, remaining) - count(path) - 12;
    if (allowed < MIN_FILE_TOKENS) continue;
    const body = truncateToTokens(content, allowed, count);
    const fence = fenceFor(body);
    const section = `### ${path}\n${fence}\n${body}\n${fence}`;
    const tokens = count(section);
    if (tokens > remaining) continue;
    sections.push(section);
    result.restoredPaths.push(path);
    remaining -= tokens;
  }
  // joins can tokenize a little differently from the parts: drop files until the whole fits
  while (sections.length > 0) {
    const files = `${FILES_HEADER}\n\n${sections.join('\n\n')}`;
    const tokens = count(files);
    if (result.tokens + tokens <= opts.budget) {
      result.files = files;
      result.tokens += tokens;
      break;
    }
    sections.pop();
    result.restoredPaths.pop();
  }
  return result;
}
