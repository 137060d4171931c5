// Turns the controller's events into what the screen shows. Finished things are appended to the transcript
// (rendered once); the rest is live state in small stores, so that a streamed chunk touches only the streaming view.
import type { Event } from '../protocol/events.js';
import type { ApprovalDecision } from '../tools/permissions.js';
import type { ApprovalView } from './approval.js';
import { isCommandText } from './completion.js';
import type { UiController } from './controller.js';
import { handleEvent } from './event-handlers.js';
import type { UiHost } from './events-host.js';
import { ToolExpander } from './expand-output.js';
import { estimateTokens } from './format.js';
import type { HistoryBrowserState } from './history-browser.js';
import { respondFirst } from './live-events.js';
import { emptyLive, isWorking, type Hint, type LiveState, type StatusState, type TranscriptState } from './live-state.js';
import type { ModelPickerState } from './model-picker.js';
import type { PickerState } from './picker.js';
import { queuedBatches } from './prompt-queue.js';
import type { RewindPickerState } from './rewind-picker.js';
import { Store } from './store.js';
import { StreamView } from './stream-view.js';
import { TaskListState } from './task-list-state.js';
import { TasksPanelStore } from './tasks-panel.js';
import { LiveToolOutput } from './tool-progress.js';
import type { ThinkingItem, TranscriptItem } from './transcript.js';
import { itemId, messagesToItems } from './transcript.js';
import { TranscriptPrinter } from './transcript-printer.js';

export class UiStore implements UiHost {
  /** The transcript: what it holds, and how it reaches the terminal. */
  readonly printer: TranscriptPrinter;
  readonly transcript: Store<TranscriptState>;
  readonly live = new Store<LiveState>(emptyLive());
  readonly streaming = new StreamView((item) => this.append(item));
  readonly stream = this.streaming.state;
  readonly status: Store<StatusState>;
  readonly approvals = new Store<ApprovalView[]>([]);
  readonly picker = new Store<PickerState | null>(null);
  /** The /model picker, open over the prompt. */
  readonly models = new Store<ModelPickerState | null>(null);
  readonly taskPanel = new TasksPanelStore(() => this.controller.viewOf('tasks'));
  /** The /rewind picker, open over the prompt. */
  readonly rewind = new Store<RewindPickerState | null>(null);
  /** The /history browser, open over the prompt. */
  readonly history = new Store<HistoryBrowserState | null>(null);
  readonly hint = new Store<Hint>(null);
  /** The task list shown above the prompt while work is under way (Ctrl+T hides it). */
  readonly tasks: TaskListState;
  /** The last lines of each running tool's output (tool id → lines), refreshed a few times a second. */
  readonly liveOutput = new LiveToolOutput();
  readonly toolTails = this.liveOutput.tails;
  /** Called when the controller says the program is ending. */
  onExit: () => void = () => {};
  /** tool_use id → name and key argument, from assistant messages, for rows whose tool_start never came. */
  readonly toolInputs = new Map<string, { name: string; summary: string }>();
  /** The last finished tool row and what Ctrl-O prints of it. */
  readonly expander: ToolExpander;
  lastThinking: ThinkingItem | null = null;
  /** The last compaction receipt with a report (Ctrl+O prints the report). */
  lastReport: Extract<TranscriptItem, { kind: 'compaction' }> | null = null;
  turnShowedInterrupt = false;
  readonly providerNotices = new Set<string>();
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  constructor(
    readonly controller: UiController,
    readonly now: () => number = Date.now,
  ) {
    const items = messagesToItems(controller.initialTranscript());
    this.expander = new ToolExpander(controller);
    this.expander.reset(items);
    this.printer = new TranscriptPrinter(items, () => this.status.get().session.id);
    this.transcript = this.printer.state;
    this.status = new Store<StatusState>({ session: controller.session(), usage: controller.contextUsage() });
    this.tasks = new TaskListState(() => controller.viewOf('todos'));
  }

  append(...items: TranscriptItem[]): void {
    this.printer.append(...items);
  }

  patchLive(patch: Partial<LiveState>): void {
    const before = this.live.get();
    const next = { ...before, ...patch };
    this.live.set(next);
    if (isWorking(before) && !isWorking(next) && next.queued.length > 0) this.scheduleQueueFlush();
  }

  /** One event of the vocabulary: its handler in the table (event-handlers.ts; events-*.ts, one file per family). */
  handle(ev: Event): void {
    handleEvent(this, ev);
  }

  /** Thinking ends where the reply (text or a tool call) begins: it becomes one collapsed line, what was shown of it kept for Ctrl-O. */
  endThinking(): void {
    const t = this.live.get().thinking;
    if (!t) return;
    this.patchLive({ thinking: null });
    if (t.text.trim() === '') return;
    const item: ThinkingItem = { kind: 'thinking', id: itemId(), text: t.text, tokens: estimateTokens(t.text.length) };
    this.lastThinking = item;
    this.append(item);
  }

  /**
   * Whether Ctrl-O prints the thinking rather than the last tool row: it came later, and that row
   * is of an earlier turn or already printed. A row of this turn promised its output ("ctrl+o shows
   * all"), and a thinking model thinks again after every call: the row first, the thinking next.
   */
  private thinkingIsNewer(th: ThinkingItem): boolean {
    const items = this.transcript.get().items;
    const t = this.expander.last;
    if (!t) return true;
    const [row, thought] = [items.lastIndexOf(t), items.lastIndexOf(th)];
    if (thought < row) return false;
    return items.slice(row + 1, thought).some((i) => i.kind === 'user') || this.expander.printed(t.id);
  }

  /** Ctrl-O: prints in full whichever came last: the last finished tool output, the last thinking, or the last compaction's report. */
  expandLastTool(): boolean {
    const th = this.lastThinking;
    const rep = this.lastReport;
    const items = this.transcript.get().items;
    if (rep && items.lastIndexOf(rep) > Math.max(th ? items.lastIndexOf(th) : -1, this.expander.last ? items.lastIndexOf(this.expander.last) : -1)) {
      this.lastReport = null;
      this.append(this.expander.report(rep));
      return true;
    }
    if (th && this.thinkingIsNewer(th)) {
      this.lastThinking = null;
      this.append({ ...th, id: itemId(), expanded: true });
      return true;
    }
    const e = this.expander.expand();
    if ('item' in e) this.append(e.item);
    if (e.hint) this.flashHint(e.hint, 'info');
    return 'item' in e;
  }

  /** Ctrl-O at an edit's approval prompt: its whole diff, printed above the prompt (once). */
  showApprovalDiff(view: ApprovalView): void {
    const e = this.expander.approvalDiff(view.request);
    if (e && 'item' in e) this.append(e.item);
    else if (e) this.flashHint(e.hint, 'info');
  }

  respondToApproval(decision: ApprovalDecision): void {
    respondFirst(this.approvals, this.live, decision, this.now());
  }

  updateApproval(view: ApprovalView): void {
    const [, ...rest] = this.approvals.get();
    this.approvals.set([view, ...rest]);
  }

  /** Gives a prompt the session did not send back to the person's input (the app sets it). */
  onPromptReturned: (text: string) => void = () => undefined;

  /** Sends a prompt now, or queues it while the agent works (slash commands always go at once). */
  submit(text: string): void {
    const l = this.live.get();
    if (isWorking(l) && !isCommandText(text, this.controller.commands())) {
      this.patchLive({ queued: [...l.queued, text] });
      return;
    }
    this.controller.submit(text);
  }

  private scheduleQueueFlush(): void {
    if (this.flushTimer) return;
    // Out of the event handler that ended the work: submitting from inside it would re-enter the session.
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      const l = this.live.get();
      if (l.queued.length === 0 || isWorking(l)) return;
      this.live.set({ ...l, queued: [] });
      for (const batch of queuedBatches(l.queued)) this.controller.submit(batch);
    }, 0);
  }

  /** Takes the queued prompts back (Esc: the person interrupted, so they should not fire on their own). */
  takeQueued(): string[] {
    const q = this.live.get().queued;
    if (q.length > 0) this.live.set({ ...this.live.get(), queued: [] });
    return q;
  }

  private hintTimer: ReturnType<typeof setTimeout> | null = null;

  flashHint(text: string, level: NonNullable<Hint>['level'], ms = 2000): void {
    if (this.hintTimer) clearTimeout(this.hintTimer);
    this.hint.set({ text, level });
    this.hintTimer = setTimeout(() => {
      this.hintTimer = null;
      this.hint.set(null);
    }, ms);
  }

  /** Stops timers (the app is unmounting). */
  dispose(): void {
    this.liveOutput.dispose();
    this.printer.dispose();
    if (this.hintTimer) clearTimeout(this.hintTimer);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.hintTimer = null;
    this.flushTimer = null;
  }
}
