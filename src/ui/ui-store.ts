// Turns the controller's events into what the screen shows. Finished things are appended to the
// transcript (rendered once); the rest is live state, split into small stores so that a streamed
// chunk touches only the streaming view.
import type { Message } from '../llm/messages.js';
import { isToolResultMessage, textOf, toolUses } from '../llm/messages.js';
import type { ApprovalDecision } from '../tools/permissions.js';
import { newApprovalView, type ApprovalView } from './approval.js';
import { isCommandText } from './completion.js';
import type { SessionView, UiController, UiEvent } from './controller.js';
import { emptyLive, emptyStream, isWorking, type Hint, type LiveState, type StatusState, type StreamState, type TranscriptState } from './live-state.js';
import { queuedBatches } from './prompt-queue.js';
import { RETRY_LABEL, retryText, waitingText } from './status-text.js';
import { turnEndItems } from './turn-end.js';
import type { HistoryBrowserState } from './history-browser.js';
import { newHistoryBrowser } from './history-browser.js';
import type { PickerState } from './picker.js';
import { newPicker } from './picker.js';
import { newModelPicker, type ModelPickerState } from './model-picker.js';
import { newRewindPicker, type RewindPickerState } from './rewind-picker.js';
import { Store } from './store.js';
import { cutForModel, LiveToolOutput } from './tool-progress.js';
import { BlockSplitter } from './stream-blocks.js';
import type { ToolItem, TranscriptItem } from './transcript.js';
import { isShellNote } from '../session/shellNote.js';
import { itemId, keyArgument, messagesToItems } from './transcript.js';
import { TranscriptPrinter } from './transcript-printer.js';

/** How long an SDK notice stays under the prompt. */
export const PROVIDER_NOTICE_MS = 30_000;

export class UiStore {
  /** The transcript: what it holds, and how it reaches the terminal. */
  readonly printer: TranscriptPrinter;
  readonly transcript: Store<TranscriptState>;
  readonly live = new Store<LiveState>(emptyLive());
  readonly stream = new Store<StreamState>(emptyStream());
  readonly status: Store<StatusState>;
  readonly approvals = new Store<ApprovalView[]>([]);
  readonly picker = new Store<PickerState | null>(null);
  /** The /model picker, open over the prompt. */
  readonly models = new Store<ModelPickerState | null>(null);
  /** The /rewind picker, open over the prompt. */
  readonly rewind = new Store<RewindPickerState | null>(null);
  /** The /history browser, open over the prompt. */
  readonly history = new Store<HistoryBrowserState | null>(null);
  readonly hint = new Store<Hint>(null);
  /** The last lines of each running tool's output (tool id → lines), refreshed a few times a second. */
  private readonly liveOutput = new LiveToolOutput();
  readonly toolTails = this.liveOutput.tails;
  /** Called when the controller says the program is ending. */
  onExit: () => void = () => {};
  /** tool_use id → name and key argument, from assistant messages, for rows whose tool_start never came. */
  private readonly toolInputs = new Map<string, { name: string; summary: string }>();
  /** The last finished tool row, for Ctrl-O. */
  private lastTool: ToolItem | null = null;
  private expandedToolId: string | null = null;
  private turnShowedInterrupt = false;
  private readonly providerNotices = new Set<string>();
  private splitter = new BlockSplitter();
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  constructor(private readonly controller: UiController, private readonly now: () => number = Date.now) {
    this.printer = new TranscriptPrinter(messagesToItems(controller.initialTranscript()), () => this.status.get().session.id);
    this.transcript = this.printer.state;
    this.status = new Store<StatusState>({ session: controller.session(), usage: controller.contextUsage() });
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
        this.resetStream();
        return this.patchLive({ turn: { startedAt: this.now(), outputTokens: 0 }, retry: null });
      case 'request_start':
        // A retried call starts its reply over; what was printed of the failed one stays, so say so.
        if (ev.attempt > 1 && this.stream.get().committed > 0) {
          this.append({ kind: 'notice', id: itemId(), level: 'warning', text: 'The reply above was cut off; the model starts over' });
        }
        this.resetStream();
        return this.patchLive({ retry: null, waiting: null, writingTools: [] });
      case 'text_delta':
        if (this.live.get().waiting) this.patchLive({ waiting: null });
        return this.onTextDelta(ev.text);
      case 'waiting':
        return this.patchLive({ waiting: waitingText(ev) });
      case 'tool_call_streaming':
        return this.patchLive({ waiting: null, writingTools: [...this.live.get().writingTools, { id: ev.id, name: ev.name }] });
      case 'message':
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
        const item: ToolItem = {
          kind: 'tool',
          id: itemId(),
          toolUseId: ev.id,
          name: ev.name,
          summary: known?.summary ?? '',
          status: ev.status,
          durationMs: ev.durationMs,
          output: ev.output.content,
        };
        // the model got the head and tail only: keep all of it for Ctrl-O
        if (streamed !== undefined && (cutForModel(ev.output.content) || ev.output.spilled)) item.fullOutput = streamed;
        if (ev.status === 'interrupted') this.turnShowedInterrupt = true;
        this.lastTool = item;
        this.toolInputs.delete(ev.id);
        this.append(item);
        return this.patchLive({ running: l.running.filter((t) => t.id !== ev.id) });
      }
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
        return this.onTurnEnd(ev.reason, ev.steps);
      case 'compaction_start': {
        const c: NonNullable<LiveState['compaction']> = { trigger: ev.trigger, tokensBefore: ev.tokensBefore, startedAt: this.now() };
        if (ev.focus !== undefined) c.focus = ev.focus;
        return this.patchLive({ compaction: c });
      }
      case 'compaction_progress': {
        const c = this.live.get().compaction;
        const base = c ?? { trigger: ev.trigger, tokensBefore: 0, startedAt: this.now() };
        return this.patchLive({ compaction: { ...base, stage: ev.stage } });
      }
      case 'compaction_end':
        this.append({ kind: 'compaction', id: itemId(), record: ev.record });
        return this.patchLive({ compaction: null });
      case 'compaction_skipped':
        // Routine skips of automatic compaction (cooldown, breaker) would flood the transcript;
        // the gauge's notice covers them. A skipped manual or reactive compaction is news.
        if (ev.trigger === 'manual' || ev.trigger === 'reactive') {
          this.append({ kind: 'compaction_skipped', id: itemId(), trigger: ev.trigger, reason: ev.reason });
        }
        if (this.live.get().compaction?.trigger === ev.trigger) this.patchLive({ compaction: null });
        return;
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
        if (ev.output.kind === 'picker') return this.picker.set(newPicker(ev.output.sessions));
        if (ev.output.kind === 'models') return this.models.set(newModelPicker(ev.output.models, ev.output.current));
        if (ev.output.kind === 'history') return this.history.set(newHistoryBrowser(ev.output.result));
        if (ev.output.kind === 'rewind') return this.rewind.set(newRewindPicker(ev.output.targets));
        return this.append({ kind: 'command', id: itemId(), command: ev.command, output: ev.output });
      case 'session':
        return this.openSession(ev);
      case 'busy':
        return this.patchLive({ busy: ev.busy });
      case 'permission_mode':
        return this.status.set({ ...this.status.get(), session: { ...this.status.get().session, permissionMode: ev.mode } });
      case 'history_reset':
        return;
      case 'exit':
        return this.onExit();
    }
  }

  private onTextDelta(delta: string): void {
    const s = this.stream.get();
    const text = s.text + delta;
    const safe = this.splitter.feed(text);
    let committed = s.committed;
    if (safe > committed) {
      this.append({ kind: 'assistant', id: itemId(), text: text.slice(committed, safe), interrupted: false, continued: committed > 0 });
      committed = safe;
    }
    this.stream.set({ text, committed, chars: s.chars + delta.length });
  }

  private resetStream(chars = 0): void {
    this.splitter = new BlockSplitter();
    const s = this.stream.get();
    if (s.text !== '' || s.committed !== 0 || s.chars !== chars) this.stream.set({ ...emptyStream(), chars });
  }

  private onMessage(m: Message): void {
    if (m.role === 'assistant') {
      for (const use of toolUses(m)) this.toolInputs.set(use.id, { name: use.name, summary: keyArgument(use.input) });
      const full = textOf(m);
      const s = this.stream.get();
      // Blocks already printed while streaming are not printed again.
      const printed = s.text.slice(0, s.committed);
      const continued = s.committed > 0 && full.startsWith(printed);
      const rest = continued ? full.slice(s.committed) : full;
      this.resetStream(s.chars);
      if (m.interrupted) this.turnShowedInterrupt = true;
      if (rest.trim() !== '' || m.interrupted) this.append({ kind: 'assistant', id: itemId(), text: rest, interrupted: m.interrupted === true, continued });
      return this.patchLive({ writingTools: [] });
    }
    if (isToolResultMessage(m) || m.kind === 'meta' || isShellNote(m)) return;
    this.append(...messagesToItems([m]));
  }

  private onTurnEnd(reason: string, steps: number): void {
    const { items, showedInterrupt } = turnEndItems({ reason, steps, stream: this.stream.get(), running: this.live.get().running, now: this.now(), showedInterrupt: this.turnShowedInterrupt });
    this.turnShowedInterrupt = showedInterrupt;
    this.append(...items);
    this.resetStream();
    // The session gave up on any approval still waiting: its turn is over.
    if (this.approvals.get().length > 0) this.approvals.set([]);
    this.patchLive({ turn: null, running: [], writingTools: [], retry: null, waiting: null });
    this.liveOutput.clear();
  }

  private openSession(ev: Extract<UiEvent, { type: 'session' }>): void {
    this.toolInputs.clear();
    this.lastTool = null;
    this.expandedToolId = null;
    this.picker.set(null);
    this.models.set(null);
    this.rewind.set(null);
    this.history.set(null);
    this.approvals.set([]);
    this.resetStream();
    this.live.set({ ...emptyLive(), busy: this.live.get().busy });
    this.liveOutput.clear();
    this.status.set({ session: ev.session, usage: this.controller.contextUsage() });
    this.printer.openSession(messagesToItems(ev.transcript, ev.compactions));
  }

  /** The controller's view of the session, or the current one when nothing in it changed. */
  private freshSessionView(): SessionView {
    const now = this.controller.session();
    const cur = this.status.get().session;
    return now.id === cur.id && now.model === cur.model && now.provider === cur.provider && now.title === cur.title && now.cwd === cur.cwd ? cur : now;
  }

  /** Ctrl-O: prints the full output of the last finished tool below the transcript. */
  expandLastTool(): boolean {
    const t = this.lastTool;
    if (!t) {
      this.flashHint('No tool output to expand yet', 'info');
      return false;
    }
    if (this.expandedToolId === t.id) {
      this.flashHint('That output is already shown in full above', 'info');
      return false;
    }
    this.expandedToolId = t.id;
    this.append({ kind: 'tool_output', id: itemId(), name: t.name, summary: t.summary, output: t.fullOutput ?? t.output });
    return true;
  }

  respondToApproval(decision: ApprovalDecision): void {
    const [head, ...rest] = this.approvals.get();
    if (!head) return;
    this.approvals.set(rest);
    // the tool's clock starts now: the wait for the answer is not its running time
    const l = this.live.get();
    const id = head.request.toolUseId;
    if (decision.kind !== 'deny' && l.running.some((t) => t.id === id)) {
      this.patchLive({ running: l.running.map((t) => (t.id === id ? { ...t, startedAt: this.now() } : t)) });
    }
    head.respond(decision);
  }

  updateApproval(view: ApprovalView): void {
    const [, ...rest] = this.approvals.get();
    this.approvals.set([view, ...rest]);
  }

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
