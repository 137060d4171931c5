import { addUsage, emptyUsage, newId, textOf, toolUses, type Message } from '../llm/messages.js';
import { sleep } from '../llm/retry.js';
import { toolSpec } from '../tools/types.js';
import { errorText } from './errorText.js';
import type { AgentEvent, TurnEndReason } from '../protocol/events.js';
import type { LoopHost, LoopOptions, TurnResult } from './host.js';
import { callModel } from './modelCall.js';
import { runTools } from './runTools.js';
import { promptText } from '../promptText.js';
import CONTINUE from './continue.md';

export type { Authorization, CallPatience, GateCall, LoopHost, LoopOptions, PermissionGate, TurnRequest, TurnResult } from './host.js';

/** What the agent says when a reply stopped at the output limit (continue.md). */
export const CONTINUE_PROMPT = promptText(CONTINUE);

/** Continuations of a turn the provider paused (pause_turn) before the turn ends with an error; each is a step too. */
export const MAX_PAUSES = 8;

/**
 * Runs one turn: the user's message, then model calls and tool runs until the model ends
 * its turn, the step budget runs out, an error stops it or the signal aborts it.
 * Every completed message goes through host.append as soon as it is complete, so a crash
 * loses at most the message in flight.
 */
export async function runTurn(
  host: LoopHost,
  opts: LoopOptions,
  userMessage: Message,
  signal: AbortSignal,
  emit: (ev: AgentEvent) => void,
): Promise<TurnResult> {
  const turnId = newId('turn');
  let usage = emptyUsage();
  let text = '';
  /** The last step was cut at max_tokens: the next one goes on mid-sentence, so its text joins without a break. */
  let continuing = false;
  /** Each step's text is a paragraph of its own in the turn's text (steps used to run together: "Let me check.Done."). */
  const addText = (t: string): void => {
    if (t === '') return;
    text = text === '' || continuing ? text + t : `${text}\n\n${t}`;
  };
  let steps = 0;
  let continuations = 0;
  let stopContinuations = 0;
  let pauses = 0;
  const wait = opts.patience.sleep ?? sleep;
  const toolsByName = new Map(opts.tools.map((t) => [t.name, t]));
  const specs = opts.tools.map(toolSpec);

  const end = (reason: TurnEndReason): TurnResult => {
    emit({ type: 'turn_end', reason, steps, usage, text });
    return { reason, steps, usage, text };
  };
  const appendMessage = (msg: Message): Message => {
    const stored = host.append(msg);
    emit({ type: 'message', message: stored });
    return stored;
  };

  emit({ type: 'turn_start', turnId });
  appendMessage(userMessage);

  while (steps < opts.maxSteps) {
    if (signal.aborted) return end('aborted');
    steps++;
    try {
      await host.beforeModelCall(signal);
    } catch (e) {
      if (signal.aborted) return end('aborted');
      emit({ type: 'error', kind: 'internal', message: `compaction before the model call failed: ${errorText(e)}` });
      return end('error');
    }

    const call = await callModel(host, opts, specs, steps, signal, emit, wait);
    if (call.kind === 'aborted' || call.kind === 'failed') {
      // what streamed before the end is kept, marked interrupted (it used to be dropped on a failure, without a trace)
      if (call.partialText.trim()) {
        const partial: Message = {
          id: newId(),
          role: 'assistant',
          blocks: [{ type: 'text', text: call.partialText }],
          kind: 'normal',
          createdAt: Date.now(),
          model: opts.model,
          interrupted: true,
        };
        addText(textOf(appendMessage(partial)));
      }
      if (call.kind === 'aborted') return end('aborted');
      emit({ type: 'error', kind: call.error.kind, message: call.error.message });
      return end('error');
    }

    const done = call.done;
    usage = addUsage(usage, done.usage);
    emit({ type: 'usage', usage: done.usage, model: done.model, stopReason: done.stopReason });

    const blocks = done.blocks.filter((b) => !(b.type === 'text' && b.text === ''));
    if (blocks.length > 0) {
      const assistant: Message = {
        id: newId(),
        role: 'assistant',
        blocks,
        kind: 'normal',
        createdAt: Date.now(),
        usage: done.usage,
        model: done.model,
        // what its thinking is bound to: sent back only while this prefix is unchanged (llm/thinkingReplay.ts)
        ...(done.prefixHash !== undefined && blocks.some((b) => b.type === 'thinking' || b.type === 'redacted_thinking')
          ? { prefixHash: done.prefixHash }
          : {}),
      };
      const stored = appendMessage(assistant);
      addText(textOf(stored));
      continuing = false;

      const uses = toolUses(stored);
      if (uses.length > 0) {
        const { results, stopped } = await runTools(uses, toolsByName, opts, signal, emit);
        // what happened meanwhile (a background command ended) goes with the results to the next request
        const notices = (opts.notices?.() ?? []).map((text) => ({ type: 'text' as const, text }));
        appendMessage({ id: newId(), role: 'user', blocks: [...results, ...notices], kind: 'normal', createdAt: Date.now() });
        if (signal.aborted) return end('aborted');
        if (stopped) return end('stopped');
        continue;
      }
    }

    if (done.stopReason === 'pause_turn') {
      // the provider paused a long turn of server-side tools (a web search): the reply, stored as
      // it came, ends the history and the next call continues the same turn; no text or user
      // message goes in between (llm/anthropic.ts sends it back as-is)
      if (pauses >= MAX_PAUSES) {
        emit({ type: 'error', kind: 'internal', message: `the provider paused this turn ${MAX_PAUSES} times; send another message to let it go on` });
        return end('error');
      }
      pauses++;
      continue;
    }
    if (done.stopReason === 'max_tokens' || done.stopReason === 'context_window') {
      if (continuations >= opts.maxOutputRecoveries || blocks.length === 0) return end('max_tokens');
      continuations++;
      continuing = true;
      emit({ type: 'continuation', count: continuations, max: opts.maxOutputRecoveries });
      appendMessage({ id: newId(), role: 'user', blocks: [{ type: 'text', text: CONTINUE_PROMPT }], kind: 'meta', createdAt: Date.now() });
      continue;
    }
    if (done.stopReason !== 'refusal' && opts.hooks) {
      const goOn = await opts.hooks.onStop(text, stopContinuations, signal);
      if (signal.aborted) return end('aborted');
      if (goOn !== undefined) {
        stopContinuations++;
        appendMessage({
          id: newId(),
          role: 'user',
          blocks: [{ type: 'text', text: `[A Stop hook asks you to go on]\n${goOn}` }],
          kind: 'meta',
          createdAt: Date.now(),
        });
        continue;
      }
    }
    return end(done.stopReason === 'refusal' ? 'refusal' : 'end_turn');
  }
  emit({
    type: 'error',
    kind: 'internal',
    message: `stopped after ${opts.maxSteps} model calls in one turn (maxSteps); send another message to let it go on`,
  });
  return end('max_steps');
}
