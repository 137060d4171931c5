import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, MODEL, runAgent, workspace, useFakeServer } from './harness.js';
import { hasTmux, Tmux } from './tmux.js';

// Ctrl+D while a turn runs (a Bash command still sleeping): the turn is interrupted and stores how
// it ended before the store closes, so exit says "saved" truthfully and the session holds the
// call's result as an interruption. The store used to close under the running turn: the result
// was lost, and the next start repaired the call as if the program had crashed.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

describe.skipIf(!hasTmux)('exiting mid-turn', () => {
  it('interrupts the turn, stores it, and says saved; the next run continues it', async () => {
    const ws = workspace({ permissions: { mode: 'allow' } });
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    const secs = `30.${process.pid}`;
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: `sleep ${secs}` } }] });
    // the same model as the -p run below (its thinking is replayed, as the API requires after a tool call)
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', MODEL.anthropic], cwd: ws.dir, env, width: 120, height: 40 });
    await term.waitFor('Ask for a change');
    term.type('wait for the walrus');
    term.keys('Enter');
    await term.waitFor(`sleep ${secs}`);
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);
    const screen = term.screen();
    expect(screen).not.toMatch(/not saved|unsaved/i);
    expect(screen).toMatch(/Session \S+ saved\. To continue it/);
    term.kill();

    server.enqueue({ text: 'Continued.' });
    const next = await runAgent(['-p', 'go on', '--continue'], { ws, server });
    expect(next.code, next.stderr).toBe(0);
    const sent = JSON.stringify(server.requests.at(-1)?.view?.messages ?? []);
    expect(sent).toContain('wait for the walrus');
    expect(sent).toContain(`sleep ${secs}`);
    // stored as the person's interruption; mutation: exit() closing the store under the turn leaves the
    // call without a result, which the next start repairs as "the session ended (crash or kill)"
    expect(sent).toContain('The user interrupted this tool call');
    expect(sent).not.toContain('crash or kill');
  });
});
