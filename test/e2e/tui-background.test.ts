import { processesMatching } from '../processTable.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, useFakeServer, workspace } from './inprocess.js';
import { waitForIdle } from './screenWaits.js';
import { hasTmux, Tmux } from './terminal.js';

// The TUI with background commands: the footer counts them, /tasks opens a panel listing them
// (state, time, output size) whose keys view the selected one's last lines (Ctrl+O), stop it (s)
// or all of them (a) and close it (Esc); the processes are gone and the footer count with them.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

const running = (marker: string): string[] => processesMatching(marker).filter((l) => !l.includes('agent.js'));

describe.skipIf(!hasTmux)('background commands in the TUI', () => {
  it('footer count, the /tasks panel: view, stop one, stop all, Esc', async () => {
    const ws = workspace();
    const secs = `300.${process.pid}${Math.floor(Math.random() * 1e6)}`;
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5', '--permission-mode', 'allow'], cwd: ws.dir, env, width: 140 });
    await term.waitFor('claude-sonnet-4-5');
    term.type(`@call Bash {"command":"echo hello-from-bg; sleep ${secs}","run_in_background":true}`);
    term.keys('Enter');
    // mutation: no background_status event leaves the footer without the count
    await term.waitFor('1 background');
    term.type(`@call Bash {"command":"echo second-bg; sleep ${secs}1","run_in_background":true}`);
    term.keys('Enter');
    await term.waitFor('2 background');
    term.type('/tasks');
    term.keys('Enter');
    // mutation: /tasks printed as text (no panel) shows no selection mark and no keys line
    await term.waitFor(/❯ b1\s+running\s+[\d.]+m?s\s+[\d.,]+ [KM]?B\s+echo hello-from-bg; sleep/);
    await term.waitFor('s: stop · a: stop all');
    term.keys('Down');
    await term.waitFor(/❯ b2\s+running/);
    term.keys('C-o');
    await term.waitFor(/b2 · running · \$ echo second-bg[^\n]*\n[\s\S]*second-bg/);
    expect(running(`sleep ${secs}`)).toHaveLength(2);
    term.type('s');
    await term.waitFor('Stopped b2');
    // the panel's row follows: b2 stopped, the footer down to one
    await term.waitFor(/b2\s+stopped/);
    await term.waitFor('1 background');
    expect(running(`sleep ${secs}1`)).toEqual([]);
    expect(running(`sleep ${secs}`)).toHaveLength(1);
    term.type('a');
    await term.waitFor('Stopped 1 background command.');
    await term.waitFor(/b1\s+stopped/);
    term.keys('Escape');
    const deadline = Date.now() + 15_000;
    while (term.screen(0).includes('s: stop · a: stop all') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    // the visible screen (no scrollback) loses the panel and the footer's count
    expect(term.screen(0)).not.toContain('s: stop · a: stop all');
    expect(term.screen(0)).not.toMatch(/1 background(?! command)/);
    expect(running(`sleep ${secs}`)).toEqual([]);
  }, 60_000);

  it('a background command that exits while the TUI is idle is shown as it ends, not at the next prompt', async () => {
    const ws = workspace();
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5', '--permission-mode', 'allow'], cwd: ws.dir, env, width: 140 });
    await term.waitFor('claude-sonnet-4-5');
    // the server "crashes" once the turn is over (the test says when: the file crash appears); nobody types anything after
    term.type('@call Bash {"command":"echo dev-server-up; until [ -e crash ]; do sleep 0.1; done; echo boom; exit 3","run_in_background":true}');
    term.keys('Enter');
    await term.waitFor('1 background');
    await term.waitFor('● Done.');
    await waitForIdle(term);
    writeFileSync(join(ws.dir, 'crash'), '');
    // mutation: without the TUI's onExit notice nothing says so until the next prompt (this wait fails)
    await term.waitFor(/Background command b1 ended: exit code 3 after [\d.]+m?s — echo dev-server-up/);
    expect(server.requests.filter((r) => r.view).length, 'no request was needed to learn of it').toBe(2);
  }, 60_000);

  it('Ctrl+B moves the running Bash command to the background: the turn goes on, the footer counts it', async () => {
    const ws = workspace();
    const secs = `300.${process.pid}${Math.floor(Math.random() * 1e6)}`;
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5', '--permission-mode', 'allow'], cwd: ws.dir, env, width: 140 });
    await term.waitFor('claude-sonnet-4-5');
    // the output (fg-2-started) differs from what is typed, so the screen shows it only once the command runs
    term.type(`@bash echo fg-$((1+1))-started; sleep ${secs}`);
    term.keys('Enter');
    await term.waitFor('fg-2-started');
    // mutation: no Ctrl+B binding leaves the turn waiting on the 300 s sleep
    term.keys('C-b');
    await term.waitFor('The person moved the command to the background as b1');
    await term.waitFor('● Done.');
    await term.waitFor('1 background');
    expect(running(`sleep ${secs}`)).toHaveLength(1);
    term.type('/tasks stop all');
    term.keys('Enter');
    await term.waitFor('Stopped 1 background command.');
    expect(running(`sleep ${secs}`)).toEqual([]);
  }, 60_000);

  it('the exit asks about running background commands: Enter stops them, n leaves them running with their pids', async () => {
    const ws = workspace();
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    const open = (): Tmux =>
      new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5', '--permission-mode', 'allow'], cwd: ws.dir, env, width: 140 });
    const start = async (secs: string): Promise<void> => {
      await term!.waitFor('claude-sonnet-4-5');
      term!.type(`@call Bash {"command":"sleep ${secs}","run_in_background":true}`);
      term!.keys('Enter');
      await term!.waitFor('1 background');
      // the turn ends first: Ctrl+D mid-turn closes the store under it (its last message is then unsaved, a question of its own)
      await term!.waitFor('● Done.');
    };

    // the default: stopped
    const first = `300.${process.pid}${Math.floor(Math.random() * 1e6)}`;
    term = open();
    await start(first);
    term.keys('C-d');
    // mutation: no question at the exit (the session's close stops them, or the process exit kills them) shows no prompt
    await term.waitFor(/A background command is still running:\n\s+b1\s+pid \d+\s+sleep 300[\s\S]*Stop it\? \[Y\/n\]/);
    expect(running(`sleep ${first}`)).toHaveLength(1);
    term.keys('Enter');
    await term.waitFor('Stopped 1 background command.');
    expect(await term.waitForExit()).toBe(0);
    expect(running(`sleep ${first}`)).toEqual([]);
    term.kill();

    // n: left running, detached, its pid named
    const second = `300.${process.pid}${Math.floor(Math.random() * 1e6)}`;
    term = open();
    await start(second);
    term.type('/exit');
    term.keys('Enter');
    await term.waitFor('Stop it? [Y/n]');
    term.type('n');
    term.keys('Enter');
    const screen = await term.waitFor(/The background command left running \(detached\): b1 `sleep 300[^`]*` \(pid (\d+)\)/);
    const pid = Number(/left running \(detached\): b1 `sleep 300[^`]*` \(pid (\d+)\)/.exec(screen)?.[1]);
    try {
      expect(await term.waitForExit()).toBe(0);
      // mutation: detachAll that leaves the group in the registry (SIGKILLed at the exit) fails here
      expect(running(`sleep ${second}`)).toHaveLength(1);
    } finally {
      if (pid > 0) process.kill(-pid, 'SIGTERM');
    }
  }, 60_000);
});
