import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, workspace, useFakeServer } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// Denied calls after a resume (issue 26): they show as denied (⊘), not as errors (✗), and the
// "Stopped: you denied…" line of a turn the person ended at a denial is still there.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

describe.skipIf(!hasTmux)('denied calls in a resumed session', () => {
  it('show as denied, and the stop line survives', async () => {
    const ws = workspace();
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    const open = (args: string[] = []): Tmux =>
      new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5', ...args], cwd: ws.dir, env, width: 100, height: 40 });
    term = open();
    await term.waitFor('Ask for a change');

    // denied with a note: the model carries on
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: 'rm -rf build' } }] }, { text: 'Left the build alone.' });
    term.type('clean up');
    term.keys('Enter');
    await term.waitFor('Bash wants to run');
    term.keys('3');
    await term.waitFor('— note:');
    term.type('keep it');
    await term.waitFor('— note: keep it');
    term.keys('Enter');
    await term.waitFor('Left the build alone.');

    // denied and stopped with Esc
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: 'git push --force' } }] });
    term.type('publish it');
    term.keys('Enter');
    await term.waitFor('Bash wants to run');
    term.keys('Escape');
    await term.waitFor('Stopped: you denied the call and ended the turn');
    const live = term.screen();
    expect(live).toMatch(/⊘ Bash rm -rf build/);
    expect(live).toMatch(/⊘ Bash git push --force/);
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);
    term.kill();

    term = open(['--continue']);
    await term.waitFor('publish it');
    const resumed = term.screen();
    expect(resumed).toMatch(/⊘ Bash rm -rf build/);
    expect(resumed).toMatch(/⊘ Bash git push --force/);
    expect(resumed).not.toMatch(/✗ Bash/);
    expect(resumed).toContain('Stopped: you denied the call and ended the turn');
  });
});
