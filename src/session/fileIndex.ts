// The files of the working directory for `@` completion in the prompt: listed once (and again
// after a while), .gitignore respected, matched fuzzily.
import { relative } from 'node:path';
import { GitignoreRules, listFiles } from '../tools/gitignore.js';
import { toSlash } from '../tools/paths.js';

/** Files beyond this many are not indexed (a huge tree still completes what was found first). */
const MAX_FILES = 50_000;
const REFRESH_MS = 15_000;

export class FileIndex {
  private entries: Promise<string[]> | undefined;
  private loadedAt = 0;

  constructor(private readonly cwd: string) {}

  /** Paths for what follows an `@`: fuzzy matches, best first; `dir/` lists that directory. Directories end with "/". */
  async complete(query: string, limit = 50): Promise<string[]> {
    const all = await this.list();
    if (query === '' || query.endsWith('/')) {
      const children = all.filter((p) => p.startsWith(query) && p !== query && !p.slice(query.length).replace(/\/$/, '').includes('/'));
      if (children.length > 0 || query === '') return children.sort(byDirsFirst).slice(0, limit);
    }
    const q = query.toLowerCase();
    const scored: Array<{ path: string; score: number }> = [];
    for (const path of all) {
      const score = fuzzyScore(path.toLowerCase(), q);
      if (score !== undefined) scored.push({ path, score });
    }
    scored.sort((a, b) => a.score - b.score || a.path.length - b.path.length || a.path.localeCompare(b.path));
    return scored.slice(0, limit).map((s) => s.path);
  }

  private list(): Promise<string[]> {
    if (!this.entries || Date.now() - this.loadedAt > REFRESH_MS) {
      this.loadedAt = Date.now();
      this.entries = this.load().catch(() => []);
    }
    return this.entries;
  }

  private async load(): Promise<string[]> {
    const rules = await GitignoreRules.forSearch(this.cwd, this.cwd);
    const ac = new AbortController();
    const files = await listFiles({ root: this.cwd, patterns: ['**/*'], rules, signal: ac.signal });
    const rel = files.slice(0, MAX_FILES).map((f) => toSlash(relative(this.cwd, f)));
    const dirs = new Set<string>();
    for (const f of rel) for (let i = f.indexOf('/'); i !== -1; i = f.indexOf('/', i + 1)) dirs.add(f.slice(0, i + 1));
    return [...dirs, ...rel];
  }
}

const byDirsFirst = (a: string, b: string): number => Number(!a.endsWith('/')) - Number(!b.endsWith('/')) || a.localeCompare(b);

/**
 * Lower is better; undefined when the query's characters do not appear in order. A match at
 * the start of the path or of its file name beats one inside; fewer gaps beat more.
 */
export function fuzzyScore(path: string, q: string): number | undefined {
  if (q === '') return 0;
  const base = path.slice(path.lastIndexOf('/', path.length - 2) + 1);
  if (path.startsWith(q)) return 0;
  if (base.startsWith(q)) return 1;
  const at = path.indexOf(q);
  if (at !== -1) return 2 + at / 1000;
  let gaps = 0;
  let pos = -1;
  for (const ch of q) {
    const next = path.indexOf(ch, pos + 1);
    if (next === -1) return undefined;
    if (next !== pos + 1) gaps++;
    pos = next;
  }
  return 3 + gaps;
}
