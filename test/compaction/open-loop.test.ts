import { beforeAll, describe, expect, it } from 'vitest';
import { CompactionEngine } from '../../src/compaction/engine.js';
import { openThinkingLoop } from '../../src/compaction/openLoop.js';
import { loadTokenizer, TokenCounter } from '../../src/compaction/tokens.js';
import type { Message } from '../../src/llm/messages.js';
import { textOf } from '../../src/llm/messages.js';
import { historyProblems } from '../../src/llm/validate.js';
import { assistant, cfg, ctx, historyAfter, LIMITS, ScriptedProvider, step, SUMMARY, tokensText, user } from './helpers.js';

// A tool loop in progress whose replies think: no change may reach into it (the API refuses the
// loop without its thinking, and thinking is bound to its prefix). Micro clearing waits for the
// loop's end; a compaction that cannot wait closes the loop into the checkpoint.

let counter: TokenCounter;
beforeAll(async () => {
  await loadTokenizer();
  counter = new TokenCounter();
});

const engine = (p: ScriptedProvider): CompactionEngine =>
  new CompactionEngine({
    config: cfg(),
    limits: LIMITS,
    model: 'test-model',
    summarizer: { provider: p, model: 'sum-model', limits: { contextWindow: 400_000, maxOutputTokens: 32_000 } },
    counter,
    compactableTools: ['Bash'],
  });

/** One long turn of Bash steps, unfinished (it ends with tool results); `think` puts a thinking block first in each reply. */
function loop(steps: number, outputTokens: number, think: boolean): Message[] {
  const h: Message[] = [user('run everything')];
  for (let i = 0; i < steps; i++) {
    const [call, result] = step('Bash', { command: `job ${i}` }, tokensText(outputTokens, `o${i}`));
    if (think) call.blocks.unshift({ type: 'thinking', thinking: `next: job ${i}`, signature: `sig${i}` });
    h.push(call, result);
  }
  return h;
}

describe('a tool loop in progress that thinks', () => {
  it('is found from its turn start, and only while it is open and thinks', () => {
    const h = loop(3, 10, true);
    expect(openThinkingLoop(h)).toBe(1);
    expect(openThinkingLoop(loop(3, 10, false))).toBeUndefined();
    expect(openThinkingLoop([...h, assistant('done')])).toBeUndefined();
    // a reply the provider paused with its search open: the turn goes on from it, so the loop is open
    // (mutation: a rule that knows only tool results as a loop's end fails this)
    const paused = assistant('Let me look that up.');
    paused.blocks.unshift({ type: 'thinking', thinking: 'search', signature: 'sig' });
    const call = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } };
    paused.blocks.push({ type: 'web_search', provider: 'anthropic', id: 'srvtoolu_1', query: 'q', results: [], wire: [call] });
    expect(openThinkingLoop([user('what is new?'), paused])).toBe(1);
  });

  it('is never cleared by micro: the compaction closes it into the checkpoint, calls and results as text', async () => {
    const p = new ScriptedProvider(() => ({ text: SUMMARY }));
    const e = engine(p);
    const h = loop(40, 2_000, true);
    const outcomes = await e.beforeCall(ctx(h), new AbortController().signal, () => {});
    expect(outcomes.map((o) => o.record.trigger)).toEqual(['auto']);
    expect(outcomes[0]!.commit!.cleared).toEqual([]);
    const messages = historyAfter(h, outcomes[0]!);
    // nothing of the loop is kept after the checkpoint: no reply needs thinking it can no longer carry
    expect(messages.some((m) => m.role === 'assistant')).toBe(false);
    expect(messages[0]!.kind).toBe('checkpoint');
    const text = textOf(messages[0]!);
    expect(text).toContain('Tool loop in progress');
    expect(text).toContain('Call Bash {"command":"job 39"}');
    expect(historyProblems(messages)).toEqual([]);
  });

  it('without thinking, the same loop is cleared by micro as before', async () => {
    const e = engine(new ScriptedProvider(() => ({ text: SUMMARY })));
    const outcomes = await e.beforeCall(ctx(loop(40, 2_000, false)), new AbortController().signal, () => {});
    expect(outcomes.map((o) => o.record.trigger)).toEqual(['micro']);
  });
});
