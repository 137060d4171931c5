import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, workspace, useFakeServer } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// Issue 30 item 14: a custom command showed as its expanded body in the transcript. It shows as
// typed, live and after --continue; the model gets the body after Claude Code's tags naming it.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

describe.skipIf(!hasTmux)('a custom command in the transcript', () => {
  it('shows as typed, live and after --continue; the model gets the body', async () => {
    const ws = workspace();
    mkdirSync(join(ws.dir, '.claude', 'commands'), { recursive: true });
    writeFileSync(
      join(ws.dir, '.claude', 'commands', 'review.md'),
      '---\ndescription: Review a file\n---\nPlease review the file $ARGUMENTS and list BODYMARKER issues.\n',
    );
    server.enqueue({ text: 'Reviewed it.' });
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN], cwd: ws.dir, env, width: 120, height: 40 });
    await term.waitFor('Ask for a change');
    term.type('/review src/a.ts');
    term.keys('Enter');
    await term.waitFor('Reviewed it.');
    // mutation: the transcript's userText without typedCommand shows the body again
    expect(term.screen()).toContain('❯ /review src/a.ts');
    expect(term.screen()).not.toContain('BODYMARKER');
    const sent = JSON.stringify(server.requests.at(-1)?.view?.messages ?? []);
    expect(sent).toContain('<command-name>/review</command-name>\\n<command-args>src/a.ts</command-args>');
    expect(sent).toContain('Please review the file src/a.ts and list BODYMARKER issues.');
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);
    term.kill();

    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--continue'], cwd: ws.dir, env, width: 120, height: 40 });
    await term.waitFor('Reviewed it.');
    expect(term.screen()).toContain('❯ /review src/a.ts');
    expect(term.screen()).not.toContain('BODYMARKER');
  });
});
