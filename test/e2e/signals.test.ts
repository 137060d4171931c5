import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, MODEL, runAgent, useFakeServer, workspace, type Workspace } from './harness.js';
import { hasTmux, Tmux } from './tmux.js';
import { processesMatching } from '../processTable.js';

// Stopping the agent stops its children: SIGTERM, SIGHUP and SIGINT to the agent (print mode
// and the TUI) end every child process group it started — a Bash command's `sleep`, a hook, an
// MCP stdio server that ignores SIGTERM and the end of its input — before it exits, and the
// process table shows none of them afterwards. Before the fix a SIGTERM killed the agent alone
// (Node's default action runs no exit handler) and the `sleep 300` ran on.

const server = useFakeServer();
const FAILING = resolve(__dirname, '..', 'mcp', 'failing-server.mjs');
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

/** Processes (not zombies) whose command line contains `marker`, as `pid state args` lines. */
const running = processesMatching;

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A sleep only this test runs: `sleep 300.<unique>` (GNU sleep takes a fraction). */
const uniqueSleep = (): string => `300.${process.pid}${Math.floor(Math.random() * 1e6)}`;

/** A project with a stubborn MCP server (ignores SIGTERM and its stdin closing), marked by the workspace's path. */
function withStubbornServer(ws: Workspace): void {
  writeFileSync(join(ws.dir, '.mcp.json'), JSON.stringify({ mcpServers: { stub: { command: 'node', args: [FAILING, ws.root], env: { STUBBORN: '1' } } } }));
}

describe('a signal to print mode', () => {
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
    it(`${signal} while Bash runs \`sleep 300\`: the sleep and the MCP server are gone when the agent has exited (${signal === 'SIGTERM' ? 143 : 129})`, async () => {
      const ws = workspace();
      withStubbornServer(ws);
      const secs = uniqueSleep();
      const r = await runAgent(['-p', `@bash sleep ${secs}`, '--permission-mode', 'allow', '--mcp-trust'], {
        ws,
        server,
        timeoutMs: 30_000,
        onSpawn: (child) => {
          void until(() => running(`sleep ${secs}`).length > 0 && running(ws.root).some((l) => l.includes('failing-server')), 20_000, 'the sleep')
            .then(() => child.kill(signal))
            .catch(() => child.kill('SIGKILL'));
        },
      });
      expect(r.code, r.stderr).toBe(signal === 'SIGTERM' ? 143 : 129);
      expect(running(`sleep ${secs}`)).toEqual([]);
      expect(running(ws.root).filter((l) => l.includes('failing-server'))).toEqual([]);
    }, 40_000);
  }

  it('`timeout` (SIGTERM to the agent and its group) leaves no sleep behind', async () => {
    const ws = workspace();
    const secs = uniqueSleep();
    const child = spawn(
      'timeout',
      ['-s', 'TERM', '6', process.execPath, AGENT_BIN, '-p', `@bash sleep ${secs}`, '--permission-mode', 'allow', '--model', MODEL.anthropic],
      {
        cwd: ws.dir,
        env: agentEnv({ ws, server }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    // the command ran (its output never came: it was stopped) and timeout reported its own expiry
    expect(code, stderr).toBe(124);
    expect(server.requests.length).toBeGreaterThanOrEqual(1);
    expect(running(`sleep ${secs}`)).toEqual([]);
  }, 40_000);

  // passed before the fix too (print mode's Ctrl+C already interrupted the turn): it pins that path
  it('Ctrl+C (SIGINT) while a hook runs: the turn is interrupted and the hook killed with its group', async () => {
    const ws = workspace();
    const secs = uniqueSleep();
    writeFileSync(join(ws.dir, '.agentrc'), JSON.stringify({ hooks: { UserPromptSubmit: [{ command: `sleep ${secs}` }] } }));
    const r = await runAgent(['-p', 'hello', '--hooks-trust'], {
      ws,
      server,
      timeoutMs: 30_000,
      onSpawn: (child) => {
        void until(() => running(`sleep ${secs}`).length > 0, 20_000, 'the hook')
          .then(() => child.kill('SIGINT'))
          .catch(() => child.kill('SIGKILL'));
      },
    });
    expect(r.signal).toBeNull();
    expect(running(`sleep ${secs}`)).toEqual([]);
  }, 40_000);
});

describe.skipIf(!hasTmux)('a signal to the TUI', () => {
  it('SIGTERM while Bash runs `sleep 300` and a stubborn MCP server is up: nothing is left, the terminal is given back, exit 143', async () => {
    const ws = workspace();
    withStubbornServer(ws);
    writeFileSync(join(ws.home, '.agentrc'), JSON.stringify({ mcp: { trustProject: true } }));
    const secs = uniqueSleep();
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5', '--permission-mode', 'allow'], cwd: ws.dir, env });
    await term.waitFor('MCP 1✓');
    term.type(`@bash sleep ${secs}`);
    term.keys('Enter');
    // the pid of the first sight is kept: the same process execs twice (the outer shell, the
    // command's shell, then sleep), and a read of its command line in the middle of an exec can
    // come back empty, so a second look may miss it (a clean-clone run failed on that)
    let sleepLine: string | undefined;
    await until(() => (sleepLine = running(`sleep ${secs}`)[0]) !== undefined, 20_000, 'the sleep');
    // the sleep's parent is the agent (the shell execs it)
    const sleepPid = sleepLine!.split(/\s+/)[0]!;
    const agentPid = Number(spawnSync('ps', ['-o', 'ppid=', '-p', sleepPid]).stdout.toString().trim());
    expect(spawnSync('ps', ['-o', 'args=', '-p', String(agentPid)]).stdout.toString()).toContain('agent.js');
    process.kill(agentPid, 'SIGTERM');
    expect(await term.waitForExit(15_000)).toBe(143);
    expect(running(`sleep ${secs}`)).toEqual([]);
    expect(running(ws.root).filter((l) => l.includes('failing-server'))).toEqual([]);
  }, 60_000);
});

// Moved from background.test.ts (whose other tests run in-process): the signal is the subject.
describe('a signal to print mode while background commands run', () => {
  /** running(), the agent left out: its command line (the prompt) names the markers too. */
  const runningBut = (marker: string): string[] => running(marker).filter((l) => !l.includes('agent.js'));
  // the sleeps start after a spawned agent's start-up and two turns: under a load of 16 on 2 cores
  // that took over 20 s (the SIGKILL fallback ended the run), so the bounds are 40 s, the run's 50 s

  it('SIGTERM mid-command stops the foreground and the background commands alike', async () => {
    const ws = workspace();
    const bg = uniqueSleep();
    const fg = uniqueSleep();
    const prompt = [`@call Bash {"command":"sleep ${bg}","run_in_background":true}`, '@then', `@bash sleep ${fg}`].join('\n');
    const r = await runAgent(['-p', prompt, '--permission-mode', 'allow'], {
      ws,
      server,
      timeoutMs: 50_000,
      onSpawn: (child) => {
        void until(() => runningBut(`sleep ${bg}`).length > 0 && runningBut(`sleep ${fg}`).length > 0, 40_000, 'both sleeps')
          .then(() => child.kill('SIGTERM'))
          .catch(() => child.kill('SIGKILL'));
      },
    });
    expect([r.code, r.signal, r.stderr]).toEqual([143, null, '']);
    expect(runningBut(`sleep ${bg}`)).toEqual([]);
    expect(runningBut(`sleep ${fg}`)).toEqual([]);
  }, 60_000);

  it('SIGTERM stops what a background command left running with `&` after its shell exited (its group outlives the leader)', async () => {
    const ws = workspace();
    const left = uniqueSleep();
    const fg = uniqueSleep();
    const prompt = [`@call Bash {"command":"sleep ${left} & echo left-running","run_in_background":true}`, '@then', `@bash sleep ${fg}`].join('\n');
    const r = await runAgent(['-p', prompt, '--permission-mode', 'allow'], {
      ws,
      server,
      timeoutMs: 50_000,
      onSpawn: (child) => {
        void until(() => runningBut(`sleep ${left}`).length > 0 && runningBut(`sleep ${fg}`).length > 0, 40_000, 'both sleeps')
          .then(() => child.kill('SIGTERM'))
          .catch(() => child.kill('SIGKILL'));
      },
    });
    const survivors = runningBut(`sleep ${left}`);
    for (const line of survivors) process.kill(Number(line.split(/\s+/)[0]), 'SIGKILL');
    expect([r.code, r.signal]).toEqual([143, null]);
    // mutation: groups.ts forgetting a group when its leader exits (as it did) leaves this sleep running
    expect(survivors).toEqual([]);
    expect(runningBut(`sleep ${fg}`)).toEqual([]);
  }, 60_000);
});
