// The UI's handlers for a turn and its stream: the turn's start and end, each model call, the
// streamed text and thinking, the messages, usage, retries and errors.
import type { Message } from '../llm/messages.js';
import { isToolResultMessage, textOf, toolUses } from '../llm/messages.js';
import type { HandlerTable, UiHost } from './events-host.js';
import { RETRY_LABEL, retryText, waitingText } from './status-text.js';
import { itemId, keyArgument, messagesToItems, noReplyItem, searchItems } from './transcript.js';
import { turnEndItems } from './turn-end.js';

export type TurnEventType =
  | 'turn_start'
  | 'request_start'
  | 'thinking_delta'
  | 'text_delta'
  | 'waiting'
  | 'tool_call_streaming'
  | 'message'
  | 'usage'
  | 'retry'
  | 'continuation'
  | 'error'
  | 'turn_end';

export const turnHandlers: HandlerTable<TurnEventType> = {
  turn_start: (h) => {
    h.turnShowedInterrupt = false;
    h.streaming.reset();
    h.patchLive({ turn: { startedAt: h.now(), outputTokens: 0 }, retry: null });
  },
  request_start: (h, ev) => {
    // A retried call starts its reply over; what was shown of the failed one stays (its unprinted end too), so say so.
    if (ev.attempt > 1) {
      h.endThinking();
      const s = h.streaming.state.get();
      const rest = s.text.slice(s.committed);
      if (rest.trim() !== '') h.append({ kind: 'assistant', id: itemId(), text: rest, interrupted: false, continued: s.committed > 0 });
      if (s.text.trim() !== '') h.append({ kind: 'notice', id: itemId(), level: 'warning', text: 'The reply above was cut off; the model starts over' });
    }
    h.streaming.reset();
    h.patchLive({ retry: null, waiting: null, writingTools: [] });
  },
  thinking_delta: (h, ev) => {
    const t = h.live.get().thinking;
    h.patchLive({ waiting: null, thinking: { startedAt: t?.startedAt ?? h.now(), text: (t?.text ?? '') + ev.text } });
  },
  text_delta: (h, ev) => {
    h.endThinking();
    if (h.live.get().waiting) h.patchLive({ waiting: null });
    h.streaming.feed(ev.text);
  },
  waiting: (h, ev) => h.patchLive({ waiting: waitingText(ev) }),
  tool_call_streaming: (h, ev) => {
    h.endThinking();
    h.patchLive({ waiting: null, writingTools: [...h.live.get().writingTools, { id: ev.id, name: ev.name }] });
  },
  message: (h, ev) => {
    if (ev.message.role === 'assistant') h.endThinking();
    onMessage(h, ev.message);
    // a tool's result joined the log (a TodoWrite's sets the task list)
    if (ev.message.blocks.some((b) => b.type === 'tool_result')) h.tasks.refresh();
  },
  usage: (h, ev) => {
    const turn = h.live.get().turn;
    const stream = h.streaming.state;
    if (stream.get().chars > 0) stream.set({ ...stream.get(), chars: 0 });
    if (turn) h.patchLive({ turn: { ...turn, outputTokens: turn.outputTokens + ev.usage.outputTokens } });
  },
  retry: (h, ev) => {
    h.append({ kind: 'retry', id: itemId(), text: retryText(ev) });
    h.patchLive({ retry: { text: `${RETRY_LABEL[ev.kind] ?? 'Request failed'} — retrying`, until: h.now() + ev.delayMs } });
  },
  continuation: (h, ev) =>
    h.append({ kind: 'meta', id: itemId(), text: `The reply hit the output limit — asking the model to continue (${ev.count}/${ev.max})` }),
  error: (h, ev) => h.append({ kind: 'error', id: itemId(), text: ev.message }),
  turn_end: (h, ev) => {
    h.endThinking();
    onTurnEnd(h, ev.reason, ev.steps);
  },
};

function onMessage(h: UiHost, m: Message): void {
  if (m.role === 'assistant') {
    for (const use of toolUses(m)) h.toolInputs.set(use.id, { name: use.name, summary: keyArgument(use.input) });
    const { rest, continued } = h.streaming.settle(textOf(m));
    if (m.interrupted) h.turnShowedInterrupt = true;
    const none = continued ? null : noReplyItem(m);
    if (none) h.append(none);
    else if (rest.trim() !== '' || m.interrupted) h.append({ kind: 'assistant', id: itemId(), text: rest, interrupted: m.interrupted === true, continued });
    h.append(...searchItems(m, itemId));
    return h.patchLive({ writingTools: [] });
  }
  if (isToolResultMessage(m) || m.kind === 'meta' || m.origin?.kind === 'shell') return;
  h.append(...messagesToItems([m]));
}

/** The turn's End closes what it left open: the unfinished reply, the tool rows and sub-agents whose End never came, a waiting approval. */
function onTurnEnd(h: UiHost, reason: string, steps: number): void {
  const { items, showedInterrupt } = turnEndItems({
    reason,
    steps,
    stream: h.streaming.state.get(),
    running: h.live.get().running,
    now: h.now(),
    showedInterrupt: h.turnShowedInterrupt,
  });
  h.turnShowedInterrupt = showedInterrupt;
  h.append(...items);
  h.streaming.reset();
  if (h.approvals.get().length > 0) h.approvals.set([]); // the session gave up on any approval still waiting
  h.patchLive({ turn: null, running: [], writingTools: [], retry: null, waiting: null });
  h.liveOutput.clear();
  h.tasks.turnEnded();
}
