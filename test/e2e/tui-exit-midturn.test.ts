import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, MODEL, runAgent, workspace, useFakeServer } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// Both regimes: an interrupted thinking turn is stored as the family's thinking allows.
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

  /** A session whose turn was interrupted (Ctrl+D) while its Bash call ran on the suite's model. */
  async function interruptedSession(secs: string) {
    const ws = workspace({ permissions: { mode: 'allow' } });
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: `sleep ${secs}` } }] });
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', MODEL.anthropic], cwd: ws.dir, env, width: 120, height: 40 });
    await term.waitFor('Ask for a change');
    term.type('count the herons');
    term.keys('Enter');
    await term.waitFor(`sleep ${secs}`);
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);
    term.kill();
    return ws;
  }

  it('continues an interrupted tool call on another thinking model: that request goes without thinking, the next turn thinks', async () => {
    // a model that thinks adaptively by default and can turn thinking off, other than either suite model:
    // the first model's thinking cannot be replayed to it (signatures are per model)
    const other = 'claude-opus-4-6';
    const secs = `31.${process.pid}`;
    const ws = await interruptedSession(secs);
    server.enqueue({ text: 'Seven herons.' });
    const next = await runAgent(['-p', 'how many?', '--continue', '--model', other], { ws, server });
    // mutation: withoutReplay (llm/anthropic.ts) keeping thinking on: the fake refuses as the API does
    // ("a final assistant message must start with a thinking block") and the run fails
    expect(next.stderr).not.toMatch(/must start with a thinking block/);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain('Seven herons.');
    const first = server.requests.at(-1)!;
    expect(first.view?.model).toBe(other);
    expect(first.view?.thinking).toEqual({ type: 'disabled' });
    expect(JSON.stringify(first.view?.messages)).toContain('The user interrupted this tool call');

    // the loop is over: the next turn on that model thinks again (mutation: turning thinking off for good)
    server.enqueue({ text: 'Still seven.' });
    const again = await runAgent(['-p', 'sure?', '--continue', '--model', other], { ws, server });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Still seven.');
    expect(server.requests.at(-1)?.view?.thinking).toMatchObject({ type: 'adaptive' });
  });

  it('continues it on a model that cannot turn thinking off: the interrupted calls go as a note, and the replies after it stay valid', async () => {
    // a 5-family model (adaptive only, thinking bound to its prefix) other than the suite's
    const other = MODEL.anthropic === 'claude-opus-5-5' ? 'claude-sonnet-5-5' : 'claude-opus-5-5';
    const secs = `32.${process.pid}`;
    const ws = await interruptedSession(secs);
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: 'echo heron' } }] }, { text: 'Seven herons.' });
    const next = await runAgent(['-p', 'how many?', '--continue', '--model', other], { ws, server });
    // mutation: closeLostLoops off (anthropic.ts): the fake refuses the loop without thinking, as the API does
    expect(next.stderr).not.toMatch(/must start with a thinking block/);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain('Seven herons.');
    const [first, second] = server.requests.slice(-2);
    expect(first!.view?.thinking).toMatchObject({ type: 'adaptive' });
    // the call and its result, as the history holds them, in the person's turn; no tool loop left open
    const sent = JSON.stringify(first!.view?.messages);
    expect(sent).toContain(`sleep ${secs}`);
    expect(sent).toContain('The user interrupted this tool call');
    expect(sent).not.toContain('"tool_use"');
    // the new model's own tool loop carries its thinking (bound to the prefix with the note: the fake checks)
    expect(second!.response?.status).toBe(200);
    expect(second!.view?.messages.filter((m) => m.role === 'assistant').at(-1)?.blocks[0]?.type).toBe('thinking');

    // a later turn sends the same note, so that thinking is still valid (mutation: a note that differs per request)
    server.enqueue({ text: 'Still seven.' });
    const again = await runAgent(['-p', 'sure?', '--continue', '--model', other], { ws, server });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Still seven.');
    const replies = server.requests
      .at(-1)!
      .view!.messages.filter((m) => m.role === 'assistant')
      .slice(-2);
    expect(replies.map((m) => m.blocks[0]?.type)).toEqual(['thinking', 'thinking']);
  });
});
