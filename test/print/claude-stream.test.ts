import { describe, expect, it } from 'vitest';
import type { Message, Usage } from '../../src/llm/messages.js';
import { ClaudeStream, type TurnFacts } from '../../src/print/claudeStream.js';
import { parseInputLine } from '../../src/print/inputStream.js';
import type { SessionEvent } from '../../src/protocol/events.js';

// The stream-json printer on its own: the session's events in, Claude Code's messages out. What a
// script reads from it per turn (the result's permission denials, is_error, subtype) is pinned
// here; test/e2e/claude-stream.test.ts runs the built CLI against Claude Code's recorded shapes.

const usage: Usage = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 };
const facts = (over: Partial<TurnFacts> = {}): TurnFacts => ({
  reason: 'end_turn',
  failed: false,
  text: 'done',
  usage,
  steps: 1,
  model: 'claude-sonnet-5-5',
  contextWindow: 200_000,
  maxOutputTokens: 32_000,
  durationMs: 10,
  errors: [],
  extras: {},
  ...over,
});

function stream(opts: { partialMessages?: boolean } = {}): { s: ClaudeStream; out: Array<Record<string, unknown>> } {
  const out: Array<Record<string, unknown>> = [];
  return {
    s: new ClaudeStream(
      (m) => out.push(m as Record<string, unknown>),
      () => 's_test',
      opts,
    ),
    out,
  };
}

const call = (id: string, name: string, input: unknown): SessionEvent => ({ type: 'tool_start', id, name, input, summary: name });
const end = (id: string, name: string, status: 'done' | 'denied' | 'error'): SessionEvent => ({
  type: 'tool_end',
  id,
  name,
  output: { content: status === 'denied' ? 'denied' : 'ok', isError: status !== 'done' },
  durationMs: 1,
  status,
});
const reply = (text: string, extra: Partial<Message> = {}): SessionEvent => ({
  type: 'message',
  message: { id: `m_${text}`, role: 'assistant', kind: 'normal', createdAt: 0, blocks: [{ type: 'text', text }], model: 'claude-sonnet-5-5', usage, ...extra },
});

describe('permission denials', () => {
  it("each turn's result lists only that turn's denials, with the denied call's input", () => {
    const { s } = stream();
    s.beginTurn();
    s.event(call('t1', 'Bash', { command: 'rm -rf build' }));
    s.event(end('t1', 'Bash', 'denied'));
    s.event(call('t2', 'Read', { path: 'a.ts' }));
    s.event(end('t2', 'Read', 'done'));
    const first = s.result(facts()) as { permission_denials: unknown[] };
    expect(first.permission_denials).toEqual([{ tool_name: 'Bash', tool_use_id: 't1', tool_input: { command: 'rm -rf build' } }]);

    s.beginTurn();
    s.event(call('t3', 'Write', { path: 'b.ts', content: 'x' }));
    s.event(end('t3', 'Write', 'denied'));
    const second = s.result(facts()) as { permission_denials: unknown[] };
    expect(second.permission_denials).toEqual([{ tool_name: 'Write', tool_use_id: 't3', tool_input: { path: 'b.ts', content: 'x' } }]);

    s.beginTurn();
    expect((s.result(facts()) as { permission_denials: unknown[] }).permission_denials).toEqual([]);
  });

  it('a failed call is no denial', () => {
    const { s } = stream();
    s.beginTurn();
    s.event(call('t1', 'Bash', { command: 'false' }));
    s.event(end('t1', 'Bash', 'error'));
    expect((s.result(facts()) as { permission_denials: unknown[] }).permission_denials).toEqual([]);
  });
});

describe('the result', () => {
  it('a turn that ended well is a success carrying the text', () => {
    const { s } = stream();
    s.beginTurn();
    expect(s.result(facts())).toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'done',
      stop_reason: 'end_turn',
      session_id: 's_test',
    });
  });

  it('a turn that ended but failed otherwise (unsaved messages, a failed /compact) is an error result with its errors', () => {
    const { s } = stream();
    s.beginTurn();
    const r = s.result(facts({ failed: true, errors: ['2 messages were not saved'] })) as Record<string, unknown>;
    expect(r).toMatchObject({ subtype: 'error_during_execution', is_error: true, errors: ['2 messages were not saved'], stop_reason: 'end_turn' });
    expect(r).not.toHaveProperty('result');
  });

  it('an error, an abort or a block is an error result; max steps is error_max_turns', () => {
    const { s } = stream();
    for (const reason of ['error', 'aborted', 'blocked'])
      expect(s.result(facts({ reason }))).toMatchObject({
        subtype: 'error_during_execution',
        is_error: true,
        errors: [`the turn ended: ${reason}`],
        stop_reason: null,
      });
    expect(s.result(facts({ reason: 'max_steps' }))).toMatchObject({ subtype: 'error_max_turns', is_error: true });
  });

  it('counts the replies of this turn, not of earlier ones', () => {
    const { s } = stream();
    s.beginTurn();
    s.event(reply('one'));
    s.event(reply('two'));
    expect(s.result(facts({ steps: 0 }))).toMatchObject({ num_turns: 2 });
    s.beginTurn();
    s.event(reply('three'));
    expect(s.result(facts({ steps: 0 }))).toMatchObject({ num_turns: 1 });
  });
});

describe('messages', () => {
  it("an assistant message carries the provider's stop reason; an interrupted one none", () => {
    const { s, out } = stream();
    s.event({ type: 'usage', usage, model: 'claude-sonnet-5-5', stopReason: 'tool_use' });
    s.event(reply('calling'));
    s.event({ type: 'usage', usage, model: 'claude-sonnet-5-5', stopReason: 'end_turn' });
    s.event(reply('cut', { interrupted: true }));
    expect(out.map((m) => (m.message as { stop_reason: unknown }).stop_reason)).toEqual(['tool_use', null]);
    expect(out[0]).toMatchObject({
      type: 'assistant',
      parent_tool_use_id: null,
      session_id: 's_test',
      message: { content: [{ type: 'text', text: 'calling' }] },
    });
  });

  it('tool results go out as a user message; a person’s prompt does not', () => {
    const { s, out } = stream();
    s.event({ type: 'message', message: { id: 'u1', role: 'user', kind: 'normal', createdAt: 0, blocks: [{ type: 'text', text: 'hi' }] } });
    s.event({
      type: 'message',
      message: { id: 'r1', role: 'user', kind: 'normal', createdAt: 0, blocks: [{ type: 'tool_result', toolUseId: 't1', content: 'ok', isError: false }] },
    });
    expect(out.map((m) => m.type)).toEqual(['user']);
  });

  it('an applied compaction is a compact_boundary; clearing old tool outputs (micro) and a failed one are none', () => {
    const { s, out } = stream();
    const record = (trigger: 'micro' | 'auto', status: 'applied' | 'failed'): SessionEvent => ({
      type: 'compaction_end',
      record: {
        id: 'c',
        trigger,
        status,
        tokensBefore: 9_000,
        tokensAfter: 3_000,
        archivedCount: 4,
        preservedCount: 2,
        summaryTokens: 0,
        durationMs: 1,
        model: 'm',
        usage,
        createdAt: 0,
      },
    });
    // mutation: not leaving micro compactions out writes a boundary for the first
    s.event(record('micro', 'applied'));
    s.event(record('auto', 'failed'));
    expect(out).toEqual([]);
    s.event(record('auto', 'applied'));
    expect(out).toMatchObject([{ type: 'system', subtype: 'compact_boundary', compact_metadata: { trigger: 'auto', pre_tokens: 9_000, post_tokens: 3_000 } }]);
  });

  it('a compaction that started ends its "compacting" status with how it went: success, or failed when it failed or was skipped', () => {
    const { s, out } = stream();
    const end = (status: 'applied' | 'failed'): SessionEvent => ({
      type: 'compaction_end',
      record: {
        id: 'c',
        trigger: 'auto',
        status,
        tokensBefore: 9_000,
        tokensAfter: 3_000,
        archivedCount: 4,
        preservedCount: 2,
        summaryTokens: 0,
        durationMs: 1,
        model: 'm',
        usage,
        createdAt: 0,
      },
    });
    const start: SessionEvent = { type: 'compaction_start', trigger: 'auto', tokensBefore: 9_000 };
    // mutation: `compacting = true` before any compaction started: this first skip would end a status never sent
    s.event({ type: 'compaction_skipped', trigger: 'auto', reason: 'below the threshold' });
    s.event(start);
    s.event(end('failed'));
    s.event(start);
    s.event({ type: 'compaction_skipped', trigger: 'auto', reason: 'nothing to archive' });
    s.event(start);
    s.event(end('applied'));
    // a later skip or end with no compaction started (the next turn's threshold check) adds no status
    s.event({ type: 'compaction_skipped', trigger: 'auto', reason: 'cooldown after the last compaction (2 more turns)' });
    s.event(end('applied'));
    // mutation: the result taken as success whatever the record's status says fails the first
    expect(out.filter((m) => m['subtype'] === 'status').map((m) => m['compact_result'] ?? m['status'])).toEqual([
      'compacting',
      'failed',
      'compacting',
      'failed',
      'compacting',
      'success',
    ]);
  });
});

describe('--input-format stream-json lines', () => {
  it('reads a string content and text blocks as the prompt, and names the line and field of a bad one', () => {
    // mutation: a string content read as '' sends an empty prompt
    expect(parseInputLine(JSON.stringify({ type: 'user', message: { role: 'user', content: 'fix it' } }), 1)).toEqual({ text: 'fix it', images: [] });
    const blocks = [
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ];
    expect(parseInputLine(JSON.stringify({ type: 'user', message: { role: 'user', content: blocks } }), 2)).toEqual({ text: 'one\n\ntwo', images: [] });
    expect(parseInputLine('{"type":"user"', 3)).toMatchObject({ error: expect.stringMatching(/^--input-format stream-json: line 3 is not JSON/) });
    expect(parseInputLine(JSON.stringify({ type: 'user', message: { role: 'user' } }), 4)).toMatchObject({
      error: expect.stringMatching(/^--input-format stream-json: line 4: message\.content: /),
    });
  });
});

// Mutations checked: beginTurn without `this.denials = []` fails "only that turn's denials"; claudeOutcome
// without `failed ||` fails "ended but failed otherwise"; counting every tool_end as a denial fails
// "a failed call is no denial"; beginTurn without `this.turns = 0` fails "counts the replies of this turn".

describe('--include-partial-messages: a thinking block’s signature', () => {
  /** The stream_event lines of `events`, each as its type and what tells it apart (the delta's kind and text or signature). */
  function streamed(events: SessionEvent[]): string[] {
    const { s, out } = stream({ partialMessages: true });
    for (const e of events) s.event(e);
    return out.flatMap((m) => {
      if (m['type'] !== 'stream_event') return [];
      const e = m['event'] as { type: string; index?: number; delta?: Record<string, string>; content_block?: { type: string } };
      if (e.type === 'content_block_start') return [`start ${e.index} ${e.content_block?.type}`];
      if (e.type === 'content_block_delta') return [`${e.index} ${Object.values(e.delta ?? {}).join(' ')}`];
      if (e.type === 'content_block_stop') return [`stop ${e.index}`];
      return [e.type];
    });
  }
  const answer = (blocks: Message['blocks']): SessionEvent => ({
    type: 'message',
    message: { id: 'm_a', role: 'assistant', kind: 'normal', createdAt: 0, blocks, model: 'claude-sonnet-5-5', usage },
  });

  it('goes out once, before its block stops: from the delta that carried it, or from the reply when no delta did', () => {
    // the signature on a thinking delta (the provider's last one): sent at once, and once however often it comes
    expect(
      streamed([
        { type: 'thinking_delta', text: 'first' },
        { type: 'thinking_delta', text: 'then', signature: 'sigA' },
        { type: 'thinking_delta', text: '', signature: 'sigA' },
        { type: 'text_delta', text: 'done' },
        answer([
          { type: 'thinking', thinking: 'firstthen', signature: 'sigA' },
          { type: 'text', text: 'done' },
        ]),
      ]),
    ).toEqual([
      'message_start',
      'start 0 thinking',
      '0 thinking_delta first',
      '0 thinking_delta then',
      '0 signature_delta sigA',
      'stop 0',
      'start 1 text',
      '1 text_delta done',
      'stop 1',
      'message_delta',
      'message_stop',
    ]);
    // no delta carried it and the thinking was the last block streamed: the reply's signature, before the block stops
    expect(
      streamed([
        { type: 'thinking_delta', text: 'pondering' },
        answer([
          { type: 'thinking', thinking: 'pondering', signature: 'sigB' },
          { type: 'tool_use', id: 't1', name: 'Read', input: { path: 'a' } },
        ]),
      ]),
    ).toEqual([
      'message_start',
      'start 0 thinking',
      '0 thinking_delta pondering',
      '0 signature_delta sigB',
      'stop 0',
      'start 1 tool_use',
      '1 input_json_delta {"path":"a"}',
      'stop 1',
      'message_delta',
      'message_stop',
    ]);
  });
  // mutations (partialStream.ts): `final?.type !== 'thinking'` in stopBlock, `o?.current === 'thinking'` in sign, the
  // signature_delta dropped, `o.signed = false` (sent twice) each fail it
});
