import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, workspace, useFakeServer } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// Leaving the app says which session it was and how to continue it (issue 26; as Codex does),
// and the command it prints does continue that session.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

describe.skipIf(!hasTmux)('exiting the TUI', () => {
  it('prints the session id and the command that resumes it; an empty session prints nothing', async () => {
    const ws = workspace();
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    const open = (args: string[] = []): Tmux => new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5', ...args], cwd: ws.dir, env });

    term = open();
    await term.waitFor('Ask for a change');
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);
    expect(term.screen()).not.toContain('agent --resume');
    term.kill();

    term = open();
    await term.waitFor('Ask for a change');
    server.enqueue({ text: 'Remembered the walrus.' });
    term.type('remember the walrus');
    term.keys('Enter');
    await term.waitFor('Remembered the walrus.');
    expect(await term.exitWithCtrlC()).toBe(0);
    const m = /Session (\S+) saved\. To continue it: agent --resume (\S+)/.exec(term.screen());
    expect(m).not.toBeNull();
    expect(m![2]).toBe(m![1]);
    term.kill();

    term = open(['--resume', m![1]!]);
    await term.waitFor('Remembered the walrus.');
  });
});
