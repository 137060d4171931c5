import type { Message, Usage } from '../llm/messages.js';
import type { ProviderErrorKind } from '../llm/errors.js';
import type { StopReason } from '../llm/provider.js';
import type { ToolOutput } from '../tools/types.js';

/** stopped: the person denied a tool call and chose to stop the turn there; blocked: a UserPromptSubmit hook refused the prompt (no turn ran). */
export type TurnEndReason = 'end_turn' | 'max_steps' | 'aborted' | 'error' | 'refusal' | 'max_tokens' | 'stopped' | 'blocked';

/** Events the agent loop emits; the TUI and print mode render them. */
export type AgentEvent =
  | { type: 'turn_start'; turnId: string }
  /** A model call begins (step counts calls in this turn, attempt counts retries of this call). */
  | { type: 'request_start'; step: number; attempt: number }
  | { type: 'text_delta'; text: string }
  /** The model is thinking (any provider's thinking or reasoning summary); text may be empty when only its start is known. */
  | { type: 'thinking_delta'; text: string }
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
