// Capping text: long lines, and long streams kept as head + tail with a marker between.
import { fmtInt } from './format.js';

const countNewlines = (s: string): number => {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
};

export interface Capped {
  text: string;
  truncated: boolean;
  /** Characters and lines left out of `text` (0 when not truncated). */
  cutChars: number;
  cutLines: number;
}

/**
 * Keeps the first and the last characters of a stream of any length in bounded memory:
 * at most about maxChars·1.6 characters are held whatever is pushed. The tail gets the
 * larger share because errors and summaries come at the end of command output.
 */
export class HeadTailBuffer {
  private head = '';
  private tail = '';
  private totalChars = 0;
  private totalNewlines = 0;
  private readonly headCap: number;
  private readonly tailCap: number;

  constructor(readonly maxChars: number) {
    this.headCap = Math.floor(maxChars * 0.4);
    this.tailCap = maxChars - this.headCap;
  }

  push(s: string): void {
    if (s === '') return;
    this.totalChars += s.length;
    this.totalNewlines += countNewlines(s);
    if (this.head.length < this.headCap) {
      const take = s.slice(0, this.headCap - this.head.length);
      this.head += take;
      s = s.slice(take.length);
    }
    if (s === '') return;
    this.tail += s;
    if (this.tail.length > 2 * this.tailCap) this.tail = this.tail.slice(-this.tailCap);
  }

  get total(): number {
    return this.totalChars;
  }

  /** Characters currently held (bounded whatever was pushed). */
  get retained(): number {
    return this.head.length + this.tail.length;
  }

  result(): Capped {
    if (this.totalChars <= this.maxChars) return { text: this.head + this.tail, truncated: false, cutChars: 0, cutLines: 0 };
    let head = this.head;
    let tail = this.tail.slice(-this.tailCap);
    // cut at line boundaries when one is near, so the marker sits between whole lines
    const lastNl = head.lastIndexOf('\n');
    if (lastNl >= head.length / 2) head = head.slice(0, lastNl + 1);
    const firstNl = tail.indexOf('\n');
    if (firstNl !== -1 && firstNl < tail.length / 2) tail = tail.slice(firstNl + 1);
    const cutChars = this.totalChars - head.length - tail.length;
    const cutLines = Math.max(0, this.totalNewlines - countNewlines(head) - countNewlines(tail));
    const marker = `${head.endsWith('\n') ? '' : '\n'}… [${fmtInt(cutChars)} characters (${fmtInt(cutLines)} lines) cut from the middle of the output] …\n`;
    return { text: head + marker + tail, truncated: true, cutChars, cutLines };
  }
}

/** Keeps head and tail of a string longer than maxChars. */
export function truncateMiddle(text: string, maxChars: number): Capped {
  const buf = new HeadTailBuffer(maxChars);
  buf.push(text);
  return buf.result();
}

/** Cuts one line at maxChars, saying how much was left out. */
export function truncateLine(line: string, maxChars: number): { text: string; truncated: boolean } {
  if (line.length <= maxChars) return { text: line, truncated: false };
  return { text: `${line.slice(0, maxChars)}… [${fmtInt(line.length - maxChars)} more characters]`, truncated: true };
}
