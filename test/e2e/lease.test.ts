import { describe, expect, it } from 'vitest';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { toolUses, type Message } from '../../src/llm/messages.js';
import { readOnlyCopy } from '../../src/sessionLookup.js';
import { openStore } from '../../src/store/index.js';
import { acpClient } from './acpClient.js';
import { jsonResult, runAgent, workspace, useFakeServer, type RunResult, type Workspace } from './harness.js';
import { runAgent as runInProcess } from './inprocess.js';

// One writer per session, with real processes: two `agent -p … --resume <id>` at once against
// the fake server; --fork; `sessions rm` of a session in use; a dead writer's lease taken over;
// an editor's `agent acp` refused a session another agent process writes. The lease between
// processes is the subject, so the writer holding it (or killed holding it) and the two writers
// started at once are processes of their own; the runs that only set a session up, or meet the
// holder's lease (refused, forking, reading a copy, removing, taking over a dead one), run in
// this process, which is another process to the holder all the same.

const server = useFakeServer();
const { withAgent } = acpClient(server);

async function until(cond: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A stored session with one finished turn; returns its id. */
async function firstTurn(ws: Workspace): Promise<string> {
  server.enqueue({ text: 'Ready.' });
  const r = await runInProcess(['-p', 'get ready', '--output-format', 'json'], { ws, server });
  expect(r.code, r.stderr).toBe(0);
  return String(jsonResult(r).session_id);
}

const release = (ws: Workspace): void => writeFileSync(join(ws.dir, 'go'), '');

function stored(ws: Workspace, id: string): Message[] {
  const store = openStore(ws.db);
  try {
    return store.loadVisible(id);
  } finally {
    store.close();
  }
}

/** Starts a turn whose Bash call waits until release(ws) (at most 20 s), so the process holds the session until then. */
function slowTurn(ws: Workspace, id: string, onSpawn?: (c: ChildProcess) => void): Promise<RunResult> {
  const command = 'for i in $(seq 1 400); do [ -e go ] && break; sleep 0.05; done; echo slept';
  server.enqueue({ toolCalls: [{ name: 'Bash', input: { command } }] }, { text: 'Slept well.' });
  return runAgent(['-p', 'sleep a bit', '--resume', id, '--permission-mode', 'allow', '--output-format', 'json'], {
    ws,
    server,
    timeoutMs: 30_000,
    ...(onSpawn ? { onSpawn } : {}),
  });
}

describe('session lease with real processes', () => {
  it('a second writer of the same session is refused (exit 2, naming the pid); --fork continues a copy', async () => {
    const ws = workspace();
    const id = await firstTurn(ws);
    let firstPid = 0;
    const first = slowTurn(ws, id, (c) => (firstPid = c.pid!));
    await until(() => server.requests.length >= 2, 'the first process to call the model');

    const second = await runInProcess(['-p', 'me too', '--resume', id, '--permission-mode', 'allow'], { ws, server });
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`session ${id} is in use by pid ${firstPid}`);
    expect(second.stderr).toContain('--fork');

    const rm = await runInProcess(['sessions', 'rm', id, '--yes'], { ws });
    expect(rm.code).toBe(2);
    expect(rm.stderr).toContain(`session ${id} is in use by pid ${firstPid}`);

    // the first process's reply is still queued: the fork is answered by its prompt
    server.respondWith((req) =>
      req.view.messages.some((m) => m.blocks.some((b) => b.type === 'text' && b.text === 'work on a copy')) ? { text: 'Answered in the fork.' } : undefined,
    );
    const fork = await runInProcess(['-p', 'work on a copy', '--resume', id, '--fork', '--output-format', 'json'], { ws, server });
    expect(fork.code, fork.stderr).toBe(0);
    const forkId = String(jsonResult(fork).session_id);
    expect(forkId).not.toBe(id);
    expect(fork.stderr).toContain(`Forked session ${id} into ${forkId}`);

    release(ws);
    const done = await first;
    expect(done.code, done.stderr).toBe(0);
    expect(jsonResult(done).result).toBe('Slept well.');
    // the original holds exactly its own turns, in order; the fork has the copy plus its own
    // the agent's own notes (today's date) are not turns
    const history = stored(ws, id).filter((m) => m.kind !== 'meta');
    const texts = history.map((m) => (m.role === 'user' && m.blocks[0]?.type === 'text' ? m.blocks[0].text : m.role));
    expect(texts).toEqual(['get ready', 'assistant', 'sleep a bit', 'assistant', 'user', 'assistant']);
    expect(stored(ws, forkId).some((m) => m.blocks.some((b) => b.type === 'text' && b.text === 'Answered in the fork.'))).toBe(true);

    // once the writer is gone the session can be removed
    const rmAfter = await runInProcess(['sessions', 'rm', id, '--yes'], { ws });
    expect(rmAfter.code, rmAfter.stderr).toBe(0);
  });

  it('a view command (/todos) of a session another process writes reads a copy instead of refusing, and leaves no copy behind', async () => {
    const ws = workspace();
    server.enqueue(
      { toolCalls: [{ name: 'TodoWrite', input: { todos: [{ content: 'Ship the fix', status: 'in_progress', activeForm: 'Shipping the fix' }] } }] },
      { text: 'Planned.' },
    );
    const r = await runInProcess(['-p', 'plan it', '--output-format', 'json'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    const id = String(jsonResult(r).session_id);
    const first = slowTurn(ws, id);
    await until(() => server.requests.length >= 3, 'the writer to call the model');
    // mutation: refusing as for a writer ("is in use by pid …", exit 2)
    const todos = await runInProcess(['-p', '/todos', '--resume', id], { ws, server });
    expect(todos.code, todos.stderr).toBe(0);
    expect(todos.stdout).toContain('Ship the fix');
    // a turn still needs the lease
    const turn = await runInProcess(['-p', 'me too', '--resume', id], { ws, server });
    expect(turn.code).toBe(2);
    release(ws);
    expect((await first).code).toBe(0);
    const store = openStore(ws.db);
    try {
      expect(store.listSessions().map((s) => s.id)).toEqual([id]);
    } finally {
      store.close();
    }
  });

  it('a copy left by a killed view command is removed at the next start, and --continue takes the session, not the copy', async () => {
    const ws = workspace();
    const id = await firstTurn(ws);
    // what `-p /todos --continue` killed mid-run leaves: its copy, leased by a process that is gone
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const store = openStore(ws.db);
    let left: string;
    let live: string;
    try {
      const info = store.getSession(id)!;
      left = readOnlyCopy(store, info, ws.dir).id;
      store.acquireLease(left, { token: 'killed', pid: dead, host: hostname() }, () => false);
      // one another run still reads stays: its reader is a live process other than the run's
      // (vitest's own; the run below is in this process, whose own leases count as stale)
      live = readOnlyCopy(store, info, ws.dir).id;
      store.acquireLease(live, { token: 'reading', pid: process.ppid, host: hostname() }, () => false);
    } finally {
      store.close();
    }
    server.enqueue({ text: 'Continued.' });
    const r = await runInProcess(['-p', 'go on', '--continue', '--output-format', 'json'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    // mutations: --continue taking the latest session even when it is a copy continues the live one (exit 2, 'in use');
    // no removeLeftoverCopies at start leaves the dead one (the list below)
    expect(String(jsonResult(r).session_id)).toBe(id);
    const after = openStore(ws.db);
    try {
      expect(
        after
          .listSessions()
          .map((s) => s.id)
          .sort(),
      ).toEqual([id, live].sort());
    } finally {
      after.close();
    }
  });

  it('two writers started at once: exactly one runs, the history stays valid for every later turn', async () => {
    const ws = workspace();
    const id = await firstTurn(ws);
    const waitForGo = 'for i in $(seq 1 400); do [ -e go ] && break; sleep 0.05; done; echo hi';
    for (let round = 0; round < 3; round++) {
      rmSync(join(ws.dir, 'go'), { force: true });
      server.respondWith((req) =>
        req.view.messages.at(-1)?.blocks.some((b) => b.type === 'tool_result')
          ? { text: `done ${round}` }
          : { toolCalls: [{ name: 'Bash', input: { command: waitForGo } }] },
      );
      // the winner holds the session until the loser has been refused, whatever the machine's load
      const runs = ['left', 'right'].map((who) =>
        runAgent(['-p', `${who} ${round}`, '--resume', id, '--permission-mode', 'allow', '--output-format', 'json'], { ws, server, timeoutMs: 30_000 }),
      );
      const refused = await Promise.race(runs);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(/is in use by pid \d+/);
      release(ws);
      const codes = (await Promise.all(runs)).map((r) => r.code).sort();
      expect(codes).toEqual([0, 2]);
    }
    // every request the server received was valid (it answers 400 to a broken history as the API does)
    for (const req of server.requests) expect(req.response?.status, JSON.stringify(req.response)).toBe(200);
    const history = stored(ws, id);
    history.forEach((m, i) => {
      if (m.role === 'assistant' && toolUses(m).length > 0) expect(history[i + 1]?.role).toBe('user');
      if (m.role === 'assistant') expect(history[i - 1]?.role).toBe('user');
    });
  });

  it('the lease of a killed writer is taken over, and the interrupted call is repaired and reported', async () => {
    const ws = workspace();
    const id = await firstTurn(ws);
    let child: ChildProcess | undefined;
    const killed = slowTurn(ws, id, (c) => (child = c));
    await until(() => server.requests.length >= 2, 'the first process to call the model');
    // the Bash call is running: kill the writer without letting it clean up
    await new Promise((r) => setTimeout(r, 300));
    child!.kill('SIGKILL');
    expect((await killed).signal).toBe('SIGKILL');
    release(ws); // the orphaned command ends too

    server.clear();
    server.enqueue({ text: 'Back again.' });
    const resumed = await runInProcess(['-p', 'carry on', '--resume', id, '--output-format', 'json'], { ws, server });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`Repaired the stored history of session ${id}: 1 tool call without a result closed as interrupted`);
    expect(server.requests[0]!.response?.status).toBe(200);
  });

  it('ACP: a session open in another agent is refused by what to do, not an internal error', async () => {
    const ws = workspace();
    // the writer: an editor's agent in this process, holding the session it prompted
    await withAgent(
      ws,
      () => 'allow_once',
      async (ctx) => {
        await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
        const session = await ctx.buildSession(ws.dir).start();
        server.enqueue({ text: 'Started it.' });
        expect((await session.prompt('start the server')).stopReason).toBe('end_turn');
        // a second agent process (the TUI, another editor) cannot load what this one writes
        const sessionId = session.sessionId;
        const refused = await withAgent(
          ws,
          () => 'reject',
          async (other) => {
            await other.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
            return other.request('session/load', { sessionId, cwd: ws.dir, mcpServers: [] }).then(
              () => 'loaded',
              (e: unknown) => (e instanceof Error ? e.message : String(e)),
            );
          },
          undefined,
          'spawned',
        );
        // mutation: session/load without inUse() answered "Internal error" with the CLI's --fork advice
        expect(refused).toMatch(new RegExp(`session ${sessionId} is open in another agent \\(pid \\d+\\), which is writing it: close it there`));
        expect(refused).not.toMatch(/Internal error|--fork/);
      },
    );
  }, 60_000);
});
