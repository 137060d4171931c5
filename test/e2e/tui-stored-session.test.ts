import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, isSummarizer, runAgent, useFakeServer, workspace } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// A stored session's screens in the TUI (in-process, terminal.ts; moved from tui.test.ts, whose
// subject is the real terminal): /history browses what compaction archived and opens an item;
// --resume without an id opens the session picker.

const LONG = 'This earlier answer explains the project layout in some detail so there is history to compact. '.repeat(30);

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

describe.skipIf(!hasTmux)('a stored session in the TUI', () => {
  it('browses what compaction archived with /history and opens an item', async () => {
    const ws = workspace();
    server.respondWith((req) => (isSummarizer(req.view) ? { text: '## Goal\nTalk.\n## Next Steps\nGo on.' } : undefined));
    for (let i = 0; i < 4; i++) {
      server.enqueue({ text: `Answer ${i}: ${i === 0 ? 'the walrus-0 detail lives in config/secrets.toml. ' : ''}${LONG}` });
      expect((await runAgent(['-p', `question ${i}`, ...(i ? ['--continue'] : [])], { ws, server })).code).toBe(0);
    }
    expect((await runAgent(['-p', '/compact', '--continue'], { ws, server })).code).toBe(0);

    term = new Tmux({
      command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-6', '--continue'],
      cwd: ws.dir,
      env: { ...agentEnv({ ws, server }), TERM: 'xterm-256color', CI: 'true' },
    });
    await term.waitFor('Ask for a change');
    term.type('/history walrus');
    term.keys('Enter');
    await term.waitFor('Archive: “walrus”');
    expect(term.screen()).toMatch(/❯ 1\. assistant message/);
    term.keys('Enter');
    // the whole archived message, below the command that opened it
    await term.waitFor('the walrus-0 detail lives in config/secrets.toml.');
    await term.waitFor('Ask for a change');
    expect(term.screen()).not.toContain('Archive: “walrus”');
    expect(await term.exitWithCtrlC()).toBe(0);
  }, 60_000);

  it('opens the session picker for --resume without an id', async () => {
    const ws = workspace();
    server.respondWith(undefined);
    server.enqueue({ text: 'first session answer' });
    expect((await runAgent(['-p', 'a question about zebras'], { ws, server })).code).toBe(0);
    server.enqueue({ text: 'second session answer' });
    expect((await runAgent(['-p', 'a question about lions'], { ws, server })).code).toBe(0);

    term = new Tmux({
      command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-6', '--resume'],
      cwd: ws.dir,
      env: { ...agentEnv({ ws, server }), TERM: 'xterm-256color', CI: 'true' },
    });
    await term.waitFor('a question about lions');
    await term.waitFor('a question about zebras');
    term.keys('Down');
    term.keys('Enter');
    await term.waitFor('first session answer');
    expect(await term.exitWithCtrlC()).toBe(0);
  }, 60_000);
});
