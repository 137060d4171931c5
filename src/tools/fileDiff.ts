// Unified diffs of a file change: computed for the approval prompt and the tool result, parsed
// back from a stored result for the transcript and exports.
import { structuredPatch } from 'diff';

export interface DiffHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** ' ' context, '-' removed, '+' added, '\' "no newline at end of file" — each line with its mark. */
  lines: string[];
}

export interface FileDiff {
  /** As shown to the person (relative to the working directory when inside it). */
  path: string;
  /** The file did not exist before. */
  created: boolean;
  added: number;
  removed: number;
  hunks: DiffHunk[];
}

const CONTEXT = 3;

/** Index just after the n-th newline before `at` (going back n lines from the line start at `at`), or 0. */
function backLines(text: string, at: number, n: number): number {
  let i = at;
  for (let k = 0; k < n && i > 0; k++) i = text.lastIndexOf('\n', i - 2) + 1;
  return i;
}

/** Index just after the n-th newline at or after `at`, or the end. */
function forwardLines(text: string, at: number, n: number): number {
  let i = at;
  for (let k = 0; k < n && i < text.length; k++) {
    const nl = text.indexOf('\n', i);
    i = nl === -1 ? text.length : nl + 1;
  }
  return i;
}

function countLines(text: string, end: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * The hunks turning `before` into `after`. The common head and tail are found by comparing
 * characters and cut off (keeping the context lines), so the diff algorithm sees only the
 * changed middle: an edit of a large file stays linear and allocates little.
 */
export function computeDiff(path: string, before: string | undefined, after: string): FileDiff {
  const a = before ?? '';
  const b = after;
  const max = Math.min(a.length, b.length);
  let p = 0;
  while (p < max && a.charCodeAt(p) === b.charCodeAt(p)) p++;
  // the first changed line starts after the last newline of the common prefix
  const headEnd = p === 0 ? 0 : a.lastIndexOf('\n', p - 1) + 1;
  let sfx = 0;
  while (sfx < max - headEnd && a.charCodeAt(a.length - 1 - sfx) === b.charCodeAt(b.length - 1 - sfx)) sfx++;
  // the common tail starts at a line start: just after a newline inside the common suffix
  let tail = sfx;
  if (tail > 0 && a.length - tail > 0 && a.charCodeAt(a.length - tail - 1) !== 10) {
    const nl = a.indexOf('\n', a.length - tail);
    tail = nl === -1 ? 0 : a.length - nl - 1;
  }
  const from = backLines(a, headEnd, CONTEXT);
  const skipped = countLines(a, from);
  const aEnd = forwardLines(a, a.length - tail, CONTEXT);
  const bEnd = b.length - (a.length - aEnd);
  const patch = structuredPatch('a', 'b', a.slice(from, aEnd), b.slice(from, bEnd), '', '', { context: CONTEXT });
  let added = 0;
  let removed = 0;
  const hunks: DiffHunk[] = patch.hunks.map((h) => {
    for (const l of h.lines) {
      if (l.startsWith('+')) added++;
      else if (l.startsWith('-')) removed++;
    }
    return {
      // unified-diff convention: an empty side names the line before it
      oldStart: h.oldStart + skipped - (h.oldLines === 0 ? 1 : 0),
      oldLines: h.oldLines,
      newStart: h.newStart + skipped - (h.newLines === 0 ? 1 : 0),
      newLines: h.newLines,
      lines: h.lines,
    };
  });
  return { path, created: before === undefined, added, removed, hunks };
}

/** "path +N −M" */
export const diffStat = (d: FileDiff): string => `${d.path} +${d.added} −${d.removed}`;

/** The diff as unified-diff text (the tool result carries it; exports print it). */
export function formatUnified(d: FileDiff): string {
  const out = [`--- ${d.created ? '/dev/null' : `a/${d.path}`}`, `+++ b/${d.path}`];
  for (const h of d.hunks) {
    out.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`);
    for (const l of h.lines) out.push(l);
  }
  return out.join('\n');
}

const HUNK_RE = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** The first unified diff in a text (a stored Edit/Write result), or undefined. */
export function parseUnified(text: string): FileDiff | undefined {
  const lines = text.split('\n');
  const start = lines.findIndex((l, i) => l.startsWith('--- ') && lines[i + 1]?.startsWith('+++ b/'));
  if (start === -1) return undefined;
  const created = lines[start] === '--- /dev/null';
  const path = lines[start + 1]!.slice('+++ b/'.length);
  const hunks: DiffHunk[] = [];
  let added = 0;
  let removed = 0;
  let cur: DiffHunk | undefined;
  for (const l of lines.slice(start + 2)) {
    const m = HUNK_RE.exec(l);
    if (m) {
      cur = { oldStart: Number(m[1]), oldLines: Number(m[2] ?? 1), newStart: Number(m[3]), newLines: Number(m[4] ?? 1), lines: [] };
      hunks.push(cur);
      continue;
    }
    if (!cur || !/^[ +\-\\]/.test(l)) break;
    cur.lines.push(l);
    if (l.startsWith('+')) added++;
    else if (l.startsWith('-')) removed++;
  }
  return { path, created, added, removed, hunks };
}

export interface NumberedDiffLine {
  kind: 'context' | 'add' | 'remove' | 'hunk' | 'note';
  /** Line number in the old file (remove, context) or the new one (add). */
  oldNo?: number;
  newNo?: number;
  text: string;
}

/** The diff as rows with line numbers, for rendering. */
export function numberedLines(d: FileDiff): NumberedDiffLine[] {
  const rows: NumberedDiffLine[] = [];
  for (const h of d.hunks) {
    rows.push({ kind: 'hunk', text: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@` });
    let o = h.oldStart;
    let n = h.newStart;
    for (const l of h.lines) {
      const body = l.slice(1).replace(/\n$/, '');
      if (l.startsWith('+')) rows.push({ kind: 'add', newNo: n++, text: body });
      else if (l.startsWith('-')) rows.push({ kind: 'remove', oldNo: o++, text: body });
      else if (l.startsWith('\\')) rows.push({ kind: 'note', text: l.slice(1).trim() });
      else rows.push({ kind: 'context', oldNo: o++, newNo: n++, text: body });
    }
  }
  return rows;
}
