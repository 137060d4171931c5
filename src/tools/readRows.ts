// FileRead's numbered rows and the notes under them. The model's copy stops at maxChars; the
// rows of the requested lines past that are kept on (up to the archive's cap) as the whole
// output, which the spill rule archives when the read is spilled: so a Recall of a spilled read
// has every line asked for, not only those that fit the tool's own cap.
import { fmtInt } from './format.js';
import { ARCHIVE_CAP_CHARS, fullOutputOf } from './spill.js';
import type { ToolOutput } from './types.js';

export class ReadRows {
  private readonly rows: string[] = [];
  /** Rows in the model's copy (the first `shown` of rows). */
  private shown = 0;
  private shownChars = 0;
  private chars = 0;
  private lastShown: number;
  private last: number;
  private longShown = 0;
  private long = 0;
  /** Line numbers (of the model's copy, and of all rows) that are not UTF-8, shown as Windows-1252. */
  private readonly foreignShown: number[] = [];
  private readonly foreign: number[] = [];
  /** The model's copy reached maxChars. */
  private capped = false;
  /** The whole reached the archive's cap: no more rows are kept. */
  full = false;

  constructor(
    private readonly start: number,
    private readonly maxChars: number,
    private readonly maxLineChars: number,
    private readonly archiveCap: number = ARCHIVE_CAP_CHARS,
  ) {
    this.lastShown = start - 1;
    this.last = start - 1;
  }

  /** One numbered line (`truncated`: it was cut at maxLineChars; `foreign`: not UTF-8, decoded as Windows-1252). */
  add(lineNo: number, text: string, truncated: boolean, foreign = false): void {
    if (this.full) return;
    const row = `${String(lineNo).padStart(6)}\t${text}`;
    if (this.rows.length > 0 && this.chars + row.length + 1 > this.archiveCap) {
      this.full = true;
      return;
    }
    if (!this.capped && this.rows.length > 0 && this.shownChars + row.length + 1 > this.maxChars) this.capped = true;
    this.rows.push(row);
    this.chars += row.length + 1;
    this.last = lineNo;
    if (truncated) this.long++;
    if (foreign) this.foreign.push(lineNo);
    if (this.capped) return;
    if (foreign) this.foreignShown.push(lineNo);
    this.shown++;
    this.shownChars += row.length + 1;
    this.lastShown = lineNo;
    if (truncated) this.longShown++;
  }

  /** The model's copy, and the whole (every requested line, up to the cap) when the copy left some out. */
  result(shown: string, total: number): ToolOutput {
    if (total === 0) return { content: `${shown} is empty (0 bytes).`, isError: false };
    if (this.start > total) return { content: `${shown} has ${fmtInt(total)} lines; offset=${fmtInt(this.start)} is past the end.`, isError: true };
    const content = this.text(this.rows.slice(0, this.shown), this.lastShown, this.longShown, total, this.capped ? this.maxChars : 0, this.foreignShown);
    if (!this.capped) return { content, isError: false };
    return { content, isError: false, full: fullOutputOf(this.text(this.rows, this.last, this.long, total, this.full ? this.archiveCap : 0, this.foreign)) };
  }

  private text(rows: string[], last: number, long: number, total: number, cappedAt: number, foreign: readonly number[]): string {
    const notes: string[] = [];
    if (foreign.length > 0) notes.push(foreignNote(foreign));
    if (long > 0)
      notes.push(`(${fmtInt(long)} line${long === 1 ? '' : 's'} longer than ${fmtInt(this.maxLineChars)} characters ${long === 1 ? 'was' : 'were'} cut.)`);
    if (last < total) {
      const why = cappedAt > 0 ? ` (output capped at ${fmtInt(cappedAt)} characters)` : '';
      notes.push(`… file has ${fmtInt(total)} lines; showing ${fmtInt(this.start)}-${fmtInt(last)}${why}. Read more with offset=${last + 1}.`);
    }
    return rows.join('\n') + (notes.length > 0 ? `\n\n${notes.join('\n')}` : '');
  }
}

/** What the model is told of lines that are not UTF-8: which, how they are shown, and what Edit will do. */
function foreignNote(lines: readonly number[]): string {
  const n = lines.length;
  const named =
    n === 1
      ? `Line ${fmtInt(lines[0]!)} is`
      : n <= 5
        ? `Lines ${lines.slice(0, -1).map(fmtInt).join(', ')} and ${fmtInt(lines[n - 1]!)} are`
        : `${fmtInt(n)} lines (${lines.slice(0, 3).map(fmtInt).join(', ')} …) are`;
  return (
    `(${named} not valid UTF-8 (Latin-1 or Windows-1252?) and ${n === 1 ? 'is' : 'are'} shown decoded as Windows-1252. ` +
    `Edit and Write refuse this file: they keep a file's bytes as they are. Convert it with Bash (iconv -f WINDOWS-1252 -t UTF-8) to edit it.)`
  );
}
