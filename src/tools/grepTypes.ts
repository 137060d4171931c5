// What the two Grep engines (JavaScript and ripgrep) share: the query and the per-file
// results, collected under the same rules so that both give identical output.

export type GrepMode = 'files' | 'lines' | 'count';

export interface GrepQuery {
  /** The compiled JavaScript regex (no g flag). */
  regex: RegExp;
  /** The pattern as the model wrote it. */
  source: string;
  /** The regex compiled with the u flag (only then may ripgrep run it). */
  unicode: boolean;
  ignoreCase: boolean;
  mode: GrepMode;
  /** Context lines around each match (lines mode). */
  contextLines: number;
  /** Matching lines kept per file (lines mode); the rest are only counted. */
  maxLinesPerFile: number;
  /** Files larger than this are skipped. */
  maxFileBytes: number;
}

export interface HitLine {
  /** 1-based line number */
  n: number;
  text: string;
  match: boolean;
}

export interface FileHit {
  /** absolute path */
  path: string;
  /** matching lines in the file */
  count: number;
  /** kept lines (lines mode): matches and their context, in order */
  lines: HitLine[];
}

/** Keeps a file's lines up to maxMatches matching lines plus the context after the last kept one. */
export class HitCollector {
  private count = 0;
  private readonly lines: HitLine[] = [];
  private kept = 0;
  private lastKeptMatch = -1;

  constructor(
    private readonly maxMatches: number,
    private readonly contextLines: number,
  ) {}

  add(n: number, text: string, match: boolean): void {
    if (match) this.count++;
    if (match && this.count <= this.maxMatches) {
      this.lines.push({ n, text, match });
      this.kept++;
      this.lastKeptMatch = n;
    } else if (!match && (this.kept < this.maxMatches || n <= this.lastKeptMatch + this.contextLines)) {
      this.lines.push({ n, text, match });
    }
  }

  get matches(): number {
    return this.count;
  }

  hit(path: string): FileHit {
    // context kept before a match that was then over the cap is of no use
    let end = this.lines.length;
    while (end > 0 && !this.lines[end - 1]!.match && this.lines[end - 1]!.n > this.lastKeptMatch + this.contextLines) end--;
    return { path, count: this.count, lines: this.lines.slice(0, end) };
  }
}
