import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestView } from '../fake-server/types.js';
import { AGENT_BIN, agentEnv, useFakeServer, workspace } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// A prompt that got no reply goes back to the person, and out of the conversation (issue 30,
// defect 5): Esc before the model wrote anything, Esc while a UserPromptSubmit hook hangs, and a
// provider that failed on every retry. Sending it again must give the model the prompt once,
// with no "[No reply…]" marker; a reply cut off by the failure stays on screen.
// Mutations these fail: the session not withdrawing the prompt (the resent request holds it
// twice), the UI putting nothing back after a hook was interrupted (Enter sends nothing), the
// failed turn not returning the prompt, the partial reply dropped on a retry or at the failure;
// and (defect 11) a status row that says "Thinking… (0s)" under a hook or "Running… (0s)" under a
// `!` command instead of naming what runs with its clock.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

const userTexts = (v: RequestView | undefined): string[] =>
  (v?.messages ?? []).filter((m) => m.role === 'user').flatMap((m) => m.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])));
/** Waits for a condition of the test's own (the fake server's requests); fails at once with what it waited for. */
async function until(cond: () => boolean, what = 'the request to reach the fake server'): Promise<void> {
  for (let i = 0; i < 150 && !cond(); i++) await new Promise((r) => setTimeout(r, 100));
  expect(cond(), what).toBe(true);
}
const count = (texts: string[], s: string): number => texts.filter((t) => t.includes(s)).length;

describe.skipIf(!hasTmux)('a prompt without a reply in the TUI', () => {
  it('Esc before the reply, or while a prompt hook hangs, puts the prompt back and sends it once', async () => {
    const ws = workspace();
    // the person's own hooks (home .agentrc) run without a project approval; this one hangs until killed
    writeFileSync(join(ws.home, '.agentrc'), JSON.stringify({ hooks: { UserPromptSubmit: [{ command: 'case "$(cat)" in *hang-here*) sleep 60;; esac' }] } }));
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-6'], cwd: ws.dir, env, height: 40 });
    await term.waitFor('Ask for a change');

    // the provider says nothing: Esc before any reply
    server.enqueue({ text: 'never shown', cut: { afterFrames: 0, how: 'stall' } });
    term.type('explain the build');
    term.keys('Enter');
    await until(() => server.requests.filter((r) => r.view).length === 1);
    term.keys('Escape');
    await term.waitFor(/❯ explain the build/);
    await term.waitFor('back in the input');
    server.enqueue({ text: 'The build runs esbuild.' });
    term.keys('Enter');
    await term.waitFor('The build runs esbuild.');
    const resent = userTexts(server.requests.at(-1)?.view);
    expect(count(resent, 'explain the build'), JSON.stringify(resent)).toBe(1);
    expect(count(resent, '[No reply')).toBe(0);

    // a prompt hook that hangs: the status row says so, Esc stops it and gives the prompt back
    const sent = server.requests.length;
    term.type('hang-here please');
    term.keys('Enter');
    // its clock runs (it used to say "Thinking… (0s)" throughout)
    await term.waitFor(/Running the UserPromptSubmit hook… \([1-9]\d*s · esc to interrupt\)/);
    term.keys('Escape');
    await term.waitFor(/❯ hang-here please/);
    expect(server.requests.length, 'nothing was sent').toBe(sent);
    term.keys('C-u');
    server.enqueue({ text: 'Next answer.' });
    term.type('what next');
    term.keys('Enter');
    await term.waitFor('Next answer.');
    const next = userTexts(server.requests.at(-1)?.view);
    expect(count(next, 'hang-here')).toBe(0);
    expect(count(next, '[No reply')).toBe(0);

    // a `!` command: the status row names it and counts its time (it said "Running… (0s)")
    term.type('!sleep 3; echo slept');
    term.keys('Enter');
    await term.waitFor(/Running sleep 3; echo slept… \([1-9]s · esc to interrupt\)/);
    await term.waitFor('slept');
  }, 60_000);

  it('a stream that fails on every retry puts the prompt back and keeps the cut-off reply on screen', async () => {
    const ws = workspace({ retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 20 } });
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-6'], cwd: ws.dir, env, height: 40 });
    await term.waitFor('Ask for a change');
    // each attempt streams a few words, then the connection drops
    server.enqueue(
      { text: 'First attempt words that break off here and never finish', thinking: false, chunkSize: 6, cut: { afterFrames: 6, how: 'drop' } },
      { text: 'Second attempt words that break off here and never finish', thinking: false, chunkSize: 6, cut: { afterFrames: 6, how: 'drop' } },
    );
    term.type('summarize the log');
    term.keys('Enter');
    await term.waitFor(/gave up after 2 attempts/);
    await term.waitFor(/❯ summarize the log/);
    const screen = term.screen();
    expect(screen).toContain('First attempt');
    expect(screen).toContain('Second attempt');
    server.enqueue({ text: 'Summary done.' });
    term.keys('Enter');
    await term.waitFor('Summary done.');
    const resent = userTexts(server.requests.at(-1)?.view);
    expect(count(resent, 'summarize the log'), JSON.stringify(resent)).toBe(1);
    expect(count(resent, '[No reply')).toBe(0);
  }, 60_000);
});
