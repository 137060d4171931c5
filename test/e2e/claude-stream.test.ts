import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { isSummarizer, runAgent, useFakeServer, workspace, type Workspace } from './inprocess.js';
import { EXAMPLES, RECORDED_EXAMPLES, recordedKind, shapeErrors, validate, validateRecorded, type Json } from './claudeShape.js';
import { describeEachProvider, itEachProvider } from './regime.js';

// Claude Code's print-mode wire: `-p --output-format stream-json [--verbose]`, `--output-format
// json` and `--input-format stream-json`, checked message by message against recorded examples
// of Claude Code's own output (fixtures/claude-code-stream.jsonl, claudeShape.ts).

const server = useFakeServer();
type Msg = Record<string, Json>;
const lines = (stdout: string): Msg[] =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Msg);
const tag = (m: Msg): string => (m.subtype && m.type === 'system' ? `${String(m.type)}/${String(m.subtype)}` : String(m.type));
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

it('the checker refuses what Claude Code would not send (a mutation of each kind fails it)', () => {
  const result = EXAMPLES.find((e) => e.type === 'result')!;
  expect(validate(result)).toEqual([]);
  // a missing field, a camelCase extra, a wrong type: each one is named
  const { session_id: _, ...noSession } = result;
  expect(validate(noSession)).toEqual(['$.session_id: missing']);
  expect(validate({ ...result, sessionId: 'x' })).toEqual(['$.sessionId: a field Claude Code does not send (extras go under agent_*)']);
  expect(validate({ ...result, num_turns: '2' })).toEqual(['$.num_turns: string where Claude Code sends number']);
  const assistant = EXAMPLES.find((e) => e.type === 'assistant')!;
  const bad = JSON.parse(JSON.stringify(assistant).replace('"tool_use_id"', '"toolUseId"').replace('"type":"tool_use"', '"type":"tool_call"')) as Msg;
  expect(shapeErrors(assistant, bad).join('\n')).toMatch(/no tool_call element/);
});

describeEachProvider("Claude Code's stream-json with %s", (provider) => {
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace();
    writeFileSync(join(ws.dir, 'notes.txt'), 'the secret word is pineapple\n');
  });

  it('a tool turn: system/init first, assistant and user messages with Anthropic blocks, result last', async () => {
    server.enqueue({ text: 'Let me look.', toolCalls: [{ name: 'Glob', input: { pattern: '*.txt' } }] }, { text: 'There is notes.txt.' });
    const r = await runAgent(['-p', 'which text files?', '--output-format', 'stream-json', '--verbose'], { ws, server, provider });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const msgs = lines(r.stdout);
    expect(msgs.map(tag)).toEqual(['system/init', 'assistant', 'user', 'assistant', 'result']);
    for (const m of msgs) expect(validate(m), tag(m)).toEqual([]);
    // and against Claude Code's own output of a tool turn, recorded (mutation: a renamed or retyped field fails here too)
    for (const m of msgs) expect(validateRecorded(m), tag(m)).toEqual([]);
    const [init, call, results, answer, result] = msgs as [Msg, Msg, Msg, Msg, Msg];
    expect(init).toMatchObject({ cwd: ws.dir, permissionMode: 'default', output_style: 'default' });
    expect(init.tools).toContain('Glob');
    expect(init.slash_commands).toContain('compact');
    const id = init.session_id;
    expect(msgs.every((m) => m.session_id === id)).toBe(true);
    const use = (call.message as { content: Array<{ type: string; id?: string; input?: unknown }> }).content.find((b) => b.type === 'tool_use')!;
    expect(use).toMatchObject({ name: 'Glob', input: { pattern: '*.txt' } });
    expect(call.message).toMatchObject({ stop_reason: 'tool_use', role: 'assistant', type: 'message' });
    expect(results.message).toMatchObject({ role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, is_error: false }] });
    expect(JSON.stringify(results.message)).toContain('notes.txt');
    expect(answer.message).toMatchObject({ content: expect.arrayContaining([{ type: 'text', text: 'There is notes.txt.' }]), stop_reason: 'end_turn' });
    // the result is the last reply's text, as Claude Code's
    expect(result).toMatchObject({ subtype: 'success', is_error: false, num_turns: 2, result: 'There is notes.txt.' });
    expect((result.usage as { output_tokens: number }).output_tokens).toBeGreaterThan(0);
    expect(typeof result.total_cost_usd).toBe('number');
  });

  it('/compact: a compact_boundary with compact_metadata, then the result', async () => {
    server.respondWith((req) => (isSummarizer(req.view) ? { text: '## Goal\nKnow the files.\n## Next Steps\nNone.' } : undefined));
    for (let t = 0; t < 5; t++) {
      server.enqueue({ text: `answer ${t}: ${'This answer goes on at some length about the files and what they contain. '.repeat(30)}` });
      expect((await runAgent(['-p', `question ${t}`, ...(t ? ['--continue'] : [])], { ws, server, provider })).code).toBe(0);
    }
    const r = await runAgent(['-p', '/compact', '--output-format', 'stream-json', '--continue'], { ws, server, provider });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const msgs = lines(r.stdout);
    // Claude Code's status while the summary is written ("compacting", then null with the result), as recorded
    expect(msgs.map(tag)).toEqual(['system/init', 'system/status', 'system/status', 'system/compact_boundary', 'result']);
    for (const m of msgs) expect(validate(m), tag(m)).toEqual([]);
    for (const m of msgs) expect(validateRecorded(m), tag(m)).toEqual([]);
    expect(msgs[1]).toMatchObject({ status: 'compacting' });
    expect(msgs[2]).toMatchObject({ status: null, compact_result: 'success' });
    const meta = msgs[3]!.compact_metadata as { trigger: string; pre_tokens: number; post_tokens: number };
    expect(meta.trigger).toBe('manual');
    expect(meta.post_tokens).toBeLessThan(meta.pre_tokens);
    // the project's compaction report rides along under an agent_* name
    expect(msgs[3]!.agent_compaction).toMatchObject({ trigger: 'manual' });
    expect(msgs[4]).toMatchObject({ subtype: 'success', is_error: false, num_turns: 0 });
    // the summarizer's tokens are what the command spent
    expect((msgs[4]!.usage as { output_tokens: number }).output_tokens).toBeGreaterThan(0);
  });
});

describe("Claude Code's --include-partial-messages", () => {
  it('checks against the recording: a wrong field in a stream event fails', () => {
    const start = RECORDED_EXAMPLES.get('stream_event/message_start') as Msg;
    expect(validateRecorded(start)).toEqual([]);
    const bad = JSON.parse(JSON.stringify(start).replace('"content":[]', '"content":{}')) as Msg;
    expect(validateRecorded(bad)).toEqual(['$.event.message.content: object where Claude Code sends array']);
  });

  itEachProvider('with %s: stream_event lines wrap the reply as Anthropic streams it, shaped as Claude Code records them', async (provider) => {
    const ws = workspace();
    writeFileSync(join(ws.dir, 'notes.txt'), 'x\n');
    server.enqueue({ text: 'Let me look.', toolCalls: [{ name: 'Glob', input: { pattern: '*.txt' } }] }, { text: 'There is notes.txt.' });
    const r = await runAgent(['-p', 'which text files?', '--output-format', 'stream-json', '--verbose', '--include-partial-messages'], {
      ws,
      server,
      provider,
    });
    expect(r.code, r.stderr).toBe(0);
    const msgs = lines(r.stdout);
    // mutation: any field renamed, missing or of another type in one of our kinds fails; so does a kind Claude Code never sent
    for (const m of msgs) expect(validateRecorded(m), recordedKind(m)).toEqual([]);
    const events = msgs.filter((m) => m.type === 'stream_event').map((m) => m.event as { type: string; index?: number; delta?: Msg; content_block?: Msg });
    const kinds = events.map((e) => e.type);
    // two replies, each from message_start to message_stop, before its assistant message
    expect(kinds.filter((k) => k === 'message_start')).toHaveLength(2);
    expect(kinds.at(-1)).toBe('message_stop');
    const text = events.flatMap((e) => (e.delta?.type === 'text_delta' ? [String(e.delta.text)] : [])).join('');
    expect(text).toBe('Let me look.There is notes.txt.');
    const tool = events.find((e) => e.content_block?.type === 'tool_use');
    expect(tool?.content_block).toMatchObject({ name: 'Glob', input: {} });
    const json = events.find((e) => e.delta?.type === 'input_json_delta' && e.index === tool?.index);
    expect(JSON.parse(String(json?.delta?.partial_json))).toEqual({ pattern: '*.txt' });
    // the assistant message carries the id its stream events announced
    const firstStart = events.find((e) => e.type === 'message_start') as unknown as { message: { id: string } };
    const firstAssistant = msgs.find((m) => m.type === 'assistant') as { message: { id: string } };
    expect(firstAssistant.message.id).toBe(firstStart.message.id);
    const stop = events.find((e) => e.type === 'message_delta') as unknown as { delta: { stop_reason: string } };
    expect(stop.delta.stop_reason).toBe('tool_use');
    // each block opened is closed, in order
    const opened = events.filter((e) => e.type === 'content_block_start').map((e) => e.index);
    const closed = events.filter((e) => e.type === 'content_block_stop').map((e) => e.index);
    expect(closed).toEqual(opened);
    expect(msgs.filter((m) => m.type === 'stream_event').every((m) => m.session_id === msgs[0]!.session_id && m.parent_tool_use_id === null)).toBe(true);
  });

  it("a streamed thinking block ends with its signature_delta before it stops, as Anthropic's stream has it, even when text follows", async () => {
    const ws = workspace();
    server.enqueue({ thinking: 'Weighing the two options.', text: 'Option B.' });
    const r = await runAgent(['-p', 'which option?', '--output-format', 'stream-json', '--verbose', '--include-partial-messages'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    const msgs = lines(r.stdout);
    for (const m of msgs) expect(validateRecorded(m), recordedKind(m)).toEqual([]);
    const events = msgs.filter((m) => m.type === 'stream_event').map((m) => m.event as { type: string; index?: number; delta?: Msg; content_block?: Msg });
    const thinking = events.find((e) => e.content_block?.type === 'thinking');
    expect(thinking).toBeDefined();
    const at = events.filter((e) => e.index === thinking!.index).map((e) => e.delta?.type ?? e.type);
    // mutation: the signature sent only for a block still open at the reply's end (never here: the text closed it)
    expect(at.slice(-2)).toEqual(['signature_delta', 'content_block_stop']);
    const signed = events.find((e) => e.delta?.type === 'signature_delta');
    const assistant = msgs.find((m) => m.type === 'assistant') as { message: { content: Array<{ type: string; signature?: string }> } };
    expect(signed?.delta?.signature).toBe(assistant.message.content.find((b) => b.type === 'thinking')?.signature);
    expect(events.filter((e) => e.delta?.type === 'signature_delta')).toHaveLength(1);
  });

  it('--include-partial-messages without stream-json is a usage error', async () => {
    const r = await runAgent(['-p', 'hi', '--include-partial-messages'], { ws: workspace(), server });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--include-partial-messages needs --output-format stream-json');
  });
});

describe("Claude Code's json result and input stream", () => {
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace();
  });

  it('--output-format json prints only the result object', async () => {
    server.enqueue({ text: 'Four.' });
    const r = await runAgent(['-p', 'what is 2+2?', '--output-format', 'json'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    const msgs = lines(r.stdout);
    expect(msgs.map(tag)).toEqual(['result']);
    expect(validate(msgs[0]!)).toEqual([]);
    expect(msgs[0]).toMatchObject({ result: 'Four.', is_error: false, num_turns: 1 });
  });

  it('a turn that runs out of steps is error_max_turns with errors and no result text', async () => {
    server.enqueue({ toolCalls: [{ name: 'Glob', input: { pattern: '*' } }] }, { toolCalls: [{ name: 'Glob', input: { pattern: '*' } }] });
    const r = await runAgent(['-p', 'loop', '--output-format', 'json', '--max-steps', '1'], { ws, server });
    expect(r.code).toBe(1);
    const result = lines(r.stdout).at(-1)!;
    expect(validate(result)).toEqual([]);
    expect(result).toMatchObject({ subtype: 'error_max_turns', is_error: true });
    expect(result.result).toBeUndefined();
  });

  it('--input-format stream-json: two lines give two turns and two results in one session, images included', async () => {
    server.enqueue({ text: 'First answer.' }, { text: 'Second answer.' });
    const input = [
      { type: 'user', message: { role: 'user', content: 'first question' }, parent_tool_use_id: null, session_id: '' },
      {
        type: 'user',
        message: {
          role: 'user',
          content: [
            { type: 'text', text: 'second question, about this picture' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          ],
        },
      },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n');
    const r = await runAgent(['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'], { ws, server, stdin: `${input}\n` });
    expect(r.code, r.stderr).toBe(0);
    const msgs = lines(r.stdout);
    expect(msgs.map(tag)).toEqual(['system/init', 'assistant', 'result', 'assistant', 'result']);
    for (const m of msgs) expect(validate(m), tag(m)).toEqual([]);
    expect(msgs.filter((m) => m.type === 'result').map((m) => m.result)).toEqual(['First answer.', 'Second answer.']);
    expect(new Set(msgs.map((m) => m.session_id)).size).toBe(1);
    // the second request carries the first turn and the image
    const second = server.requests[1]!.view!.messages;
    expect(JSON.stringify(second)).toContain('first question');
    expect(second.at(-1)!.blocks.some((b) => b.type === 'image')).toBe(true);
  });

  it('a bad input line is a usage error naming the line', async () => {
    server.enqueue({ text: 'First answer.' });
    const stdin = `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'hi' } })}\n{"type":"user","message":{"role":"assistant","content":"x"}}\n`;
    const r = await runAgent(['-p', '--input-format', 'stream-json', '--output-format', 'stream-json'], { ws, server, stdin });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--input-format stream-json: line 2: message.role');
    expect(lines(r.stdout).filter((m) => m.type === 'result')).toHaveLength(1);
    const wrongOutput = await runAgent(['-p', '--input-format', 'stream-json'], { ws, server, stdin });
    expect(wrongOutput.code).toBe(2);
    expect(wrongOutput.stderr).toContain('--input-format stream-json needs --output-format stream-json');
  });
});
