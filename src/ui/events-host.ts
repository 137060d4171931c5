// What the UI's event handlers (events-*.ts) reach of the UiStore, and the handler table's
// type: one handler per event type of the one vocabulary (src/protocol/events.ts), so that an
// event type without a handler is a compile error where the table is assembled (event-handlers.ts).
import type { Event, EventOf, EventType } from '../protocol/events.js';
import type { ApprovalView } from './approval.js';
import type { UiController } from './controller.js';
import type { ToolExpander } from './expand-output.js';
import type { HistoryBrowserState } from './history-browser.js';
import type { Hint, LiveState, StatusState } from './live-state.js';
import type { ModelPickerState } from './model-picker.js';
import type { PickerState } from './picker.js';
import type { RewindPickerState } from './rewind-picker.js';
import type { Store } from './store.js';
import type { StreamView } from './stream-view.js';
import type { TaskListState } from './task-list-state.js';
import type { TasksPanelStore } from './tasks-panel.js';
import type { LiveToolOutput } from './tool-progress.js';
import type { ThinkingItem, TranscriptItem } from './transcript.js';
import type { TranscriptPrinter } from './transcript-printer.js';

export interface UiHost {
  readonly controller: UiController;
  readonly now: () => number;
  readonly printer: TranscriptPrinter;
  readonly live: Store<LiveState>;
  readonly streaming: StreamView;
  readonly status: Store<StatusState>;
  readonly approvals: Store<ApprovalView[]>;
  readonly picker: Store<PickerState | null>;
  readonly models: Store<ModelPickerState | null>;
  readonly rewind: Store<RewindPickerState | null>;
  readonly history: Store<HistoryBrowserState | null>;
  readonly taskPanel: TasksPanelStore;
  readonly tasks: TaskListState;
  readonly liveOutput: LiveToolOutput;
  /** tool_use id → name and key argument, from assistant messages, for rows whose tool_start never came. */
  readonly toolInputs: Map<string, { name: string; summary: string }>;
  readonly expander: ToolExpander;
  readonly providerNotices: Set<string>;
  lastThinking: ThinkingItem | null;
  /** The last compaction receipt with a report (Ctrl+O prints the report). */
  lastReport: Extract<TranscriptItem, { kind: 'compaction' }> | null;
  /** Whether this turn already showed an interruption (an interrupted reply or tool row). */
  turnShowedInterrupt: boolean;
  append(...items: TranscriptItem[]): void;
  patchLive(patch: Partial<LiveState>): void;
  /** Thinking ends where the reply (text or a tool call) begins. */
  endThinking(): void;
  flashHint(text: string, level: NonNullable<Hint>['level'], ms?: number): void;
  onExit: () => void;
  onPromptReturned: (text: string) => void;
}

/** What the UI does with one event. */
export type Handler<E> = (host: UiHost, ev: E) => void;

/** Handlers for some event types (one family, in its events-*.ts file). */
export type HandlerTable<K extends EventType> = { [T in K]: Handler<EventOf<T>> };

/** Handlers for every event type: a type left out fails to compile. */
export type EventHandlers = HandlerTable<EventType>;

/** Runs the handler of the event's type. */
export function dispatch(table: EventHandlers, host: UiHost, ev: Event): void {
  // the table maps each type to the handler of that type's event, which TypeScript cannot
  // correlate through the index: the cast says only that
  (table[ev.type] as Handler<Event>)(host, ev);
}
