import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEY, MODEL, runAgent, useFakeServer, workspace } from './harness.js';

// --debug used to log almost nothing (two lines after a retried 500, a read and a failing
// edit). It logs each request, retry, tool call, compaction decision and permission decision,
// never a key nor, unless --debug=full, a message's content.

const server = useFakeServer();

async function session(debugFlag: string): Promise<string> {
  const ws = workspace();
  writeFileSync(join(ws.dir, 'notes.txt'), 'FILE-CONTENT-PHRASE lives here\n');
  const log = join(ws.root, 'debug.log');
  server.enqueue(
    { type: 'error', error: 'server' },
    {
      text: 'Reading it.',
      toolCalls: [{ name: 'FileRead', input: { path: 'notes.txt' } }],
      usage: { inputTokens: 900, outputTokens: 20, cacheReadTokens: 700, cacheWriteTokens: 50 },
    },
    { toolCalls: [{ name: 'Bash', input: { command: 'echo BASH-COMMAND-PHRASE' } }] },
    { text: 'MODEL-REPLY-PHRASE' },
  );
  const r = await runAgent(
    [
      '-p',
      'PROMPT-PHRASE: read notes.txt',
      '--permission-mode',
      'acceptEdits',
      `--debug=${debugFlag}${debugFlag ? ':' : ''}${log}`.replace('--debug=:', '--debug='),
    ],
    { ws, server },
  );
  expect(r.code, r.stderr).toBe(0);
  return readFileSync(log, 'utf8');
}

const lines = (log: string, what: string): Array<Record<string, unknown>> =>
  log
    .split('\n')
    .filter((l) => l.includes(` ${what} {`))
    .map((l) => JSON.parse(l.slice(l.indexOf('{'))) as Record<string, unknown>);

describe('--debug', () => {
  it('logs requests, the retry and its cause, tool calls, permission and compaction decisions — no content, no key', async () => {
    const log = await session('');
    const requests = lines(log, 'request');
    expect(requests.length).toBe(4);
    expect(requests[0]).toMatchObject({ model: MODEL.anthropic, step: 1, attempt: 1, messages: 2, tools: expect.any(Number), maxTokens: expect.any(Number) });
    expect(requests[0]!.messageChars).toBeGreaterThan(0);
    expect(lines(log, 'request failed')[0]).toMatchObject({ kind: 'server', status: 500, ms: expect.any(Number) });
    expect(lines(log, 'retry')[0]).toMatchObject({ attempt: 2, cause: 'server', delayMs: expect.any(Number) });
    const responses = lines(log, 'response');
    expect(responses).toHaveLength(3);
    expect(responses[0]).toMatchObject({
      model: MODEL.anthropic,
      stopReason: 'tool_use',
      ms: expect.any(Number),
      usage: { cacheReadTokens: 700, cacheWriteTokens: 50 },
    });
    expect(lines(log, 'tool call').map((l) => l.name)).toEqual(['FileRead', 'Bash']);
    const done = lines(log, 'tool done');
    expect(done[0]).toMatchObject({ name: 'FileRead', status: 'done', isError: false, ms: expect.any(Number), outputChars: expect.any(Number) });
    // a refused call: the decision and the error flag (its text quotes the command: --debug=full only)
    expect(done[1]).toMatchObject({ name: 'Bash', isError: true });
    expect(done[1]!.output).toBeUndefined();
    expect(lines(log, 'permission').map((l) => [l.tool, l.allowed, l.mode])).toEqual([
      ['FileRead', true, 'acceptEdits'],
      ['Bash', false, 'acceptEdits'],
    ]);
    expect(lines(log, 'context before call').length).toBeGreaterThanOrEqual(3);
    expect(lines(log, 'turn end')[0]).toMatchObject({ reason: 'end_turn', steps: 3 });
    for (const secret of ['PROMPT-PHRASE', 'FILE-CONTENT-PHRASE', 'MODEL-REPLY-PHRASE', 'BASH-COMMAND-PHRASE', KEY.anthropic])
      expect(log, secret).not.toContain(secret);
  });

  it('--debug=full adds the contents, still without the key', async () => {
    const log = await session('full');
    for (const content of ['PROMPT-PHRASE', 'FILE-CONTENT-PHRASE', 'MODEL-REPLY-PHRASE']) expect(log, content).toContain(content);
    expect(log).not.toContain(KEY.anthropic);
  });
});
