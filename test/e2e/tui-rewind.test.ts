import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, useFakeServer, workspace } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// /rewind's picker in a real terminal (issue 30): a turn's title is what the person typed (an
// @attachment used to be glued into it), and a digit in the restore menu selects, as the hint
// and the approval prompts say, where it used to rewind at once (the Enter that followed then
// sent the restored prompt as a new turn). Rewinding on a digit fails the "still open" checks;
// titling a turn with its whole text fails the attachment check.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

describe.skipIf(!hasTmux)('the /rewind picker', () => {
  it('titles turns with what was typed, and selects with a digit until Enter', async () => {
    const ws = workspace({ permissions: { mode: 'acceptEdits' } });
    const file = join(ws.dir, 'config.ts');
    writeFileSync(file, 'export const retries = 3;\n');
    term = new Tmux({ command: [process.execPath, AGENT_BIN], cwd: ws.dir, env: { ...agentEnv({ ws, server }), TERM: 'xterm-256color' }, height: 40 });
    await term.waitFor('Ask for a change');
    server.enqueue({ text: 'Seen it.' });
    term.type('look at @config.ts');
    term.keys('Enter');
    await term.waitFor('Seen it.');
    server.enqueue({ toolCalls: [{ name: 'Edit', input: { path: 'config.ts', old_string: 'retries = 3', new_string: 'retries = 5' } }] }, { text: 'Raised.' });
    term.type('raise the retries');
    term.keys('Enter');
    await term.waitFor('Raised.');
    expect(readFileSync(file, 'utf8')).toContain('retries = 5');

    term.type('/rewind');
    term.keys('Enter');
    await term.waitFor('Rewind to before which turn?');
    const row = term
      .screen()
      .split('\n')
      .find((l) => l.includes('1. look at'));
    expect(row).toMatch(/1\. look at @config\.ts \((just now|\d+s ago) · 1 file changed since\)/);
    term.keys('Enter');
    await term.waitFor('1. Code and conversation');
    term.keys('3');
    await term.waitFor('❯ 3. Code only');
    expect(term.screen()).toContain('Restore:');
    expect(readFileSync(file, 'utf8')).toContain('retries = 5');
    term.keys('Enter');
    await term.waitFor(/config\.ts restored/);
    expect(readFileSync(file, 'utf8')).toBe('export const retries = 3;\n');

    const sent = server.requests.length;
    term.type('/rewind');
    term.keys('Enter');
    await term.waitFor('Rewind to before which turn?');
    term.keys('Enter');
    await term.waitFor('1. Code and conversation');
    term.keys('2');
    await term.waitFor('❯ 2. Conversation only');
    expect(term.screen()).toContain('Restore:');
    term.keys('Enter');
    // the rewound request is back in the prompt, not sent
    await term.waitFor(/❯ raise the retries/);
    expect(server.requests.length).toBe(sent);
  }, 60_000);
});
