// The one event vocabulary, from the session to every front end (the TUI, print mode's
// `--output-format events` and stream-json, the ACP editor agent), as Codex's protocol crate
// keeps one EventMsg. One union, `Event`, discriminated by `type`; its parts are named by who
// emits them: the agent loop (AgentEvent), compaction (CompactionEvent), the session
// (SessionEvent: all of those plus its own), and the TUI's controller (ControllerEvent).
//
// Long work has a Begin and an End, and a front end that saw a Begin closes it itself if the End
// never comes (the turn ended, the session changed):
//   turn_start … turn_end                 one turn of the agent loop
//   tool_start … tool_end                 a tool call (tool_progress between: its output so far);
//                                         a sub-agent is its Task call: child events between
//                                         say where the child stands
//   compaction_start … compaction_end     a compaction (or compaction_skipped: none was done)
//   activity{done:false} … {done:true}    a hook or other wait besides the model, by label
//   busy{busy:true} … {busy:false}        the session works (a turn, a command, a compaction)
// The wire names are a contract (`-p --output-format events` prints SessionEvents as they are).
import type { ChildState } from '../agents/childState.js';
import type { PermissionMode } from '../config/schema.js';
import type { CompactionRecord, CompactionTrigger } from '../history/compaction.js';
import type { ProviderErrorKind } from '../llm/errors.js';
import type { Message, Usage } from '../llm/messages.js';
import type { StopReason } from '../llm/provider.js';
import type { ApprovalDecision, ApprovalRequest } from '../tools/permissions.js';
import type { ToolOutput } from '../tools/types.js';
import type { CommandOutput, ContextUsageView, GoalView, SessionView } from './views.js';

/** stopped: the person denied a tool call and chose to stop the turn there; blocked: a UserPromptSubmit hook refused the prompt (no turn ran). */
export type TurnEndReason = 'end_turn' | 'max_steps' | 'aborted' | 'error' | 'refusal' | 'max_tokens' | 'stopped' | 'blocked';

/** What the agent loop emits: one turn, its model calls, the stream and the tool calls. */
export type AgentEvent =
  | { type: 'turn_start'; turnId: string }
  /** A model call begins (step counts calls in this turn, attempt counts retries of this call). */
  | { type: 'request_start'; step: number; attempt: number }
  | { type: 'text_delta'; text: string }
  /**
   * The model is thinking (any provider's thinking or reasoning summary); text may be empty when
   * only its start is known. `signature`: the thinking block just ended with this signature
   * (Anthropic), for streams that pass it on (--include-partial-messages' signature_delta).
   */
  | { type: 'thinking_delta'; text: string; signature?: string }
  /** The model started writing a tool call (input still streaming). */
  | { type: 'tool_call_streaming'; id: string; name: string }
  /** A message became part of the history (and is persisted): user, assistant, tool results, meta. */
  | { type: 'message'; message: Message }
  | { type: 'tool_start'; id: string; name: string; input: unknown; summary: string }
  /** Output of a running tool as it is produced (Bash); the tool_end output is what the model gets. */
  | { type: 'tool_progress'; id: string; text: string }
  | { type: 'tool_end'; id: string; name: string; output: ToolOutput; durationMs: number; status: 'done' | 'error' | 'denied' | 'interrupted' }
  | { type: 'usage'; usage: Usage; model: string; stopReason: StopReason }
  | { type: 'retry'; attempt: number; maxAttempts: number; delayMs: number; kind: ProviderErrorKind; message: string }
  /** Nothing has come back for `seconds` (stalled: the reply had begun and went silent; cannotConnect: the last attempt could not reach the provider, why). */
  | { type: 'waiting'; seconds: number; attempt: number; stalled: boolean; cannotConnect?: string }
  /** The reply hit max_tokens and the agent asked the model to go on. */
  | { type: 'continuation'; count: number; max: number }
  | { type: 'error'; kind: ProviderErrorKind | 'tool' | 'internal'; message: string }
  | { type: 'turn_end'; reason: TurnEndReason; steps: number; usage: Usage; text: string };

/** What a compaction reports while it runs: start, its stages, and its record (or why none was made). */
export type CompactionEvent =
  /** `background`: the summary is written while the session goes on (compaction.background); the prompt stays usable. */
  | { type: 'compaction_start'; trigger: CompactionTrigger; focus?: string; tokensBefore: number; background?: true }
  | { type: 'compaction_progress'; trigger: CompactionTrigger; stage: string }
  | { type: 'compaction_end'; record: CompactionRecord }
  | { type: 'compaction_skipped'; trigger: CompactionTrigger; reason: string };

/** What a live session tells its listeners (the TUI's controller, print mode, ACP): the loop's and compaction's events, and its own. */
export type SessionEvent =
  | AgentEvent
  | CompactionEvent
  | { type: 'context'; usage: ContextUsageView }
  | { type: 'notice'; level: 'info' | 'warning' | 'error'; text: string }
  /** The permission mode changed (Shift+Tab, "accept edits for the session"). */
  | { type: 'permission_mode'; mode: PermissionMode }
  /** The visible history was replaced (a /rewind, an /uncompact): redraw it from messages(). */
  | { type: 'history_reset' }
  /** A sub-agent (a Task call's child session) changed: queued, running, its tools and tokens, how it ended. */
  | { type: 'child'; state: ChildState }
  /** A prompt was not sent (larger than the window allows): nothing was stored; `text` goes back to the person's input. */
  | { type: 'prompt_refused'; text: string; message: string }
  /** A prompt got no reply (interrupted before it, or the provider failed): it left the conversation; `text` goes back to the person's input. */
  | { type: 'prompt_returned'; text: string; message: string }
  /** Something the person waits on besides the model (a hook) began, or ended (done): the status row says what runs. */
  | { type: 'activity'; label: string; done: boolean }
  /** How many messages the database refused so far (0: all saved again), and why. */
  | { type: 'unsaved'; count: number; error?: string };

/** What the TUI's controller adds to the session's events (print mode and ACP never see these). */
export type ControllerEvent =
  /** An SDK's notice (a deprecated model): shown once, dimmed, under the prompt, not in the transcript. */
  | { type: 'provider_notice'; text: string }
  | { type: 'approval'; request: ApprovalRequest; respond: (d: ApprovalDecision) => void }
  | { type: 'command_output'; command: string; output: CommandOutput }
  /** A new or resumed session: the app resets its transcript to these messages (history_reset is the controller's to turn into this). */
  | { type: 'session'; session: SessionView; transcript: Message[]; compactions: CompactionRecord[] }
  | { type: 'busy'; busy: boolean }
  /** The MCP servers' state changed: the footer's word on them ('' when there are none). */
  | { type: 'mcp_status'; text: string }
  /** The statusLine command printed a new first line ('' when none). */
  | { type: 'status_command'; line: string }
  /** The number of running background commands changed: the footer's word on them ('' when none run). */
  | { type: 'background_status'; text: string }
  /** The session's goal changed (set, a turn counted, a check ran, paused, ended, cleared: null). */
  | { type: 'goal'; goal: GoalView | null }
  | { type: 'exit' };

/** The one union: every event any front end handles. */
export type Event = SessionEvent | ControllerEvent;

/** Every event's `type`. */
export type EventType = Event['type'];

/** The event of one type. */
export type EventOf<K extends EventType> = Extract<Event, { type: K }>;
