// When a tool result goes to the archive at once, and what the model sees instead.
//
// A result whose estimated size is above `output.spillTokens` (per tool when configured) is
// spilled: the whole output (up to ARCHIVE_CAP_CHARS) is archived under a handle such as `o12`,
// and the model gets a preview: the first lines and the last lines (errors and test summaries
// come at the end), the total size in lines and bytes, what was left out, and how to Recall
// the rest by line range or pattern. Recall's own results are never spilled (they are cut by
// Recall itself, with a note on how to narrow the read), so a read of a spilled output cannot
// spill again. The preview is a pure function of the output and its handle: byte-stable, so a
// spilled result never changes once in the history and never breaks the cached prefix.
import { fmtInt } from './format.js';
import { TOOL } from './toolNames.js';

/** Default threshold (tokens) above which a result is spilled; see docs/compaction.md for the measurement. */
export const DEFAULT_SPILL_TOKENS = 2_000;
/**
 * FileRead spills at this many times the threshold (8,000 tokens at the default, ~800 lines of
 * code): a file the model asked for whole is needed whole, and a spilled read costs a Recall round
 * trip per page, each rereading the whole context (docs/performance.md, "Billed input").
 */
export const FILE_READ_SPILL_FACTOR = 4;

/** The threshold of a tool's results: its own in `spillTokensByTool`, else `spillTokens` (FileRead's a multiple of it); 0: never. */
export function spillThreshold(toolName: string, output: { spillTokens: number; spillTokensByTool: Record<string, number> }): number {
  const own = output.spillTokensByTool[toolName];
  if (own !== undefined) return own;
  return toolName === TOOL.FileRead ? output.spillTokens * FILE_READ_SPILL_FACTOR : output.spillTokens;
}

/** Most characters archived per output; the rest is counted and noted, not kept. */
export const ARCHIVE_CAP_CHARS = 10 * 1024 * 1024;

const HEAD_LINES = 40;
const TAIL_LINES = 40;
const HEAD_CHARS = 1_600;
const TAIL_CHARS = 2_400;
const LINE_CHARS = 300;

/** Tokens of a text as the spill rule estimates them (4 characters a token: cheap, deterministic). */
export const estimateTokens = (chars: number): number => Math.ceil(chars / 4);
/** The most characters a result of `tokens` may have and not be spilled. */
export const charsOfTokens = (tokens: number): number => tokens * 4;

export interface SpillDecision {
  /** The tool's trait (kinds.ts): false for a tool whose results are never spilled (Recall). */
  spills: boolean;
  /** Characters of the whole output (beyond the cap too). */
  chars: number;
  /** The threshold for this tool (output.spillTokens, or its per-tool value); 0 turns spilling off. */
  threshold: number;
}

export function shouldSpill(d: SpillDecision): boolean {
  if (d.threshold <= 0 || !d.spills) return false;
  return estimateTokens(d.chars) > d.threshold;
}

/** The whole of an output as a tool produced it, before any head-and-tail cut. */
export interface FullOutput {
  /** The text kept (at most ARCHIVE_CAP_CHARS characters). */
  text: string;
  /** Characters and lines of the whole output, including what the cap left out. */
  totalChars: number;
  totalLines: number;
  /** Bytes (UTF-8) of the whole output. */
  totalBytes: number;
}

/** Collects an output streamed in pieces, keeping at most `cap` characters (bounded memory whatever is pushed). */
export class FullOutputBuffer {
  private parts: string[] = [];
  private kept = 0;
  private chars = 0;
  private bytes = 0;
  private newlines = 0;
  private lastChar = '';

  constructor(private readonly cap: number = ARCHIVE_CAP_CHARS) {}

  push(s: string): void {
    if (s === '') return;
    this.chars += s.length;
    this.bytes += Buffer.byteLength(s);
    for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) this.newlines++;
    this.lastChar = s[s.length - 1]!;
    if (this.kept < this.cap) {
      const take = s.length <= this.cap - this.kept ? s : s.slice(0, this.cap - this.kept);
      this.parts.push(take);
      this.kept += take.length;
    }
  }

  result(): FullOutput {
    const text = this.parts.join('');
    this.parts = [text];
    const totalLines = this.chars === 0 ? 0 : this.newlines + (this.lastChar === '\n' ? 0 : 1);
    return { text, totalChars: this.chars, totalLines, totalBytes: this.bytes };
  }
}

export function fullOutputOf(text: string): FullOutput {
  const b = new FullOutputBuffer();
  b.push(text);
  return b.result();
}

const fmtBytes = (n: number): string =>
  n < 1024 ? `${fmtInt(n)} bytes` : n < 1024 * 1024 ? `${fmtInt(Math.round(n / 1024))} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;

const clip = (line: string): string =>
  line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}… [${fmtInt(line.length - LINE_CHARS)} more characters]` : line;

/** The header spillPreview writes, read back: the one place that parses a preview. */
const PREVIEW_HEAD = /^\[output (o\d+): ([\d,]+ lines?), ([^;]+);/;

/** What a spill preview's header says: its handle, "6,001 lines" and "42 KB" as written. */
export interface SpillHeader {
  handle: string;
  lines: string;
  size: string;
}

/** The header of a spill preview, or undefined when the content is not one. */
export function spillHeaderOf(content: string): SpillHeader | undefined {
  const m = PREVIEW_HEAD.exec(content);
  return m ? { handle: m[1]!, lines: m[2]!, size: m[3]! } : undefined;
}

/** Whether a result's content is a spill preview (micro compaction leaves it: it is already small and names its handle). */
export const isSpillPreview = (content: string): boolean => spillHeaderOf(content) !== undefined;

/** The handle a spill preview names, e.g. "o12". */
export const spillHandleOf = (content: string): string | undefined => spillHeaderOf(content)?.handle;

/** The text the model gets in place of a spilled output. */
export function spillPreview(full: FullOutput, handle: string): string {
  const lines = full.text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const n = lines.length;
  const head: string[] = [];
  let chars = 0;
  for (let i = 0; i < n && head.length < HEAD_LINES; i++) {
    const l = clip(lines[i]!);
    if (head.length > 0 && chars + l.length + 1 > HEAD_CHARS) break;
    head.push(l);
    chars += l.length + 1;
  }
  const tail: string[] = [];
  chars = 0;
  for (let i = n - 1; i >= head.length && tail.length < TAIL_LINES; i--) {
    const l = clip(lines[i]!);
    if (tail.length > 0 && chars + l.length + 1 > TAIL_CHARS) break;
    tail.unshift(l);
    chars += l.length + 1;
  }
  const tailStart = n - tail.length + 1;
  const shown = tail.length > 0 ? `lines 1–${fmtInt(head.length)} and ${fmtInt(tailStart)}–${fmtInt(n)} shown` : `lines 1–${fmtInt(head.length)} shown`;
  const capped =
    full.totalChars > full.text.length
      ? ` Only the first ${fmtBytes(Buffer.byteLength(full.text))} were archived (cap); ${fmtInt(full.totalChars - full.text.length)} characters after that were not kept.`
      : '';
  const header =
    `[output ${handle}: ${fmtInt(full.totalLines)} ${full.totalLines === 1 ? 'line' : 'lines'}, ${fmtBytes(full.totalBytes)}; ${shown}; ` +
    `Recall id="${handle}" with offset/limit (lines) or pattern for the rest.${capped}]`;
  const omitted = tailStart - head.length - 1;
  const middle = omitted > 0 ? [`… [${fmtInt(omitted)} lines not shown] …`] : [];
  return [header, ...head, ...middle, ...tail].join('\n');
}
