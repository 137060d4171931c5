import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, workspace, useFakeServer } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// Issue #14 in the TUI (in-process, terminal.ts): ! shell mode, @ mentions with completion, a resize that
// leaves one prompt box on screen, TERM=dumb without boxes, Ctrl+D to leave.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

const boxTops = (screen: string): number => screen.split('\n').filter((l) => l.includes('╭')).length;

describe.skipIf(!hasTmux)('the TUI as a daily driver', () => {
  it('runs !commands without the model, attaches @files, survives a resize, and exits on Ctrl+D', async () => {
    const ws = workspace();
    writeFileSync(join(ws.dir, 'roadmap.md'), 'ship the walrus feature on Friday\n');
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color', CI: 'true' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-6'], cwd: ws.dir, env });
    await term.waitFor('Ask for a change');

    // ! runs in the shell at once: no request reaches the provider
    term.type('!echo from-the-shell-$((6*7))');
    term.keys('Enter');
    await term.waitFor(/✓ Shell echo from-the-shell/);
    await term.waitFor('from-the-shell-42');
    expect(server.requests).toHaveLength(0);

    // @ completes a path with Tab, and the file goes to the model with the prompt (and the note before it)
    server.enqueue({ text: 'Friday, says the roadmap.' });
    term.type('when do we ship? see @road');
    await term.waitFor('▸ @roadmap.md');
    term.keys('Tab');
    await term.waitFor('see @roadmap.md');
    term.keys('Enter');
    await term.waitFor('Friday, says the roadmap.');
    await term.waitFor('attached @roadmap.md');
    const sent = JSON.stringify(server.requests[0]!.view!.messages);
    expect(sent).toContain('ship the walrus feature on Friday');
    expect(sent).toContain('from-the-shell-42');

    // a narrower window: the screen is redrawn, one prompt box, the transcript still there
    term.resize(70, 30);
    await new Promise((r) => setTimeout(r, 800));
    await term.waitFor('Ask for a change');
    const screen = term.screen(0);
    expect(boxTops(screen)).toBe(1);
    expect(term.screen()).toContain('Friday, says the roadmap.');

    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);
  }, 90_000);

  it('draws no boxes and no spinner on a dumb terminal', async () => {
    const ws = workspace();
    const env = { ...agentEnv({ ws, server }), CI: 'true' };
    // as tmux sets TERM in the pane itself, it is set on the command (terminal.ts reads it into the world's environment)
    term = new Tmux({ command: ['env', 'TERM=dumb', process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-6'], cwd: ws.dir, env });
    await term.waitFor('Ask for a change');
    expect(term.screen()).not.toMatch(/[╭╮╰╯]/);
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);
  }, 60_000);
});
