import { describe, expect, it, vi } from 'vitest';
import type { AgentEvent } from '../../src/protocol/events.js';
import { CONTINUE_PROMPT, runTurn, type LoopHost, type LoopOptions, type PermissionGate } from '../../src/agent/loop.js';
import { ProviderError } from '../../src/llm/errors.js';
import { emptyUsage, userMessage, type Block, type Message } from '../../src/llm/messages.js';
import type { ModelRequest, Provider, StopReason, StreamEvent } from '../../src/llm/provider.js';
import { historyProblems } from '../../src/llm/validate.js';
import type { Tool } from '../../src/tools/types.js';

// The loop is tested against our own neutral Provider interface (the SDKs are exercised
// end to end against the fake server elsewhere).
type Reply = { blocks: Block[]; stop?: StopReason; cutAfterDeltas?: number } | ProviderError;
type Step = Reply | ((req: ModelRequest) => Reply);

class ScriptedProvider implements Provider {
  readonly name = 'anthropic' as const;
  requests: ModelRequest[] = [];
  constructor(private steps: Step[]) {}
  async *stream(req: ModelRequest): AsyncIterable<StreamEvent> {
    this.requests.push({ ...req, messages: [...req.messages] });
    const next = this.steps.shift();
    const step = typeof next === 'function' ? next(req) : next;
    if (!step) throw new Error('script exhausted');
    if (step instanceof ProviderError) throw step;
    let deltas = 0;
    for (const b of step.blocks) {
      if (b.type === 'text') {
        for (const piece of b.text.match(/.{1,4}/gs) ?? []) {
          if (step.cutAfterDeltas !== undefined && deltas >= step.cutAfterDeltas) {
            throw new ProviderError({ kind: 'stream_cut', provider: 'anthropic', message: 'socket hang up' });
          }
          deltas++;
          await Promise.resolve();
          if (req.signal?.aborted) throw new ProviderError({ kind: 'aborted', provider: 'anthropic', message: 'aborted' });
          yield { type: 'text_delta', text: piece };
        }
      } else if (b.type === 'tool_use') {
        yield { type: 'tool_use_start', id: b.id, name: b.name };
      }
    }
    const hasTool = step.blocks.some((b) => b.type === 'tool_use');
    yield {
      type: 'done',
      blocks: step.blocks,
      stopReason: step.stop ?? (hasTool ? 'tool_use' : 'end_turn'),
      usage: { ...emptyUsage(), inputTokens: 10, outputTokens: 5 },
      model: req.model,
    };
  }
}

class MemoryHost implements LoopHost {
  messages: Message[] = [];
  overflowCalls = 0;
  compactOnOverflow = true;
  history(): readonly Message[] {
    return this.messages;
  }
  append(msg: Message): Message {
    this.messages.push(msg);
    return msg;
  }
  systemPrompt(): string {
    return 'system';
  }
  maxOutput = 1000;
  maxOutputTokens(): number {
    return this.maxOutput;
  }
  async beforeModelCall(): Promise<void> {}
  overflowNotes = 0;
  noteOverflow(): void {
    this.overflowNotes++;
  }
  async recoverFromOverflow(): Promise<boolean> {
    this.overflowCalls++;
    return this.compactOnOverflow;
  }
  afterResponse(): void {}
}

const echoTool = (name: string, readOnly: boolean, log: string[], delayMs = 5): Tool<{ v: string }> => ({
  name,
  description: `${name} tool.`,
  inputSchema: { type: 'object', properties: { v: { type: 'string' } } },
  kind: readOnly ? 'read' : 'execute',
  parse: (input) => {
    const v = (input as { v?: unknown }).v;
    if (typeof v !== 'string') throw new Error('v must be a string');
    return { v };
  },
  summarize: (i) => i.v,
  run: async (i, ctx) => {
    log.push(`start ${name} ${i.v}`);
    await new Promise((r) => setTimeout(r, delayMs));
    log.push(`end ${name} ${i.v}`);
    if (ctx.signal.aborted) return { content: 'stopped', isError: true };
    return { content: `${name}:${i.v}`, isError: false };
  },
});

const allowAll: PermissionGate = { authorize: async () => ({ ok: true }) };

function options(provider: Provider, extra: Partial<LoopOptions> = {}): LoopOptions {
  return {
    provider,
    model: 'claude-test',
    tools: [],
    gate: allowAll,
    maxSteps: 10,
    patience: { retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 }, sleep: async () => {} },
    maxOutputRecoveries: 3,
    cwd: '/tmp',
    request: {},
    ...extra,
  };
}

const text = (t: string): Block => ({ type: 'text', text: t });
const use = (id: string, name: string, v: string): Block => ({ type: 'tool_use', id, name, input: { v } });

async function run(provider: Provider, host: MemoryHost, extra: Partial<LoopOptions> = {}, signal = new AbortController().signal) {
  const events: AgentEvent[] = [];
  const result = await runTurn(host, options(provider, extra), userMessage('hello'), signal, (e) => events.push(e));
  return { result, events };
}

describe('agent loop', () => {
  it('streams a text reply and ends the turn', async () => {
    const host = new MemoryHost();
    const { result, events } = await run(new ScriptedProvider([{ blocks: [text('Hi there, friend')] }]), host);
    expect(result.reason).toBe('end_turn');
    expect(result.text).toBe('Hi there, friend');
    expect(
      events
        .filter((e) => e.type === 'text_delta')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe('Hi there, friend');
    expect(host.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(events.at(-1)).toMatchObject({ type: 'turn_end', reason: 'end_turn', steps: 1 });
  });

  it('runs tools, feeds results back in call order, and keeps the history valid', async () => {
    const log: string[] = [];
    const host = new MemoryHost();
    const provider = new ScriptedProvider([
      { blocks: [text('Looking.'), use('t1', 'Read', 'a'), use('t2', 'Read', 'b'), use('t3', 'Run', 'c')] },
      { blocks: [text('Done.')] },
    ]);
    const { result } = await run(provider, host, { tools: [echoTool('Read', true, log, 20), echoTool('Run', false, log)] });
    expect(result.reason).toBe('end_turn');
    expect(historyProblems(host.messages)).toEqual([]);
    const results = host.messages[2]!.blocks;
    expect(results.map((b) => (b.type === 'tool_result' ? [b.toolUseId, b.content] : null))).toEqual([
      ['t1', 'Read:a'],
      ['t2', 'Read:b'],
      ['t3', 'Run:c'],
    ]);
    // the two read-only calls overlapped; the Bash-like call ran after both
    expect(log.slice(0, 2)).toEqual(['start Read a', 'start Read b']);
    expect(log.indexOf('start Run c')).toBeGreaterThan(log.indexOf('end Read b'));
    // the second request carried the tool results
    expect(provider.requests[1]!.messages).toHaveLength(3);
  });

  it('"deny and stop" ends the turn after the results are stored: every call gets a result, the model is not called again', async () => {
    const log: string[] = [];
    const host = new MemoryHost();
    const provider = new ScriptedProvider([{ blocks: [use('t1', 'Run', 'a'), use('t2', 'Run', 'b')] }, { blocks: [text('never')] }]);
    const gate: PermissionGate = { authorize: async () => ({ ok: false, stop: true, message: 'The user denied this Run call, and stopped the turn.' }) };
    const { result, events } = await run(provider, host, { tools: [echoTool('Run', false, log)], gate });
    expect(result.reason).toBe('stopped');
    expect(provider.requests).toHaveLength(1);
    expect(log).toEqual([]);
    const results = host.messages.at(-1)!.blocks;
    expect(results).toMatchObject([
      { type: 'tool_result', toolUseId: 't1', isError: true, content: expect.stringContaining('stopped the turn') },
      { type: 'tool_result', toolUseId: 't2', isError: true, content: expect.stringContaining('Not run') },
    ]);
    expect(results[0]).toMatchObject({ outcome: 'stopped' });
    expect(historyProblems(host.messages)).toEqual([]);
    expect(events.filter((e) => e.type === 'tool_end').map((e) => (e.type === 'tool_end' ? e.status : ''))).toEqual(['denied', 'denied']);
  });

  it("a tool's duration does not include the wait for approval", async () => {
    const host = new MemoryHost();
    const provider = new ScriptedProvider([{ blocks: [use('t1', 'Run', 'a')] }, { blocks: [text('ok')] }]);
    const slowAnswer: PermissionGate = { authorize: () => new Promise((r) => setTimeout(() => r({ ok: true }), 300)) };
    const { events } = await run(provider, host, { tools: [echoTool('Run', false, [], 5)], gate: slowAnswer });
    const end = events.find((e) => e.type === 'tool_end');
    expect(end?.type === 'tool_end' && end.durationMs).toBeLessThan(250);
  });

  it('an edit tool is previewed before the gate: a refused preview never asks, a good one hands its diff to the gate', async () => {
    const host = new MemoryHost();
    const asked: Array<{ abs?: string; added?: number }> = [];
    const gate: PermissionGate = {
      authorize: async (call) => {
        asked.push({ ...(call.abs ? { abs: call.abs } : {}), ...(call.diff ? { added: call.diff.added } : {}) });
        return { ok: true };
      },
    };
    const editLike: Tool<{ v: string }> = {
      ...echoTool('Edit', false, []),
      kind: 'edit',
      preview: async (i) =>
        i.v === 'bad'
          ? { ok: false, output: { content: 'old_string was not found', isError: true } }
          : { ok: true, change: { file: { abs: '/tmp/x' }, diff: { path: 'x', created: false, added: 2, removed: 1, hunks: [] } } },
    };
    const provider = new ScriptedProvider([{ blocks: [use('t1', 'Edit', 'bad'), use('t2', 'Edit', 'good')] }, { blocks: [text('ok')] }]);
    await run(provider, host, { tools: [editLike], gate });
    expect(asked).toEqual([{ abs: '/tmp/x', added: 2 }]);
    expect(host.messages.at(-2)!.blocks[0]).toMatchObject({ isError: true, content: 'old_string was not found' });
  });

  it('turns unknown tools, bad input and denied calls into error results', async () => {
    const host = new MemoryHost();
    const log: string[] = [];
    const deny: PermissionGate = {
      authorize: async ({ tool }) => (tool.name === 'Run' ? { ok: false, message: 'The user denied this command.' } : { ok: true }),
    };
    const provider = new ScriptedProvider([
      { blocks: [use('t1', 'Nope', 'x'), { type: 'tool_use', id: 't2', name: 'Read', input: { v: 3 } }, use('t3', 'Run', 'rm')] },
      { blocks: [text('ok')] },
    ]);
    const { events } = await run(provider, host, { tools: [echoTool('Read', true, log), echoTool('Run', false, log)], gate: deny });
    const ends = events.filter((e) => e.type === 'tool_end');
    expect(ends.map((e) => (e.type === 'tool_end' ? e.status : ''))).toEqual(['error', 'error', 'denied']);
    const results = host.messages[2]!.blocks;
    expect(results[0]).toMatchObject({ isError: true, content: expect.stringContaining('Unknown tool "Nope"') });
    expect(results[1]).toMatchObject({ isError: true, content: expect.stringContaining('v must be a string') });
    expect(results[2]).toMatchObject({ isError: true, content: 'The user denied this command.' });
    // only the refusal carries an outcome (mutation: `!==` for `===` marks the failed calls denied instead)
    expect(results.map((b) => (b.type === 'tool_result' ? (b.outcome ?? null) : 'not a result'))).toEqual([null, null, 'denied']);
    expect(log).toEqual([]);
    expect(historyProblems(host.messages)).toEqual([]);
  });

  it('retries transient errors with events and does not keep half a message from a cut stream', async () => {
    const host = new MemoryHost();
    const provider = new ScriptedProvider([
      new ProviderError({ kind: 'overloaded', provider: 'anthropic', message: 'Overloaded', status: 529 }),
      { blocks: [text('partial words that never finish')], cutAfterDeltas: 2 },
      { blocks: [text('complete answer')] },
    ]);
    const { result, events } = await run(provider, host);
    expect(result.reason).toBe('end_turn');
    const retries = events.filter((e) => e.type === 'retry');
    expect(retries.map((e) => (e.type === 'retry' ? [e.kind, e.attempt] : null))).toEqual([
      ['overloaded', 2],
      ['stream_cut', 3],
    ]);
    expect(host.messages.map((m) => m.blocks)).toEqual([[text('hello')], [text('complete answer')]]);
  });

  it('respects retry-after and gives up after maxAttempts', async () => {
    const host = new MemoryHost();
    const delays: number[] = [];
    const err = () => new ProviderError({ kind: 'rate_limit', provider: 'anthropic', message: 'rate limited', status: 429, retryAfterMs: 1234 });
    const { result, events } = await run(new ScriptedProvider([err(), err(), err()]), host, {
      patience: {
        sleep: async (ms) => {
          delays.push(ms);
        },
        retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 60_000 },
      },
    });
    expect(result.reason).toBe('error');
    expect(delays).toEqual([1234, 1234]);
    expect(events.at(-2)).toMatchObject({ type: 'error', kind: 'rate_limit' });
  });

  it('gives up when the next attempt would start at timeouts.totalMs exactly; a millisecond more allows it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const err = () => new ProviderError({ kind: 'rate_limit', provider: 'anthropic', message: 'rate limited', status: 429, retryAfterMs: 2_000 });
      const attempt = async (giveUpAfterMs: number) => {
        const delays: number[] = [];
        const { result, events } = await run(new ScriptedProvider([err(), { blocks: [text('fine')] }]), new MemoryHost(), {
          patience: {
            sleep: async (ms) => void delays.push(ms),
            retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 60_000 },
            giveUpAfterMs,
          },
        });
        return { reason: result.reason, delays, error: events.find((e) => e.type === 'error') };
      };
      // the clock stands still: the retry would start 2,000 ms after the turn's first attempt
      expect(await attempt(2_000)).toMatchObject({
        reason: 'error',
        delays: [],
        error: { message: expect.stringContaining('(no new attempt after 2 s: timeouts.totalMs)') },
      });
      expect(await attempt(2_001)).toMatchObject({ reason: 'end_turn', delays: [2_000] });
    } finally {
      vi.useRealTimers();
    }
  });

  it("sends the turn's web search as given (none when not given), and the history without its images for a model that takes none", async () => {
    const picture: Block = { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' };
    const withPicture = () =>
      Object.assign(new MemoryHost(), {
        messages: [
          { ...userMessage('look'), blocks: [text('look'), picture] },
          { ...userMessage('x'), role: 'assistant' as const, blocks: [text('seen')] },
        ],
      });
    const plain = new ScriptedProvider([{ blocks: [text('ok')] }]);
    await run(plain, withPicture());
    expect('webSearch' in plain.requests[0]!).toBe(false);
    expect(plain.requests[0]!.messages[0]!.blocks).toContainEqual(picture);
    const searching = new ScriptedProvider([{ blocks: [text('ok')] }]);
    await run(searching, withPicture(), { request: { webSearch: { maxUses: 3 }, images: false } });
    expect(searching.requests[0]!.webSearch).toEqual({ maxUses: 3 });
    expect(JSON.stringify(searching.requests[0]!.messages)).not.toContain('iVBORw0KGgo=');
  });

  it("passes the model's thinking on as it streams, with its signature when it has one", async () => {
    const thinking: Provider = {
      name: 'anthropic',
      async *stream(req: ModelRequest): AsyncIterable<StreamEvent> {
        yield { type: 'thinking_delta', text: 'Let me see.' };
        yield { type: 'thinking_delta', text: '', signature: 'sig-1' };
        yield { type: 'text_delta', text: 'ok' };
        yield { type: 'done', blocks: [text('ok')], stopReason: 'end_turn', usage: { ...emptyUsage(), inputTokens: 10, outputTokens: 5 }, model: req.model };
      },
    } as Provider;
    const { events } = await run(thinking, new MemoryHost());
    expect(events.filter((e) => e.type === 'thinking_delta')).toEqual([
      { type: 'thinking_delta', text: 'Let me see.' },
      { type: 'thinking_delta', text: '', signature: 'sig-1' },
    ]);
  });

  it('does not retry auth errors', async () => {
    const host = new MemoryHost();
    const provider = new ScriptedProvider([new ProviderError({ kind: 'auth', provider: 'anthropic', message: 'invalid x-api-key', status: 401 })]);
    const { result, events } = await run(provider, host);
    expect(result.reason).toBe('error');
    expect(events.some((e) => e.type === 'retry')).toBe(false);
    expect(provider.requests).toHaveLength(1);
  });

  it('asks the host to compact on overflow and retries, a bounded number of times', async () => {
    const host = new MemoryHost();
    const overflow = () =>
      new ProviderError({ kind: 'context_overflow', provider: 'anthropic', message: 'prompt is too long: 210000 tokens > 200000 maximum', status: 400 });
    const ok = await run(new ScriptedProvider([overflow(), { blocks: [text('fits now')] }]), host);
    expect(ok.result.reason).toBe('end_turn');
    expect(host.overflowCalls).toBe(1);

    const host2 = new MemoryHost();
    host2.compactOnOverflow = false;
    const failed = await run(new ScriptedProvider([overflow()]), host2);
    expect(failed.result.reason).toBe('error');
    expect(failed.events.find((e) => e.type === 'error')).toMatchObject({ kind: 'context_overflow' });
  });

  it('lowers max_tokens instead of compacting when only the requested output overflows', async () => {
    const host = new MemoryHost();
    host.maxOutput = 3_000;
    const provider = new ScriptedProvider([
      new ProviderError({
        kind: 'context_overflow',
        provider: 'openai',
        status: 400,
        message: 'you requested 9000 tokens (6000 in the messages, 3000 in the completion)',
        overflow: { promptTokens: 9_000, limit: 8_000, requestedOutputTokens: 3_000 },
      }),
      { blocks: [text('fits')] },
    ]);
    const { result } = await run(provider, host);
    expect(result.reason).toBe('end_turn');
    expect(host.overflowCalls).toBe(0);
    expect(host.overflowNotes).toBe(1);
    expect(provider.requests.map((r) => r.maxTokens)).toEqual([3_000, 8_000 - 6_000 - 64]);
    const p2 = new ScriptedProvider([
      new ProviderError({
        kind: 'context_overflow',
        provider: 'openai',
        status: 400,
        message: 'x',
        overflow: { promptTokens: 7_500, limit: 7_000, requestedOutputTokens: 1_000 },
      }),
      { blocks: [text('fits')] },
    ]);
    // prompt 6,500 alone fits a 7,000 window but leaves under 1,024 for output: compact instead
    const host2 = new MemoryHost();
    host2.maxOutput = 1_000;
    await run(p2, host2);
    expect(host2.overflowCalls).toBe(1);
  });

  it('continues a reply cut at max_tokens with a meta message, at most maxOutputRecoveries times', async () => {
    const host = new MemoryHost();
    const cut = { blocks: [text('part')], stop: 'max_tokens' as const };
    const provider = new ScriptedProvider([cut, cut, { blocks: [text('end')] }]);
    const { result, events } = await run(provider, host);
    expect(result.reason).toBe('end_turn');
    expect(events.filter((e) => e.type === 'continuation')).toHaveLength(2);
    const metas = host.messages.filter((m) => m.kind === 'meta');
    expect(metas).toHaveLength(2);
    expect(metas[0]!.blocks).toEqual([text(CONTINUE_PROMPT)]);

    const host2 = new MemoryHost();
    const many = await run(new ScriptedProvider([cut, cut, cut, cut, cut]), host2, { maxOutputRecoveries: 3 });
    expect(many.result.reason).toBe('max_tokens');
    expect(host2.messages.filter((m) => m.kind === 'meta')).toHaveLength(3);
  });

  it('stops after maxSteps', async () => {
    const host = new MemoryHost();
    const log: string[] = [];
    const loopStep = (): Step => ({ blocks: [use(`t${Math.random()}`, 'Read', 'x')] });
    const { result } = await run(new ScriptedProvider([loopStep(), loopStep(), loopStep()]), host, { tools: [echoTool('Read', true, log, 0)], maxSteps: 3 });
    expect(result.reason).toBe('max_steps');
    expect(result.steps).toBe(3);
    expect(historyProblems(host.messages)).toEqual([]);
  });

  it('keeps the partial reply marked interrupted when aborted mid-stream', async () => {
    const host = new MemoryHost();
    const ac = new AbortController();
    const provider = new ScriptedProvider([{ blocks: [text('a long reply that will be interrupted')] }]);
    const events: AgentEvent[] = [];
    const result = await runTurn(host, options(provider), userMessage('hi'), ac.signal, (e) => {
      events.push(e);
      if (e.type === 'text_delta' && events.filter((x) => x.type === 'text_delta').length === 3) ac.abort();
    });
    expect(result.reason).toBe('aborted');
    const last = host.messages.at(-1)!;
    expect(last.role).toBe('assistant');
    expect(last.interrupted).toBe(true);
    expect(last.blocks).toEqual([text('a long reply')]);
  });

  it('closes running tool calls with interrupted results when aborted during tools', async () => {
    const host = new MemoryHost();
    const ac = new AbortController();
    const log: string[] = [];
    const provider = new ScriptedProvider([{ blocks: [use('t1', 'Run', 'a'), use('t2', 'Run', 'b')] }]);
    const events: AgentEvent[] = [];
    const result = await runTurn(host, options(provider, { tools: [echoTool('Run', false, log, 30)] }), userMessage('hi'), ac.signal, (e) => {
      events.push(e);
      if (e.type === 'tool_start' && e.id === 't1') setTimeout(() => ac.abort(), 5);
    });
    expect(result.reason).toBe('aborted');
    expect(historyProblems(host.messages)).toEqual([]);
    const results = host.messages.at(-1)!.blocks;
    expect(results).toHaveLength(2);
    expect(results.every((b) => b.type === 'tool_result' && b.isError)).toBe(true);
    expect(log).not.toContain('start Run b');
  });
});
