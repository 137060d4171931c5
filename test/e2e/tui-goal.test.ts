import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, useFakeServer, workspace } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// A goal in the TUI (issue 47): /goal starts the work, the footer shows the goal, the check runs
// after the turn and its failure sends the model on, Esc in the next turn pauses the goal (no
// turn follows), and /goal shows the status, the budget used and the last check's output.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

/** Waits for a condition of the test's own (the fake server's requests); fails at once with what it waited for. */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 150 && !cond(); i++) await new Promise((r) => setTimeout(r, 100));
  expect(cond(), what).toBe(true);
}

describe.skipIf(!hasTmux)('a goal in the TUI', () => {
  it('shows the goal in the footer; Esc pauses it; /goal shows status, budget used and the last check', async () => {
    const ws = workspace();
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-6'], cwd: ws.dir, env, height: 40 });
    await term.waitFor('Ask for a change');
    // the first turn ends without the work done; the second hangs until Esc
    server.enqueue({ text: 'Working on it.' }, { text: 'never shown', cut: { afterFrames: 0, how: 'stall' } });
    term.type('/goal make the marker file --check "echo looking for marker; test -f marker" --turns 5');
    term.keys('Enter');
    await until(() => server.requests.filter((r) => r.view).length === 2, 'the continuation after the failed check');
    expect(JSON.stringify(server.requests[1]!.view!.messages)).toContain('looking for marker');
    await term.waitFor(/goal: active · 1\/5 turns/);
    term.keys('Escape');
    await term.waitFor(/goal: paused · 2\/5 turns/);
    await term.waitFor('Goal paused: interrupted (Esc).');
    term.type('/goal');
    term.keys('Enter');
    await term.waitFor('Goal (paused: interrupted (Esc)): make the marker file');
    const screen = await term.waitFor(/Last check \(failed/);
    expect(screen).toContain('Used: 2/5 turns');
    expect(screen).toContain('Exit code 1');
    // paused: nothing more was asked of the model
    expect(server.requests.filter((r) => r.view)).toHaveLength(2);
  }, 60_000);
});

// Mutations checked: the controller not asking the goal for its next turn (no second request),
// Esc not pausing (observe ignoring 'aborted': the footer stays "active" and a third request
// comes), the footer handler dropping the goal (no "goal:" on screen).
