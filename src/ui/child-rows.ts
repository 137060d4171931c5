// Sub-agent rows (Task calls) for Ctrl+O: which child session each row ran, and which row's
// transcript to print next — the newest not yet shown, so pressing again walks back through
// the children of a reply. A row's child is known from the live 'child' events, or (a resumed
// session) from the handle at the end of its result.
import type { ToolItem } from './transcript.js';
import { TOOL } from '../tools/toolNames.js';

const HANDLE = /child session (s_[a-z0-9]+)/;

export class ChildRows {
  private rows: ToolItem[] = [];
  private readonly childOf = new Map<string, string>();
  private readonly shown = new Set<string>();

  /** A session's rows from the start (a resumed transcript). */
  reset(items: readonly { kind: string }[]): void {
    this.rows = items.filter((i): i is ToolItem => i.kind === 'tool' && (i as ToolItem).name === TOOL.Task);
    this.childOf.clear();
    this.shown.clear();
  }

  /** A Task call's child session started. */
  started(toolUseId: string, sessionId: string): void {
    this.childOf.set(toolUseId, sessionId);
  }

  /** A Task row finished. */
  finished(item: ToolItem): void {
    if (item.name === TOOL.Task) this.rows.push(item);
  }

  /** The newest Task row whose transcript was not printed yet, with its child session; undefined when there is none. */
  next(): { item: ToolItem; childId: string } | undefined {
    for (let i = this.rows.length - 1; i >= 0; i--) {
      const item = this.rows[i]!;
      const childId = this.childOf.get(item.toolUseId) ?? HANDLE.exec(item.output)?.[1];
      if (childId === undefined || this.shown.has(childId)) continue;
      this.shown.add(childId);
      return { item, childId };
    }
    return undefined;
  }
}
