import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, jsonResult, runAgent, workspace, useFakeServer } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// Resuming a session from another directory (issue 26): the app says where the session was
// started, that its tools now run here, and how to go back (the session's directory is stored).
// Said once (issue 30), and in every way a session is resumed: --resume <id>, the picker of
// --resume, /resume <id> in a running app; in colour, and with a statusLine set (issue 49: it said nothing, because
// the statusLine's follower subscribed first and took the buffered start-up notices: fixed by
// 69c3d76, cherry-picked here).

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

describe.skipIf(!hasTmux)('resuming from another directory', () => {
  it("says so, with the command that works in the session's own directory; from its own directory nothing is said", async () => {
    const ws = workspace();
    server.enqueue({ text: 'Started here.' });
    const first = await runAgent(['-p', 'start here', '--output-format', 'json'], { ws, server });
    expect(first.code).toBe(0);
    const id = String(jsonResult(first)['session_id']);
    // a statusLine's follower subscribes first (issue 49: it took the early events, this notice among them)
    writeFileSync(join(ws.home, '.agentrc'), JSON.stringify({ statusLine: { type: 'command', command: 'echo status-here' } }));
    const elsewhere = join(ws.root, 'elsewhere');
    mkdirSync(elsewhere);
    const env: NodeJS.ProcessEnv = { ...agentEnv({ ws, server }), TERM: 'xterm-256color', COLORTERM: 'truecolor' };
    delete env.NO_COLOR;

    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--resume', id], cwd: elsewhere, env, width: 160, height: 30 });
    await term.waitFor('Started here.');
    await term.waitFor('This session was started in');
    await new Promise((r) => setTimeout(r, 300));
    // the notice wraps: read it with its line breaks taken out
    const said = term.screen().replace(/\s*\n\s*/g, ' ');
    expect(said).toContain(`This session was started in ${ws.dir}; its tools now run in ${elsewhere}.`);
    expect(said).toContain(`To work there again, exit and run: cd ${ws.dir} && agent --resume ${id}`);
    // issue 30 item 14: said once. When the Markdown renderer loaded after the first frame (a loaded
    // machine), the transcript was printed again after clearing the visible screen only, and tmux
    // kept the first copy in its history; a reply that reads the same rendered is not printed again
    expect(said.split('This session was started in').length - 1, said).toBe(1);
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);
    term.kill();

    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--resume', id], cwd: ws.dir, env, width: 160, height: 30 });
    await term.waitFor('Started here.');
    await new Promise((r) => setTimeout(r, 500));
    expect(term.screen()).not.toContain('This session was started in');
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);
    term.kill();

    // chosen in the picker (`--resume` without an id), and with /resume in a running app: said once each
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--resume'], cwd: elsewhere, env, width: 160, height: 30 });
    await term.waitFor('start here');
    term.keys('Enter');
    await term.waitFor('Started here.');
    await term.waitFor('This session was started in');
    await new Promise((r) => setTimeout(r, 300));
    const picked = term.screen().replace(/\s*\n\s*/g, ' ');
    expect(picked.split('This session was started in').length - 1, picked).toBe(1);
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);
    term.kill();

    term = new Tmux({ command: [process.execPath, AGENT_BIN], cwd: elsewhere, env, width: 160, height: 30 });
    await term.waitFor('Ask for a change');
    term.type(`/resume ${id}`);
    term.keys('Enter');
    await term.waitFor('Started here.');
    await term.waitFor('This session was started in');
    await new Promise((r) => setTimeout(r, 300));
    const switched = term.screen().replace(/\s*\n\s*/g, ' ');
    expect(switched.split('This session was started in').length - 1, switched).toBe(1);
  }, 60_000);
});
// Mutation: SessionController.subscribe handing the early events to the first listener only (69c3d76 undone) fails the
// first wait for 'This session was started in' (checked: it timed out before the cherry-pick).
