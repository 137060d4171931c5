import { afterEach, describe, it } from 'vitest';
import { AGENT_BIN, agentEnv, useFakeServer, workspace } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// The task list above the prompt, in the TUI (in-process, terminal.ts): it shows the list each TodoWrite set as
// soon as the call ended (issue 49: it re-read the log at tool_end, before the call's result was
// appended, so it was one TodoWrite behind: nothing after the first call, the stale list once
// all was done).

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

const todos = (s1: string, s2: string, s3: string) => ({
  todos: [
    { content: 'Read the code', status: s1 },
    { content: 'Write the fix', status: s2 },
    { content: 'Run the tests', status: s3 },
  ],
});

describe.skipIf(!hasTmux)('the task list above the prompt', () => {
  it('shows the list the last TodoWrite set, and goes when every item is done', async () => {
    const ws = workspace();
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color', CI: 'true' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-6'], cwd: ws.dir, env });
    await term.waitFor('Ask for a change');

    server.enqueue({ toolCalls: [{ name: 'TodoWrite', input: todos('in_progress', 'pending', 'pending') }] }, { text: 'Started on it.' });
    term.type('fix the bug');
    term.keys('Enter');
    await term.waitFor('Started on it.');
    await term.waitFor('Tasks · 0 of 3 done');

    server.enqueue({ toolCalls: [{ name: 'TodoWrite', input: todos('completed', 'in_progress', 'pending') }] }, { text: 'Halfway.' });
    term.type('go on');
    term.keys('Enter');
    await term.waitFor('Halfway.');
    await term.waitFor('Tasks · 1 of 3 done');

    server.enqueue({ toolCalls: [{ name: 'TodoWrite', input: todos('completed', 'completed', 'completed') }] }, { text: 'All done.' });
    term.type('finish');
    term.keys('Enter');
    await term.waitFor('All done.');
    // the visible screen (scrollback may keep an earlier frame): no list once every item is done
    const t = term;
    const deadline = Date.now() + 5_000;
    while (t.screen(0).includes('Tasks ·')) {
      if (Date.now() > deadline) throw new Error(`the finished list stayed above the prompt:\n${t.screen(0)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 60_000);
});
// Mutation: TaskListState.toolEnded reading the log again (this.refresh()) instead of the call's own input shows no
// list after the first TodoWrite ('Tasks · 0 of 3 done' never comes).
