// The JavaScript Grep engine: gitignore-aware file listing, then a line scan of each file.
import { readFile, stat } from 'node:fs/promises';
import { relative } from 'node:path';
import { listFiles, type GitignoreRules } from './gitignore.js';
import { toSlash } from './paths.js';
import { HitCollector, type FileHit, type GrepQuery } from './grepTypes.js';

/** A NUL byte this early makes a file binary (ripgrep's first read is this large too). */
export const BINARY_WINDOW = 64 * 1024;

export interface DirTarget {
  kind: 'dir';
  dir: string;
  rules: GitignoreRules;
  /** Keeps a file (path relative to dir) or not: the glob filter. */
  filter?: (rel: string) => boolean;
}

/** Searches the non-ignored files under a directory. */
export async function grepDirJs(q: GrepQuery, target: DirTarget, signal: AbortSignal): Promise<FileHit[]> {
  let files = await listFiles({ root: target.dir, patterns: ['**/*'], rules: target.rules, signal });
  const filter = target.filter;
  if (filter) files = files.filter((f) => filter(toSlash(relative(target.dir, f))));
  const hits: FileHit[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length && !signal.aborted) {
      const file = files[next++]!;
      const hit = await grepFileJs(q, file).catch(() => undefined);
      if (hit) hits.push(hit);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return hits;
}

/** Searches one file; undefined when nothing matches or the file is binary, too large or unreadable. */
export async function grepFileJs(q: GrepQuery, file: string): Promise<FileHit | undefined> {
  const st = await stat(file);
  if (!st.isFile() || st.size > q.maxFileBytes) return undefined;
  const text = decodeText(await readFile(file));
  if (text === undefined) return undefined;
  return searchText(q, file, text);
}

/**
 * The searchable text of a file: UTF-8 (BOM dropped) or UTF-16 with a BOM. Undefined for
 * a binary file; a NUL byte further in ends the search there.
 */
export function decodeText(buf: Buffer): string | undefined {
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return new TextDecoder('utf-16le').decode(buf.subarray(2));
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) return new TextDecoder('utf-16be').decode(buf.subarray(2));
  const nul = buf.indexOf(0);
  if (nul !== -1 && nul < BINARY_WINDOW) return undefined;
  const end = nul === -1 ? buf.length : buf.lastIndexOf(10, nul) + 1;
  let text = buf.toString('utf8', 0, end);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return text;
}

export function searchText(q: GrepQuery, path: string, text: string): FileHit | undefined {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const re = q.regex;
  if (q.mode === 'files') {
    for (const line of lines) if (re.test(line)) return { path, count: 1, lines: [] };
    return undefined;
  }
  if (q.mode === 'count') {
    let count = 0;
    for (const line of lines) if (re.test(line)) count++;
    return count > 0 ? { path, count, lines: [] } : undefined;
  }
  const c = new HitCollector(q.maxLinesPerFile, q.contextLines);
  const ctx = q.contextLines;
  let lastAdded = 0;
  let after = 0;
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const line = lines[i]!;
    if (re.test(line)) {
      for (let j = Math.max(lastAdded + 1, n - ctx); j < n; j++) c.add(j, lines[j - 1]!, false);
      c.add(n, line, true);
      lastAdded = n;
      after = ctx;
    } else if (after > 0) {
      c.add(n, line, false);
      lastAdded = n;
      after--;
    }
  }
  return c.matches > 0 ? c.hit(path) : undefined;
}
