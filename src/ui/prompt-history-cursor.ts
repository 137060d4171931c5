// Up/Down through earlier prompts: the draft being typed is kept aside and comes back at the end.
import type { EditState } from './prompt-editor.js';

export class PromptHistoryCursor {
  private readonly list: string[];
  /** Position while browsing with Up/Down; null while editing the draft. */
  private index: number | null = null;
  private draft = '';

  constructor(entries: readonly string[]) {
    this.list = [...entries];
  }

  /** Earlier prompts, oldest first. */
  get entries(): readonly string[] {
    return this.list;
  }

  /** Back to editing the draft (any edit, a submit, a cleared prompt). */
  reset(): void {
    this.index = null;
  }

  /** A sent prompt joins the history (not twice in a row); the draft is done with. */
  push(text: string): void {
    if (this.list[this.list.length - 1] !== text) this.list.push(text);
    this.index = null;
    this.draft = '';
  }

  /** The prompt one step older (-1) or newer (1) than the one shown; null when there is none. */
  step(dir: -1 | 1, current: string): EditState | null {
    if (this.list.length === 0) return null;
    if (this.index === null) {
      if (dir === 1) return null;
      this.draft = current;
      this.index = this.list.length - 1;
    } else {
      const next = this.index + dir;
      if (next < 0) return null;
      if (next >= this.list.length) {
        this.index = null;
        return { text: this.draft, cursor: this.draft.length };
      }
      this.index = next;
    }
    const entry = this.list[this.index] ?? '';
    return { text: entry, cursor: entry.length };
  }
}
