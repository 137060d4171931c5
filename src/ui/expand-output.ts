// Ctrl+O on tool rows: which finished row's output to print in full, and where its whole text
// comes from (and what Ctrl+O prints besides: a compaction's report, an edit's whole diff at its
// approval prompt). A sub-agent's row prints its child's transcript (child-rows.ts); a spilled row
// prints the archived output by the handle its preview names (the store keeps it, so this works
// after --resume, /rewind and a history reset as well as live); a row whose model copy was cut
// prints what its tool streamed in this process; any other row prints what the model got.
// Owns the last finished row and which row was already printed; never renders.
import { reportLines } from '../compaction/reportText.js';
import { diffStat, formatUnified } from '../tools/fileDiff.js';
import { fmtInt } from '../tools/format.js';
import type { ApprovalRequest } from '../tools/permissions.js';
import { spillHeaderOf } from '../tools/spill.js';
import { ChildRows } from './child-rows.js';
import type { UiController } from './controller.js';
import type { ToolItem, TranscriptItem } from './transcript.js';
import { itemId } from './transcript.js';
import { TOOL } from '../tools/toolNames.js';

/** What Ctrl+O does: print an item, or say (a hint) why there is nothing to print. */
export type Expansion = { item: TranscriptItem; hint?: string } | { hint: string };

export class ToolExpander {
  private lastTool: ToolItem | null = null;
  private readonly childRows = new ChildRows();
  private printedId: string | null = null;

  constructor(private readonly controller: Pick<UiController, 'viewOf' | 'spilledOutput'>) {}

  /** The last finished tool row (thinking printed after it wins Ctrl+O). */
  get last(): ToolItem | null {
    return this.lastTool;
  }

  /** A session's rows from the start (a resumed transcript, a rewound or reset history). */
  reset(items: readonly TranscriptItem[]): void {
    this.lastTool = null;
    for (let i = items.length - 1; i >= 0 && !this.lastTool; i--) if (items[i]!.kind === 'tool') this.lastTool = items[i] as ToolItem;
    this.printedId = null;
    this.childRows.reset(items);
  }

  /** A tool row finished live. */
  finished(item: ToolItem): void {
    this.lastTool = item;
    this.childRows.finished(item);
  }

  /** A Task call's child session started. */
  childStarted(toolUseId: string, sessionId: string): void {
    this.childRows.started(toolUseId, sessionId);
  }

  /** Whether Ctrl+O printed `id` last. */
  printed(id: string): boolean {
    return this.printedId === id;
  }

  /** Marks `id` printed; false when it already was (Ctrl+O twice prints once). */
  printOnce(id: string): boolean {
    if (this.printedId === id) return false;
    this.printedId = id;
    return true;
  }

  /** Ctrl+O at an edit's approval prompt: its whole diff, printed once (undefined: the request has none). */
  approvalDiff(request: ApprovalRequest): Expansion | undefined {
    const diff = request.diff;
    if (!diff) return undefined;
    if (!this.printOnce(request.toolUseId)) return { hint: 'The whole diff is printed above' };
    const output = `Proposed, not applied yet: ${diffStat(diff)}\n${formatUnified(diff)}`;
    return { item: { kind: 'tool_output', id: itemId(), name: request.toolName, summary: diff.path, output } };
  }

  /** Ctrl+O on a compaction's receipt: its report. */
  report(receipt: Extract<TranscriptItem, { kind: 'compaction' }>): TranscriptItem {
    return { kind: 'tool_output', id: itemId(), name: 'Compaction', summary: `report of ${receipt.record.id}`, output: reportLines(receipt.record).join('\n') };
  }

  /** Ctrl+O on the last tool row. */
  expand(): Expansion {
    const t = this.lastTool;
    // a sub-agent's row: its child's whole transcript (again: the previous child's)
    const row = !t || t.name === TOOL.Task ? this.childRows.next() : undefined;
    const text = row ? this.controller.viewOf('child', row.childId) : undefined;
    if (row && text !== undefined)
      return { item: { kind: 'tool_output', id: itemId(), name: TOOL.Task, summary: `${row.item.summary} — the sub-agent's transcript`, output: text } };
    if (!t) return { hint: 'No tool output to expand yet' };
    if (!this.printOnce(t.id)) return { hint: 'That output is already shown in full above' };
    const whole = this.wholeOutput(t);
    return { item: { kind: 'tool_output', id: itemId(), name: t.name, summary: t.summary, output: whole.text }, ...(whole.hint ? { hint: whole.hint } : {}) };
  }

  /** The whole of a row's output: archived (spilled), streamed (cut for the model), or as the model got it. */
  private wholeOutput(t: ToolItem): { text: string; hint?: string } {
    const handle = t.clearedTokens === undefined ? spillHeaderOf(t.output)?.handle : undefined;
    if (handle !== undefined && this.controller.spilledOutput) {
      try {
        const s = this.controller.spilledOutput(handle);
        if (s)
          return {
            text:
              s.totalChars > s.text.length
                ? `${s.text}\n[only the first ${fmtInt(s.text.length)} characters were archived (cap); ${fmtInt(s.totalChars - s.text.length)} more were not kept]`
                : s.text,
          };
        if (t.fullOutput === undefined) return { text: t.output, hint: `Output ${handle} is not in this session's archive: showing what the model got` };
      } catch (e) {
        return { text: t.fullOutput ?? t.output, hint: `Could not read output ${handle} from the archive: ${e instanceof Error ? e.message : String(e)}` };
      }
    }
    return { text: t.fullOutput ?? t.output };
  }
}
