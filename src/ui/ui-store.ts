// Turns the controller's events into what the screen shows. Finished things are appended to the transcript
// (rendered once); the rest is live state in small stores, so that a streamed chunk touches only the streaming view.
import { reportLines } from '../compaction/reportText.js';
import { ToolExpander } from './expand-output.js';
import type { Message } from '../llm/messages.js';
import { isToolResultMessage, textOf, toolUses } from '../llm/messages.js';
import type { ApprovalDecision } from '../tools/permissions.js';
import { diffStat, formatUnified } from '../tools/fileDiff.js';
import { newApprovalView, type ApprovalView } from './approval.js';
import { isCommandText } from './completion.js';
import type { SessionView, UiController, UiEvent } from './controller.js';
import { emptyLive, isWorking, type Hint, type LiveState, type StatusState, type TranscriptState } from './live-state.js';
import { queuedBatches } from './prompt-queue.js';
import { RETRY_LABEL, retryText, waitingText } from './status-text.js';
import { turnEndItems } from './turn-end.js';
import { newHistoryBrowser, type HistoryBrowserState } from './history-browser.js';
import { newPicker, type PickerState } from './picker.js';
import { newModelPicker, type ModelPickerState } from './model-picker.js';
import { newRewindPicker, type RewindPickerState } from './rewind-picker.js';
import { TasksPanelStore } from './tasks-panel.js';
import { Store } from './store.js';
import { LiveToolOutput } from './tool-progress.js';
import { StreamView } from './stream-view.js';
import type { ThinkingItem, TranscriptItem } from './transcript.js';
import { estimateTokens } from './format.js';
import { isShellNote } from '../session/shellNote.js';
import { itemId, keyArgument, messagesToItems, noReplyItem, searchItems } from './transcript.js';
import { TranscriptPrinter } from './transcript-printer.js';
import { compactionStep, finishedToolItem, respondFirst } from './live-events.js';
import { TaskListState } from './task-list-state.js';

/** How long an SDK notice stays under the prompt. */
export const PROVIDER_NOTICE_MS = 30_000;

export class UiStore {
  /** The transcript: what it holds, and how it reaches the terminal. */
  readonly printer: TranscriptPrinter;
  readonly transcript: Store<TranscriptState>;
  readonly live = new Store<LiveState>(emptyLive());
  private readonly streaming = new StreamView((item) => this.append(item));
  readonly stream = this.streaming.state;
  readonly status: Store<StatusState>;
  readonly approvals = new Store<ApprovalView[]>([]);
  readonly picker = new Store<PickerState | null>(null);
  /** The /model picker, open over the prompt. */
  readonly models = new Store<ModelPickerState | null>(null);
  readonly taskPanel = new TasksPanelStore(() => this.controller.taskRows?.());
  /** The /rewind picker, open over the prompt. */
  readonly rewind = new Store<RewindPickerState | null>(null);
  /** The /history browser, open over the prompt. */
  readonly history = new Store<HistoryBrowserState | null>(null);
  readonly hint = new Store<Hint>(null);
  /** The task list shown above the prompt while work is under way (Ctrl+T hides it). */
  readonly tasks: TaskListState;
  /** The last lines of each running tool's output (tool id → lines), refreshed a few times a second. */
  private readonly liveOutput = new LiveToolOutput();
  readonly toolTails = this.liveOutput.tails;
  /** Called when the controller says the program is ending. */
  onExit: () => void = () => {};
  /** tool_use id → name and key argument, from assistant messages, for rows whose tool_start never came. */
  private readonly toolInputs = new Map<string, { name: string; summary: string }>();
  /** The last finished tool row and what Ctrl-O prints of it. */
  private readonly expander: ToolExpander;
  private lastThinking: ThinkingItem | null = null;
  /** The last compaction receipt with a report (Ctrl+O prints the report). */
  private lastReport: Extract<TranscriptItem, { kind: 'compaction' }> | null = null;
  private turnShowedInterrupt = false;
  private readonly providerNotices = new Set<string>();
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  constructor(
    private readonly controller: UiController,
    private readonly now: () => number = Date.now,
  ) {
    const items = messagesToItems(controller.initialTranscript());
    this.expander = new ToolExpander(controller);
    this.expander.reset(items);
    this.printer = new TranscriptPrinter(items, () => this.status.get().session.id);
    this.transcript = this.printer.state;
    this.status = new Store<StatusState>({ session: controller.session(), usage: controller.contextUsage() });
    this.tasks = new TaskListState(() => controller.todos?.() ?? []);
  }

  append(...items: TranscriptItem[]): void {
    this.printer.append(...items);
  }

  private patchLive(patch: Partial<LiveState>): void {
    const before = this.live.get();
    const next = { ...before, ...patch };
    this.live.set(next);
    if (isWorking(before) && !isWorking(next) && next.queued.length > 0) this.scheduleQueueFlush();
  }

  handle(ev: UiEvent): void {
    switch (ev.type) {
      case 'turn_start':
        this.turnShowedInterrupt = false;
        this.streaming.reset();
        return this.patchLive({ turn: { startedAt: this.now(), outputTokens: 0 }, retry: null });
      case 'request_start':
        // A retried call starts its reply over; what was shown of the failed one stays (its unprinted end too), so say so.
        if (ev.attempt > 1) {
          this.endThinking();
          const s = this.stream.get();
          const rest = s.text.slice(s.committed);
          if (rest.trim() !== '') this.append({ kind: 'assistant', id: itemId(), text: rest, interrupted: false, continued: s.committed > 0 });
          if (s.text.trim() !== '') this.append({ kind: 'notice', id: itemId(), level: 'warning', text: 'The reply above was cut off; the model starts over' });
        }
        this.streaming.reset();
        return this.patchLive({ retry: null, waiting: null, writingTools: [] });
      case 'thinking_delta': {
        const t = this.live.get().thinking;
        return this.patchLive({ waiting: null, thinking: { startedAt: t?.startedAt ?? this.now(), text: (t?.text ?? '') + ev.text } });
      }
      case 'text_delta':
        this.endThinking();
        if (this.live.get().waiting) this.patchLive({ waiting: null });
        return this.streaming.feed(ev.text);
      case 'waiting':
        return this.patchLive({ waiting: waitingText(ev) });
      case 'tool_call_streaming':
        this.endThinking();
        return this.patchLive({ waiting: null, writingTools: [...this.live.get().writingTools, { id: ev.id, name: ev.name }] });
      case 'message':
        if (ev.message.role === 'assistant') this.endThinking();
        return this.onMessage(ev.message);
      case 'tool_start': {
        const l = this.live.get();
        const summary = ev.summary || keyArgument(ev.input);
        this.toolInputs.set(ev.id, { name: ev.name, summary });
        return this.patchLive({
          writingTools: l.writingTools.filter((t) => t.id !== ev.id),
          running: [...l.running.filter((t) => t.id !== ev.id), { id: ev.id, name: ev.name, summary, startedAt: this.now() }],
        });
      }
      case 'tool_progress':
        return this.liveOutput.push(ev.id, ev.text);
      case 'tool_end': {
        const l = this.live.get();
        const streamed = this.liveOutput.take(ev.id);
        const known = l.running.find((t) => t.id === ev.id) ?? this.toolInputs.get(ev.id);
        const item = finishedToolItem(ev, known?.summary ?? '', streamed);
        if (ev.status === 'interrupted') this.turnShowedInterrupt = true;
        this.expander.finished(item);
        this.toolInputs.delete(ev.id);
        this.append(item);
        this.tasks.toolEnded(ev);
        return this.patchLive({ running: l.running.filter((t) => t.id !== ev.id) });
      }
      case 'child':
        if (ev.state.sessionId !== undefined) this.expander.childStarted(ev.state.toolUseId, ev.state.sessionId);
        return this.tasks.child(ev.state);
      case 'usage': {
        const turn = this.live.get().turn;
        if (this.stream.get().chars > 0) this.stream.set({ ...this.stream.get(), chars: 0 });
        if (turn) this.patchLive({ turn: { ...turn, outputTokens: turn.outputTokens + ev.usage.outputTokens } });
        return;
      }
      case 'retry': {
        const text = retryText(ev);
        this.append({ kind: 'retry', id: itemId(), text });
        return this.patchLive({ retry: { text: `${RETRY_LABEL[ev.kind] ?? 'Request failed'} — retrying`, until: this.now() + ev.delayMs } });
      }
      case 'continuation':
        return this.append({ kind: 'meta', id: itemId(), text: `The reply hit the output limit — asking the model to continue (${ev.count}/${ev.max})` });
      case 'error':
        return this.append({ kind: 'error', id: itemId(), text: ev.message });
      case 'turn_end':
        this.endThinking();
        return this.onTurnEnd(ev.reason, ev.steps);
      case 'compaction_start':
      case 'compaction_progress':
      case 'compaction_end':
      case 'compaction_skipped': {
        const step = compactionStep(ev, this.live.get().compaction, this.now());
        if (step.item) this.append(step.item);
        // Ctrl+O opens the whole report of the latest compaction while nothing newer took it
        if (step.item?.kind === 'compaction' && step.item.record.report) this.lastReport = step.item;
        if (step.compaction !== undefined) this.patchLive({ compaction: step.compaction });
        return;
      }
      case 'context':
        // a /model switch (or a title given by the first prompt) shows up with the next count
        return this.status.set({ session: this.freshSessionView(), usage: ev.usage });
      case 'notice':
        return this.append({ kind: 'notice', id: itemId(), level: ev.level, text: ev.text });
      case 'provider_notice': {
        // once per text for the whole run, first line only (the rest is a link to the docs; the debug log has it all)
        const line = ev.text.split('\n')[0]!.trim();
        if (this.providerNotices.has(line)) return;
        this.providerNotices.add(line);
        return this.flashHint(`ⓘ ${line}`, 'notice', PROVIDER_NOTICE_MS);
      }
      case 'approval': {
        const view = newApprovalView({ request: ev.request, respond: ev.respond });
        if (view.detailAbove) this.append({ kind: 'approval_detail', id: itemId(), toolName: ev.request.toolName, summary: ev.request.summary });
        return this.approvals.set([...this.approvals.get(), view]);
      }
      case 'command_output':
        if (ev.output.kind === 'picker') return this.picker.set(newPicker(ev.output.sessions, this.controller.searchSessions?.bind(this.controller)));
        if (ev.output.kind === 'models') return this.models.set(newModelPicker(ev.output.models, ev.output.current));
        if (ev.output.kind === 'history') return this.history.set(newHistoryBrowser(ev.output.result));
        if (ev.output.kind === 'rewind') return this.rewind.set(newRewindPicker(ev.output.targets));
        if (ev.output.kind === 'tasks' && ev.output.rows.length > 0) return this.taskPanel.open(ev.output.rows);
        return this.append({ kind: 'command', id: itemId(), command: ev.command, output: ev.output });
      case 'session':
        return this.openSession(ev);
      case 'busy':
        return this.patchLive({ busy: ev.busy, busySince: ev.busy ? this.now() : null, ...(ev.busy ? {} : { activities: [] }) });
      case 'activity': {
        const a = this.live.get().activities;
        const at = a.findIndex((x) => x.label === ev.label);
        if (!ev.done) return this.patchLive({ activities: [...a, { label: ev.label, startedAt: this.now() }] });
        return at < 0 ? undefined : this.patchLive({ activities: a.filter((_, i) => i !== at) });
      }
      case 'mcp_status':
        return this.sessionField('mcp', ev.text || undefined);
      case 'status_command':
        return this.sessionField('statusCommand', ev.line || undefined);
      case 'background_status':
        return this.sessionField('background', ev.text || undefined);
      case 'permission_mode':
        return this.status.set({ ...this.status.get(), session: { ...this.status.get().session, permissionMode: ev.mode } });
      case 'unsaved':
        return this.sessionField('unsaved', ev.count > 0 ? ev.count : undefined);
      case 'history_reset':
        return this.tasks.refresh();
      case 'prompt_refused':
      case 'prompt_returned':
        // the text goes back into the prompt: to shorten or to save as a file, to edit or to send again
        this.append({ kind: 'notice', id: itemId(), level: ev.type === 'prompt_refused' ? 'error' : 'info', text: ev.message });
        return this.onPromptReturned(ev.text);
      case 'exit':
        return this.onExit();
    }
  }

  private onMessage(m: Message): void {
    if (m.role === 'assistant') {
      for (const use of toolUses(m)) this.toolInputs.set(use.id, { name: use.name, summary: keyArgument(use.input) });
      const { rest, continued } = this.streaming.settle(textOf(m));
      if (m.interrupted) this.turnShowedInterrupt = true;
      const none = continued ? null : noReplyItem(m);
      if (none) this.append(none);
      else if (rest.trim() !== '' || m.interrupted)
        this.append({ kind: 'assistant', id: itemId(), text: rest, interrupted: m.interrupted === true, continued });
      this.append(...searchItems(m, itemId));
      return this.patchLive({ writingTools: [] });
    }
    if (isToolResultMessage(m) || m.kind === 'meta' || isShellNote(m)) return;
    this.append(...messagesToItems([m]));
  }

  private onTurnEnd(reason: string, steps: number): void {
    const { items, showedInterrupt } = turnEndItems({
      reason,
      steps,
      stream: this.stream.get(),
      running: this.live.get().running,
      now: this.now(),
      showedInterrupt: this.turnShowedInterrupt,
    });
    this.turnShowedInterrupt = showedInterrupt;
    this.append(...items);
    this.streaming.reset();
    if (this.approvals.get().length > 0) this.approvals.set([]); // the session gave up on any approval still waiting
    this.patchLive({ turn: null, running: [], writingTools: [], retry: null, waiting: null });
    this.liveOutput.clear();
  }

  private openSession(ev: Extract<UiEvent, { type: 'session' }>): void {
    this.toolInputs.clear();
    this.lastThinking = null;
    this.lastReport = null;
    this.picker.set(null);
    this.models.set(null);
    this.rewind.set(null);
    this.history.set(null);
    this.approvals.set([]);
    this.streaming.reset();
    this.live.set({ ...emptyLive(), busy: this.live.get().busy, busySince: this.live.get().busySince });
    this.liveOutput.clear();
    this.status.set({ session: ev.session, usage: this.controller.contextUsage() });
    this.tasks.refresh();
    const items = messagesToItems(ev.transcript, ev.compactions);
    this.expander.reset(items);
    this.printer.openSession(items);
  }

  /** Sets one optional field of the footer's session view, or removes it (undefined). */
  private sessionField<K extends 'mcp' | 'statusCommand' | 'background' | 'unsaved'>(key: K, value: SessionView[K] | undefined): void {
    const session = { ...this.status.get().session };
    if (value === undefined) delete session[key];
    else session[key] = value;
    this.status.set({ ...this.status.get(), session });
  }

  private freshSessionView(): SessionView {
    const now = this.controller.session();
    const cur = this.status.get().session;
    return now.id === cur.id &&
      now.model === cur.model &&
      now.provider === cur.provider &&
      now.title === cur.title &&
      now.cwd === cur.cwd &&
      now.thinking === cur.thinking
      ? cur
      : now;
  }

  /** Thinking ends where the reply (text or a tool call) begins: it becomes one collapsed line, what was shown of it kept for Ctrl-O. */
  private endThinking(): void {
    const t = this.live.get().thinking;
    if (!t) return;
    this.patchLive({ thinking: null });
    if (t.text.trim() === '') return;
    const item: ThinkingItem = { kind: 'thinking', id: itemId(), text: t.text, tokens: estimateTokens(t.text.length) };
    this.lastThinking = item;
    this.append(item);
  }

  private thinkingIsNewer(th: ThinkingItem): boolean {
    const items = this.transcript.get().items;
    const t = this.expander.last;
    return !t || items.lastIndexOf(th) > items.lastIndexOf(t);
  }

  /** Ctrl-O: prints in full whichever came last: the last finished tool output, the last thinking, or the last compaction's report. */
  expandLastTool(): boolean {
    const th = this.lastThinking;
    const rep = this.lastReport;
    const items = this.transcript.get().items;
    if (rep && items.lastIndexOf(rep) > Math.max(th ? items.lastIndexOf(th) : -1, this.expander.last ? items.lastIndexOf(this.expander.last) : -1)) {
      this.lastReport = null;
      this.append({ kind: 'tool_output', id: itemId(), name: 'Compaction', summary: `report of ${rep.record.id}`, output: reportLines(rep.record).join('\n') });
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
    const diff = view.request.diff;
    if (!diff) return;
    if (!this.expander.printOnce(view.request.toolUseId)) return this.flashHint('The whole diff is printed above', 'info');
    const output = `Proposed, not applied yet: ${diffStat(diff)}\n${formatUnified(diff)}`;
    this.append({ kind: 'tool_output', id: itemId(), name: view.request.toolName, summary: diff.path, output });
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
