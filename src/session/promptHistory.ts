import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

// Prompts typed in the TUI, across sessions, for Up/Down recall. One JSON string per line
// in a private file beside the database.

const MAX_ENTRIES = 1_000;

/** The prompt history of the person whose database is at `dbPath`: the file beside it. */
export const promptHistoryBeside = (dbPath: string): PromptHistory => new PromptHistory(join(dirname(dbPath), 'prompt-history.jsonl'));

export class PromptHistory {
  private entries: string[] | undefined;
  constructor(private readonly file: string) {}

  all(): string[] {
    if (!this.entries) this.entries = this.load();
    return this.entries;
  }

  add(prompt: string): void {
    const text = prompt.trim();
    if (!text) return;
    const entries = this.all();
    if (entries.at(-1) === text) return;
    entries.push(text);
    try {
      if (entries.length > MAX_ENTRIES * 1.5) {
        this.entries = entries.slice(-MAX_ENTRIES);
        writeFileSync(this.file, this.entries.map((e) => JSON.stringify(e)).join('\n') + '\n', { mode: 0o600 });
      } else {
        appendFileSync(this.file, JSON.stringify(text) + '\n', { mode: 0o600 });
      }
    } catch {
      // history is a convenience; failing to save it must not disturb the session
    }
  }

  private load(): string[] {
    let raw: string;
    try {
      raw = readFileSync(this.file, 'utf8');
    } catch {
      return [];
    }
    const out: string[] = [];
    for (const line of raw.split('\n')) {
      if (!line) continue;
      try {
        const v: unknown = JSON.parse(line);
        if (typeof v === 'string') out.push(v);
      } catch {
        // skip a torn line (e.g. a crash mid-write)
      }
    }
    return out.slice(-MAX_ENTRIES);
  }
}
