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

/** Lines of `text`, each with its \n except a last line without one. */
function linesOf(text: string): string[] {
  if (text === '') return [];
  const parts = text.split('\n');
  const out = parts.map((l) => `${l}\n`);
  if (parts[parts.length - 1] === '') out.pop();
  else out[out.length - 1] = parts[parts.length - 1]!;
  return out;
}

/**
 * The hunks turning `before` into `after`. The common head and tail are cut off first, so the
 * diff algorithm sees only the changed middle (an edit of a large file stays linear).
 */
export function computeDiff(path: string, before: string | undefined, after: string): FileDiff {
  const a = linesOf(before ?? '');
  const b = linesOf(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const from = Math.max(0, head - CONTEXT);
  const aMid = a.slice(from, a.length - Math.max(0, tail - CONTEXT));
  const bMid = b.slice(from, b.length - Math.max(0, tail - CONTEXT));
  const patch = structuredPatch('a', 'b', aMid.join(''), bMid.join(''), '', '', { context: CONTEXT });
  let added = 0;
  let removed = 0;
  const hunks: DiffHunk[] = patch.hunks.map((h) => {
    for (const l of h.lines) {
      if (l.startsWith('+')) added++;
      else if (l.startsWith('-')) removed++;
    }
    return {
      // unified-diff convention: an empty side names the line before it
      oldStart: h.oldStart + from - (h.oldLines === 0 ? 1 : 0),
      oldLines: h.oldLines,
      newStart: h.newStart + from - (h.newLines === 0 ? 1 : 0),
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
