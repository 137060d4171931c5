import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { BUILT_IN_TOOLS, jsonResult, KEY, runAgent, workspace, type ProviderKind, type Workspace, useFakeServer } from './inprocess.js';
import { describeEachProvider } from './regime.js';

// Print mode end to end: the built CLI as a child process, the real SDKs over HTTP, the
// fake provider server on the other side. Every case runs for both providers.

const server = useFakeServer();

/** OpenAI tool messages carry no error flag: the adapter marks failures in the text. */
const failed = (r: { content: string; isError: boolean } | undefined, provider: ProviderKind): boolean =>
  provider === 'anthropic' ? r?.isError === true : /^Error/.test(r?.content ?? '');

/** The tool_result blocks the model received in request n (1-based). */
function toolResultsIn(n: number): Array<{ content: string; isError: boolean }> {
  const req = server.requests[n - 1];
  const out: Array<{ content: string; isError: boolean }> = [];
  for (const m of req?.view?.messages ?? []) {
    for (const b of m.blocks) if (b.type === 'tool_result') out.push({ content: b.content, isError: b.isError });
  }
  return out;
}

describeEachProvider('print mode with %s', (provider) => {
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace();
    writeFileSync(join(ws.dir, 'notes.txt'), 'alpha\nthe secret word is pineapple\ngamma\n');
    writeFileSync(join(ws.dir, 'main.ts'), 'export const answer = 42;\n');
  });
  const run = (args: string[], extra: Partial<Parameters<typeof runAgent>[1]> = {}) => runAgent(args, { ws, server, provider, ...extra });

  it('streams a plain answer and prints it', async () => {
    server.enqueue({ text: 'Hello from the fake model.' });
    const r = await run(['-p', 'say hello']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Hello from the fake model.\n');
    const view = server.requests[0]!.view!;
    expect(view.stream).toBe(true);
    expect(view.system).toContain(`Working directory: ${ws.dir}`);
    expect(view.toolNames).toEqual(BUILT_IN_TOOLS);
    if (provider === 'openai') expect(view.includeUsage).toBe(true);
  });

  it('tells the model where it is and includes AGENTS.md', async () => {
    writeFileSync(join(ws.dir, 'AGENTS.md'), '# House rules\nRun `make check` before saying you are done.\n');
    server.enqueue({ text: 'ok' });
    expect((await run(['-p', 'hi'])).code).toBe(0);
    const system = server.requests[0]!.view!.system;
    expect(system).toContain('Run `make check` before saying you are done.');
    expect(system).toContain(`Platform: ${process.platform}`);
    // the date is a note in the history, not in the system prompt (which must stay byte-stable for the cache)
    expect(system).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    expect(JSON.stringify(server.requests[0]!.view!.messages[0])).toMatch(/today's date is \d{4}-\d{2}-\d{2}/);
    // every built-in tool is described by its definition, which the system prompt does not repeat (issue 48)
    expect(server.requests[0]!.view!.toolNames).toEqual(BUILT_IN_TOOLS);
    for (const tool of BUILT_IN_TOOLS) expect(system).not.toContain(`- ${tool}:`);
  });

  it('round-trips FileRead', async () => {
    server.enqueue({ text: 'Reading.', toolCalls: [{ name: 'FileRead', input: { path: 'notes.txt' } }] }, { text: 'The word is pineapple.' });
    const r = await run(['-p', 'what is the secret word?']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('The word is pineapple.');
    const [result] = toolResultsIn(2);
    expect(result).toEqual({ content: expect.stringMatching(/^\s*2\tthe secret word is pineapple$/m), isError: false });
  });

  it('round-trips Grep and Glob in one step (read-only calls together)', async () => {
    server.enqueue(
      {
        toolCalls: [
          { name: 'Grep', input: { pattern: 'pine\\w+', outputMode: 'lines' } },
          { name: 'Glob', input: { pattern: '**/*.ts' } },
        ],
      },
      { text: 'Found it.' },
    );
    const r = await run(['-p', 'search']);
    expect(r.code).toBe(0);
    const [grep, glob] = toolResultsIn(2);
    expect(grep!.content).toContain('notes.txt:2:the secret word is pineapple');
    expect(glob!.content).toContain('main.ts');
    expect(glob!.content).not.toContain('notes.txt');
  });

  it('runs Bash when permissions allow it', async () => {
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: 'echo made > made.txt && cat made.txt; exit 3' } }] }, { text: 'Ran it.' });
    const r = await run(['-p', 'run it', '--permission-mode', 'allow']);
    expect(r.code).toBe(0);
    expect(readFileSync(join(ws.dir, 'made.txt'), 'utf8')).toBe('made\n');
    const [bash] = toolResultsIn(2);
    expect(bash!.content).toContain('made');
    expect(bash!.content).toMatch(/exit code 3/i);
    expect(failed(bash, provider)).toBe(true);
  });

  it('refuses Bash in print mode without permission, and tells the model why', async () => {
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: 'touch should-not-exist' } }] }, { text: 'Understood, I could not run it.' });
    const r = await run(['-p', 'run it']);
    expect(r.code).toBe(0);
    expect(existsSync(join(ws.dir, 'should-not-exist'))).toBe(false);
    const [bash] = toolResultsIn(2);
    expect(failed(bash, provider)).toBe(true);
    expect(bash!.content).toMatch(/needs the user's approval.*non-interactive/);
    expect(bash!.content).toContain('--permission-mode allow');
  });

  it('runs an allow-listed Bash prefix from .agentrc but not a chained command', async () => {
    ws = workspace({ permissions: { allowBash: ['echo'] } });
    server.enqueue(
      {
        toolCalls: [
          { name: 'Bash', input: { command: 'echo listed' } },
          { name: 'Bash', input: { command: 'echo x; touch chained' } },
        ],
      },
      { text: 'ok' },
    );
    const r = await run(['-p', 'go']);
    expect(r.code).toBe(0);
    const [allowed, chained] = toolResultsIn(2);
    expect(allowed!.content).toContain('listed');
    expect(failed(allowed, provider)).toBe(false);
    expect(failed(chained, provider)).toBe(true);
    expect(existsSync(join(ws.dir, 'chained'))).toBe(false);
  });

  it('retries rate limits and overload, then answers', async () => {
    server.enqueue(
      { type: 'error', error: 'rate_limit', retryAfterMs: 1 },
      { type: 'error', error: 'overloaded' },
      { type: 'error', error: 'server' },
      { text: 'Third time lucky.' },
    );
    const r = await run(['-p', 'hi']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('Third time lucky.');
    expect(server.requests).toHaveLength(4);
    expect(r.stderr.match(/retrying in/g)).toHaveLength(3);
    // our loop retries; the SDK's own retries are off
    expect(server.requests.map((q) => q.headers['x-stainless-retry-count'])).toEqual(['0', '0', '0', '0']);
  });

  it('gives up after the configured attempts with the provider message', async () => {
    ws = workspace({ retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 } });
    server.enqueue({ type: 'error', error: 'overloaded' }, { type: 'error', error: 'overloaded' });
    const r = await run(['-p', 'hi', '--output-format', 'json']);
    expect(r.code).toBe(1);
    const result = jsonResult(r);
    expect(result).toMatchObject({ is_error: true, subtype: 'error_during_execution', agent_stop_reason: 'error' });
    expect(server.requests).toHaveLength(2);
  });

  it('retries a stream dropped mid-way without keeping half a message', async () => {
    server.enqueue({ text: 'This reply will be cut off somewhere in the middle of it.', cut: { afterFrames: 4, how: 'drop' } }, { text: 'Complete reply.' });
    const r = await run(['-p', 'hi', '--output-format', 'json']);
    expect(r.code).toBe(0);
    const result = jsonResult(r);
    expect(result.result).toBe('Complete reply.');
    const show = await runAgent(['sessions', 'show', String(result.session_id)], { ws });
    expect(show.stdout).toContain('Complete reply.');
    expect(show.stdout).not.toContain('cut off');
    expect(show.stdout.match(/## assistant/g)).toHaveLength(1);
  });

  it("prints Claude Code's json result with session id, usage and turn count", async () => {
    server.enqueue({ text: 'Answer.', usage: { inputTokens: 1234, outputTokens: 56 } });
    const r = await run(['-p', 'q', '--output-format', 'json']);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const result = jsonResult(r);
    expect(result).toMatchObject({ type: 'result', subtype: 'success', result: 'Answer.', is_error: false, num_turns: 1, stop_reason: 'end_turn' });
    expect(result.session_id).toMatch(/^s_/);
    expect(result.usage).toMatchObject({ input_tokens: 1234, output_tokens: 56 });
  });

  it('streams one event of its own per line with --output-format events', async () => {
    server.enqueue({ text: 'Streaming words here.', toolCalls: [{ name: 'Glob', input: { pattern: '*.txt' } }] }, { text: 'Done.' });
    const r = await run(['-p', 'q', '--output-format', 'events']);
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('turn_start');
    expect(types).toContain('text_delta');
    expect(types).toContain('tool_start');
    expect(types).toContain('tool_end');
    expect(types.filter((t) => t === 'usage')).toHaveLength(2);
    expect(types.at(-2)).toBe('context');
    expect(types.at(-1)).toBe('result');
    // the turn's text keeps each step's text apart
    const end = events.find((e) => e.type === 'turn_end') as { text: string } | undefined;
    expect(end?.text).toBe('Streaming words here.\n\nDone.');
  });

  it('events turn_end.text joins a reply cut at max_tokens and its continuation without a break', async () => {
    server.enqueue({ text: 'The first half ', stop: 'max_tokens' }, { text: 'and the second half.' });
    const r = await run(['-p', 'q', '--output-format', 'events']);
    expect(r.code, r.stderr).toBe(0);
    const end = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; text?: string })
      .find((e) => e.type === 'turn_end');
    expect(end?.text).toBe('The first half and the second half.');
  });

  it('takes the prompt from stdin', async () => {
    server.enqueue({ text: 'Got it.' });
    const r = await run(['-p'], { stdin: 'a prompt from a pipe\n' });
    expect(r.code).toBe(0);
    const users = server.requests[0]!.view!.messages.filter((m) => m.role === 'user');
    expect(JSON.stringify(users)).toContain('a prompt from a pipe');
  });

  it('names the variable to set when the key is missing', async () => {
    const envVar = provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY';
    // (a custom OPENAI_BASE_URL would mean a keyless local server, so it goes too)
    const r = await run(['-p', 'hi'], { env: { [envVar]: undefined, OPENAI_BASE_URL: undefined } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`set ${envVar}`);
    expect(server.requests).toHaveLength(0);
  });

  it('reports a bad API key without retrying and without echoing it', async () => {
    server.enqueue({ type: 'error', error: 'auth' });
    const r = await run(['-p', 'hi']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(provider === 'anthropic' ? /ANTHROPIC_API_KEY/ : /OPENAI_API_KEY/);
    expect(r.stderr).not.toContain(KEY[provider]);
    expect(server.requests).toHaveLength(1);
  });

  it('never writes the API key to the database or the debug log', async () => {
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: 'env | grep -i key; echo done' } }] }, { text: `I will not repeat ${KEY[provider]}.` });
    const log = join(ws.root, 'debug.log');
    const r = await run(['-p', `my key is ${KEY[provider]}`, '--permission-mode', 'allow', '--debug', log]);
    expect(r.code).toBe(0);
    const dataDir = dirname(ws.db);
    // the data folder's files, those in its folders too (the checkpoints' shadow store, issue 46)
    const files = [
      ...readdirSync(dataDir, { recursive: true, encoding: 'utf8' })
        .map((f) => join(dataDir, f))
        .filter((f) => statSync(f).isFile()),
      log,
    ];
    expect(files.some((f) => f.endsWith('agent.db'))).toBe(true);
    for (const f of files) expect(readFileSync(f).includes(Buffer.from(KEY[provider])), f).toBe(false);
    expect(r.stdout).not.toContain(KEY[provider]);
  });
});

describe('print mode: configuration errors', () => {
  it('names the file and field of a bad .agentrc and exits 2', async () => {
    const ws = workspace({ compaction: { tailTurns: 'three' } });
    const r = await runAgent(['-p', 'hi'], { ws, server });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(join(ws.dir, '.agentrc'));
    expect(r.stderr).toContain('field "compaction.tailTurns"');
  });

  it('reports malformed JSON in the home .agentrc', async () => {
    const ws = workspace();
    writeFileSync(join(ws.home, '.agentrc'), '{ "model": ');
    const r = await runAgent(['-p', 'hi'], { ws, server });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(ws.home, '.agentrc')}: not valid JSON`);
  });

  it('rejects an unknown flag and a bad choice as usage errors', async () => {
    const ws = workspace();
    expect((await runAgent(['-p', 'hi', '--bogus'], { ws, server })).code).toBe(2);
    const r = await runAgent(['-p', 'hi', '--output-format', 'xml'], { ws, server });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--output-format');
  });

  it('asks for an id when --resume has none in print mode', async () => {
    const ws = workspace();
    const r = await runAgent(['-p', 'hi', '--resume'], { ws, server });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--resume needs a session id in print mode');
  });

  it('says when there is no prompt', async () => {
    const ws = workspace();
    const r = await runAgent(['-p'], { ws, server, stdin: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no prompt');
  });

  it('warns about an unknown model and still runs it', async () => {
    const ws = workspace();
    server.enqueue({ text: 'local answer' });
    const r = await runAgent(['-p', 'hi', '--model', 'qwen-local', '--provider', 'openai'], { ws, server, provider: 'openai' });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: Unknown model "qwen-local": assuming a 32,768-token context window/);
    expect(server.requests[0]!.view!.maxTokensField).toBe('max_tokens');
  });
});
