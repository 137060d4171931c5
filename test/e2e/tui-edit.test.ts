import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, workspace, useFakeServer } from './harness.js';
import { hasTmux, Tmux } from './tmux.js';

// Edits in a real terminal (tmux): the diff in the approval prompt, apply once, accept edits for
// the session, deny and stop with Esc, Shift+Tab cycling the mode in the footer, and /rewind.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

describe.skipIf(!hasTmux)('edits in a real terminal', () => {
  it('approves an edit from its diff, accepts edits for the session, stops a turn with Esc, cycles the mode and rewinds', async () => {
    const ws = workspace();
    const file = join(ws.dir, 'config.ts');
    writeFileSync(file, 'export const retries = 3;\nexport const timeout = 1000;\n');
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5'], cwd: ws.dir, env, height: 40 });
    await term.waitFor('Ask for a change');
    await term.waitFor('ask before edits and commands');

    // 1. an edit asks, showing the diff with line numbers; "apply once"
    server.enqueue(
      { toolCalls: [{ name: 'FileRead', input: { path: 'config.ts' } }] },
      { toolCalls: [{ name: 'Edit', input: { path: 'config.ts', old_string: 'retries = 3', new_string: 'retries = 5' } }] },
      { text: 'Retries raised.' },
    );
    term.type('raise the retries');
    term.keys('Enter');
    await term.waitFor('Edit wants to change config.ts');
    const ask = term.screen();
    expect(ask).toMatch(/1\s+- export const retries = 3;/);
    expect(ask).toMatch(/1\s+\+ export const retries = 5;/);
    expect(ask).toContain('Apply, and accept edits for the rest of the session');
    expect(readFileSync(file, 'utf8')).toContain('retries = 3');
    term.keys('Enter');
    await term.waitFor('Retries raised.');
    expect(readFileSync(file, 'utf8')).toContain('retries = 5');
    expect(term.screen()).toMatch(/config\.ts \+1 −1/);

    // 2. "accept edits for the session": the footer says so and the next edit does not ask
    server.enqueue(
      { toolCalls: [{ name: 'Edit', input: { path: 'config.ts', old_string: 'timeout = 1000', new_string: 'timeout = 2000' } }] },
      { toolCalls: [{ name: 'Edit', input: { path: 'config.ts', old_string: 'timeout = 2000', new_string: 'timeout = 3000' } }] },
      { text: 'Timeout raised twice.' },
    );
    term.type('raise the timeout');
    term.keys('Enter');
    await term.waitFor('Edit wants to change config.ts');
    // a digit only selects (issue 49: '2' applied at once, and the habitual Enter then answered the next question)
    term.keys('2');
    await term.waitFor('❯ 2. Apply, and accept edits');
    expect(readFileSync(file, 'utf8')).not.toContain('timeout = 3000');
    expect(term.screen()).toContain('Edit wants to change config.ts');
    term.keys('Enter');
    await term.waitFor('Timeout raised twice.');
    expect(readFileSync(file, 'utf8')).toContain('timeout = 3000');
    await term.waitFor('⏵⏵ accept edits');

    // 3. Shift+Tab cycles: acceptEdits → plan → deny → ask
    term.keys('BTab');
    await term.waitFor('plan mode (only reads run)');
    term.keys('BTab');
    await term.waitFor('read-only (deny)');
    term.keys('BTab');
    await term.waitFor('ask before edits and commands');

    // 4. Esc at the approval prompt denies and stops the turn: the model is not called again
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: 'for f in *.ts; do wc -l $f; done' } }] }, { text: 'SHOULD NOT APPEAR' });
    const before = server.requests.length;
    term.type('count lines');
    term.keys('Enter');
    await term.waitFor('Bash wants to run');
    // a loop is offered no "commands starting with" prefix
    expect(term.screen()).not.toContain('Allow commands starting with `for`');
    term.keys('Escape');
    await term.waitFor('Stopped: you denied the call and ended the turn');
    expect(server.requests.length).toBe(before + 1);
    expect(term.screen()).not.toContain('SHOULD NOT APPEAR');

    // 5. /rewind: the picker says a code rewind covers Bash's changes, then code and conversation go back to before turn 2
    term.type('/rewind');
    term.keys('Enter');
    await term.waitFor('Rewind to before which turn?');
    expect(term.screen()).toContain("Bash's changes included");
    term.keys('Up', 'Enter');
    await term.waitFor('1. Code and conversation');
    term.keys('Enter');
    await term.waitFor(/config\.ts restored/);
    expect(readFileSync(file, 'utf8')).toBe('export const retries = 5;\nexport const timeout = 1000;\n');
    // the rewound request is back in the prompt, to edit and send again
    await term.waitFor(/❯ raise the timeout/);
  }, 90_000);
});
