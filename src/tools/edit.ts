import * as z from 'zod/mini';
import { fail, fileChangeTool, loadForChange, plan, statOf, type Planned } from './fileChange.js';
import { fmtInt } from './format.js';
import type { Tool, ToolContext, ToolSession } from './types.js';
import { promptText } from '../promptText.js';
import DESCRIPTION from './edit.md';

const EditInput = z.object({
  path: z.string().check(z.minLength(1), z.describe("The file's path.")),
  old_string: z.string().check(z.describe('The exact text to replace.')),
  new_string: z.string().check(z.describe('Its replacement (must differ).')),
  replace_all: z.optional(z.boolean()).check(z.describe('Replace every occurrence. Default false.')),
});
export type EditInput = z.infer<typeof EditInput>;

export function createEditTool(session: ToolSession = {}): Tool<EditInput> {
  return fileChangeTool('Edit', promptText(DESCRIPTION), EditInput, planEdit, session);
}

/** What the edit would do, or why it is refused (the file untouched either way). */
export async function planEdit(input: EditInput, ctx: ToolContext, session: ToolSession): Promise<Planned> {
  const oldS = input.old_string.replace(/\r\n/g, '\n');
  const newS = input.new_string.replace(/\r\n/g, '\n');
  if (oldS === '')
    return {
      ok: false,
      output: fail(
        'old_string is empty. To create a file or replace all of its content use Write; to insert text, give the line(s) next to the insertion as old_string and repeat them in new_string.',
      ),
    };
  if (oldS === newS) return { ok: false, output: fail('old_string and new_string are the same, so there is nothing to change. The file was not changed.') };
  const loaded = await loadForChange(input.path, ctx, session, { mustExist: true, tool: 'Edit' });
  if (!loaded.ok) return loaded;
  const file = loaded.file;
  const text = file.existing!.text;
  const at = occurrences(text, oldS);
  if (at.length === 0) return { ok: false, output: fail(notFound(file.shown, text, oldS)) };
  if (at.length > 1 && !input.replace_all) {
    const lines = at.slice(0, 10).map((i) => lineAt(text, i));
    return {
      ok: false,
      output: fail(
        `old_string occurs ${fmtInt(at.length)} times in ${file.shown} (at lines ${lines.join(', ')}${at.length > 10 ? ', …' : ''}). ` +
          'Include more surrounding lines to make it unique, or set replace_all to change every occurrence. The file was not changed.',
      ),
    };
  }
  const after = input.replace_all ? text.split(oldS).join(newS) : text.slice(0, at[0]) + newS + text.slice(at[0]! + oldS.length);
  const n = input.replace_all ? at.length : 1;
  return { ok: true, change: plan(file, after, (d) => `Edited ${d.path} (${statOf(d)}): replaced ${n === 1 ? '1 occurrence' : `${fmtInt(n)} occurrences`}`) };
}

function occurrences(text: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}

const lineAt = (text: string, index: number): number => {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) n++;
  return n;
};

const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** "not found", with the closest match and its line so the model can copy the real text. */
export function notFound(shown: string, text: string, needle: string): string {
  const base = `old_string was not found in ${shown}. The file was not changed.`;
  const lines = text.split('\n');
  const want = needle.split('\n');
  // the same text with other whitespace (indentation, tabs, trailing spaces)
  const first = squash(want.find((l) => l.trim() !== '') ?? '');
  if (first === '') return base;
  const best = closestLine(lines, first);
  if (!best) return `${base} No line resembles its first line; read the file again and copy the text exactly.`;
  const span = Math.max(1, want.length);
  const start = best.index;
  const excerpt = lines
    .slice(start, start + Math.min(span, 8))
    .map((l, i) => `${String(start + i + 1).padStart(6)}\t${l}`)
    .join('\n');
  const region = squash(lines.slice(start, start + span).join('\n'));
  const how = region === squash(needle) ? 'the same text with different whitespace or indentation' : 'the closest match';
  return (
    `${base} ${how[0]!.toUpperCase()}${how.slice(1)} starts at line ${start + 1}:\n${excerpt}\n` +
    `Copy old_string exactly from the file (tabs, spaces and line breaks included), without the line numbers.`
  );
}

/** The line holding most of `want`'s character trigrams, the closest in length on a tie (linear in the file's size). */
function closestLine(lines: string[], want: string): { index: number; score: number } | undefined {
  const grams = trigrams(want);
  if (grams.size === 0) {
    const i = lines.findIndex((l) => squash(l).includes(want));
    return i === -1 ? undefined : { index: i, score: 1 };
  }
  let best: { index: number; score: number; gap: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const l = squash(lines[i]!);
    if (l.length < 2) continue;
    const seen = new Set<string>();
    for (let j = 0; j + 3 <= l.length; j++) {
      const g = l.slice(j, j + 3);
      if (grams.has(g)) seen.add(g);
    }
    const score = seen.size / grams.size;
    const gap = Math.abs(l.length - want.length);
    if (!best || score > best.score || (score === best.score && gap < best.gap)) best = { index: i, score, gap };
  }
  return best && best.score >= 0.5 ? { index: best.index, score: best.score } : undefined;
}

function trigrams(s: string): Set<string> {
  const out = new Set<string>();
  for (let j = 0; j + 3 <= s.length; j++) out.add(s.slice(j, j + 3));
  return out;
}
