import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, runAgent, workspace, useFakeServer } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// Ctrl+O on a spilled output in a resumed session, in a real terminal: the row was rebuilt from
// the stored preview (head and tail only), and Ctrl+O prints the whole output from the archive.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

describe.skipIf(!hasTmux)('a spilled output after --resume', () => {
  it('Ctrl+O prints it whole: lines the preview left out, up to the last line', async () => {
    const ws = workspace({ permissions: { mode: 'allow' } });
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: 'seq 500001 506000' } }] }, { text: 'Ran the numbers.' });
    const first = await runAgent(['-p', 'run the numbers', '--model', 'claude-sonnet-4-5'], { ws, server });
    expect(first.code, first.stderr).toBe(0);

    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5', '--continue'], cwd: ws.dir, env, width: 100, height: 40 });
    await term.waitFor('Ran the numbers.');
    expect(term.screen()).toContain('o1 · 6,000 lines');
    // the preview shows lines 1–40 and 5,961–6,000: line 5,950 is only in the archive
    expect(term.screen()).not.toContain('505950');
    term.keys('C-o');
    await term.waitFor('505950');
    const shown = term.screen();
    expect(shown).toMatch(/\b506000\b/);
    expect(shown).not.toContain('lines not shown');
  });
});
