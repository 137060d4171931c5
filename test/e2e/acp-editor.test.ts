import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientApp, PlanEntry, TerminalExitStatus } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { acpClient, until } from './acpClient.js';
import { useFakeServer, workspace } from './harness.js';

// `agent acp` with an editor that offers its buffers (fs/*) and terminals (terminal/*), as ACP
// intends: reads see the unsaved buffer, edits land in it, Bash runs in the editor's terminal
// (shown in the call, killed on cancel), and the task list is the editor's plan.

const server = useFakeServer();
const { withAgent } = acpClient(server);

/** What the model was given as the results of its tool calls, in order. */
const toolResults = (): string[] =>
  server.requests.flatMap((r) => r.view?.messages.at(-1)?.blocks.flatMap((b) => (b.type === 'tool_result' ? [b.content] : [])) ?? []);

describe('agent acp with an editor that offers fs/* and terminal/*', () => {
  it("reads the editor's unsaved buffer and edits land in it, with the permission round trip and the diff", async () => {
    const ws = workspace();
    const file = join(ws.dir, 'notes.txt');
    writeFileSync(file, 'saved line\n');
    // the editor's buffer holds changes not saved to disk
    const buffers = new Map([[file, 'saved line\nunsaved line\n']]);
    const reads: string[] = [];
    const writes: Array<{ path: string; content: string }> = [];
    const offer = (app: ClientApp): ClientApp =>
      app
        .onRequest('fs/read_text_file', ({ params }) => {
          reads.push(params.path);
          return { content: buffers.get(params.path) ?? readFileSync(params.path, 'utf8') };
        })
        .onRequest('fs/write_text_file', ({ params }) => {
          writes.push({ path: params.path, content: params.content });
          buffers.set(params.path, params.content);
          return {};
        });
    server.enqueue(
      { toolCalls: [{ name: 'FileRead', input: { path: 'notes.txt' } }] },
      { toolCalls: [{ name: 'Edit', input: { path: 'notes.txt', old_string: 'unsaved line', new_string: 'edited in the buffer' } }] },
      { text: 'Done.' },
    );
    await withAgent(
      ws,
      () => 'allow_once',
      async (ctx, h) => {
        await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
        const session = await ctx.buildSession(ws.dir).start();
        expect((await session.prompt('edit the notes')).stopReason).toBe('end_turn');
        // mutation: FileRead reading the disk (no file port) shows no "unsaved line", and the Edit is refused as not found
        expect(reads).toContain(file);
        expect(toolResults()[0]).toContain('unsaved line');
        // the permission round trip still shows the edit as a diff
        const ask = h.permissions.at(-1)!;
        expect(ask.toolCall.kind).toBe('edit');
        expect(ask.toolCall.content).toEqual([{ type: 'diff', path: file, oldText: 'unsaved line', newText: 'edited in the buffer' }]);
        // the edit lands in the buffer; the disk is the editor's to save
        expect(toolResults()[1]).toMatch(/^Edited notes\.txt/);
        expect(writes).toEqual([{ path: file, content: 'saved line\nedited in the buffer\n' }]);
        expect(readFileSync(file, 'utf8')).toBe('saved line\n');
        const done = h.updates.map((n) => n.update).filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed');
        expect(done).toHaveLength(2);
      },
      offer,
    );
  }, 60_000);

  it("refuses an edit when the buffer changed since the model read it (the buffer's content, not the disk's time, is what was seen)", async () => {
    const ws = workspace();
    const file = join(ws.dir, 'notes.txt');
    writeFileSync(file, 'saved line\n');
    const buffers = new Map([[file, 'first version\n']]);
    const writes: string[] = [];
    const offer = (app: ClientApp): ClientApp =>
      app
        .onRequest('fs/read_text_file', ({ params }) => ({ content: buffers.get(params.path) ?? '' }))
        .onRequest('fs/write_text_file', ({ params }) => {
          writes.push(params.content);
          return {};
        });
    server.enqueue({ toolCalls: [{ name: 'FileRead', input: { path: 'notes.txt' } }] }, { text: 'Read it.' });
    server.enqueue({ toolCalls: [{ name: 'Edit', input: { path: 'notes.txt', old_string: 'version', new_string: 'draft' } }] }, { text: 'Tried.' });
    await withAgent(
      ws,
      () => 'allow_once',
      async (ctx) => {
        await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
        const session = await ctx.buildSession(ws.dir).start();
        await session.prompt('read the notes');
        // the person types in the editor; the disk (and its time stamp) stays as it was
        buffers.set(file, 'second version\n');
        await session.prompt('edit the notes');
        // mutation: recording the disk's time stamp for a buffer read makes the check pass and the edit land
        expect(toolResults().at(-1)).toMatch(/changed on disk since you read it/);
        expect(writes).toEqual([]);
      },
      offer,
    );
  }, 60_000);

  it("runs Bash in the editor's terminal, shown in the call, and session/cancel kills it within a second", async () => {
    const ws = workspace();
    const terminals = new Map<string, { child: ChildProcess; output: string; exit: Promise<TerminalExitStatus> }>();
    const calls: string[] = [];
    const offer = (app: ClientApp): ClientApp =>
      app
        .onRequest('terminal/create', ({ params }) => {
          calls.push('create');
          const child = spawn(params.command, params.args ?? [], {
            cwd: params.cwd ?? ws.dir,
            env: { ...process.env, ...Object.fromEntries((params.env ?? []).map((v) => [v.name, v.value])) },
          });
          const t = {
            child,
            output: '',
            exit: new Promise<TerminalExitStatus>((r) => child.once('exit', (code, signal) => r({ exitCode: code, signal }))),
          };
          child.stdout!.on('data', (d: Buffer) => (t.output += d.toString('utf8')));
          child.stderr!.on('data', (d: Buffer) => (t.output += d.toString('utf8')));
          const terminalId = `term-${terminals.size + 1}`;
          terminals.set(terminalId, t);
          return { terminalId };
        })
        .onRequest('terminal/output', ({ params }) => {
          calls.push('output');
          return { output: terminals.get(params.terminalId)!.output, truncated: false };
        })
        .onRequest('terminal/wait_for_exit', async ({ params }) => {
          calls.push('wait_for_exit');
          return terminals.get(params.terminalId)!.exit;
        })
        .onRequest('terminal/kill', ({ params }) => {
          calls.push('kill');
          terminals.get(params.terminalId)!.child.kill('SIGTERM');
          return {};
        })
        .onRequest('terminal/release', ({ params }) => {
          calls.push('release');
          terminals.get(params.terminalId)!.child.kill('SIGKILL');
          return {};
        });
    await withAgent(
      ws,
      () => 'allow_once',
      async (ctx, h) => {
        await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: { terminal: true } });
        const session = await ctx.buildSession(ws.dir).start();
        server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: 'echo from-the-terminal; exit 3' } }] }, { text: 'Ran.' });
        expect((await session.prompt('run it')).stopReason).toBe('end_turn');
        // mutation: Bash running locally never creates a terminal (calls stays empty)
        expect(calls).toEqual(['create', 'wait_for_exit', 'output', 'release']);
        expect(toolResults()[0]).toBe('from-the-terminal\n\nExit code 3');
        const updates = h.updates.map((n) => n.update);
        const call = updates.find((u) => u.sessionUpdate === 'tool_call' && u.kind === 'execute');
        const id = call?.sessionUpdate === 'tool_call' ? call.toolCallId : '';
        // the call shows the terminal while it runs and after
        const shown = updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === id);
        expect(shown[0]).toMatchObject({ content: [{ type: 'terminal', terminalId: 'term-1' }] });
        expect(shown.at(-1)).toMatchObject({ status: 'failed', content: [{ type: 'terminal', terminalId: 'term-1' }] });

        // cancel kills the command in the terminal
        server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: 'sleep 30' } }] });
        const running = session.prompt('sleep');
        await until('the sleep running in term-2', () => (terminals.get('term-2') ? true : undefined));
        await new Promise((r) => setTimeout(r, 200));
        const cancelAt = Date.now();
        await ctx.notify('session/cancel', { sessionId: session.sessionId });
        const stopped = await Promise.race([running, new Promise<'late'>((r) => setTimeout(() => r('late'), 3_000))]);
        const took = Date.now() - cancelAt;
        // mutation: not listening to the turn's abort signal leaves sleep 30 running (late)
        expect(stopped, 'the prompt did not end within 3 s of session/cancel').not.toBe('late');
        expect(took).toBeLessThan(1_000);
        expect(stopped !== 'late' && stopped.stopReason).toBe('cancelled');
        expect(calls.slice(4)).toEqual(expect.arrayContaining(['create', 'wait_for_exit', 'kill']));
        expect(await terminals.get('term-2')!.exit).toMatchObject({ signal: 'SIGTERM' });
        await until('the terminal released', () => (calls.filter((c) => c === 'release').length === 2 ? true : undefined));
      },
      offer,
    );
  }, 60_000);

  it('sends the task list as a plan on every change, with ACP statuses and priorities', async () => {
    const ws = workspace();
    const todos = (s1: string, s2: string, s3: string) => ({
      todos: [
        { content: 'Read the code', status: s1 },
        { content: 'Write the fix', status: s2 },
        { content: 'Run the tests', status: s3 },
      ],
    });
    server.enqueue(
      { toolCalls: [{ name: 'TodoWrite', input: todos('in_progress', 'pending', 'pending') }] },
      { toolCalls: [{ name: 'TodoWrite', input: todos('completed', 'in_progress', 'blocked') }] },
      // a list refused (two in progress) changes nothing: no plan update
      { toolCalls: [{ name: 'TodoWrite', input: todos('in_progress', 'in_progress', 'pending') }] },
      { toolCalls: [{ name: 'TodoWrite', input: todos('completed', 'completed', 'cancelled') }] },
      { text: 'All done.' },
    );
    const sessionId = await withAgent(
      ws,
      () => 'allow_once',
      async (ctx, h) => {
        await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
        const session = await ctx.buildSession(ws.dir).start();
        expect((await session.prompt('plan and do it')).stopReason).toBe('end_turn');
        const plans = h.updates.map((n) => n.update).flatMap((u) => (u.sessionUpdate === 'plan' ? [u.entries] : []));
        const e = (content: string, status: PlanEntry['status']): PlanEntry => ({ content, priority: 'medium', status });
        // mutation: sending the plan on tool_start (before the call succeeds) adds the refused list
        expect(plans).toEqual([
          [e('Read the code', 'in_progress'), e('Write the fix', 'pending'), e('Run the tests', 'pending')],
          [e('Read the code', 'completed'), e('Write the fix', 'in_progress'), e('Run the tests (blocked)', 'pending')],
          [e('Read the code', 'completed'), e('Write the fix', 'completed'), e('Run the tests (cancelled)', 'completed')],
        ]);
        return session.sessionId;
      },
    );
    // a new process loading the session shows the list as it stands, then /rewind takes the turn (and the list) back
    await withAgent(
      ws,
      () => 'allow_once',
      async (ctx, h) => {
        await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
        await ctx.request('session/load', { sessionId, cwd: ws.dir, mcpServers: [] });
        const plans = () => h.updates.map((n) => n.update).flatMap((u) => (u.sessionUpdate === 'plan' ? [u.entries] : []));
        expect(plans()).toHaveLength(1);
        expect(plans()[0]!.map((p) => p.status)).toEqual(['completed', 'completed', 'completed']);
        // mutation: sending the plan only after TodoWrite leaves the editor showing the rewound list
        await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/rewind 1 conversation' }] });
        expect(plans()).toHaveLength(2);
        expect(plans().at(-1)).toEqual([]);
      },
    );
  }, 60_000);
});
