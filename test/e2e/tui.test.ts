import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, runAgent, workspace, useFakeServer, isSummarizer } from './harness.js';
import { hasTmux, Tmux } from './tmux.js';
import { expectInOrder } from '../support/inOrder.js';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { openStore } from '../../src/store/index.js';
import type { Message } from '../../src/llm/messages.js';

// The interactive app in a real terminal (tmux): type, approve a Bash call, watch it stream,
// compact with a focus, interrupt with Esc, exit with Ctrl-C twice, and find it all again
// with --continue.

const LONG = 'This earlier answer explains the project layout in some detail so there is history to compact. '.repeat(30);

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

describe.skipIf(!hasTmux)('the TUI in a real terminal', () => {
  it('runs a whole session: prompt, approve, stream, compact, interrupt, exit, continue', async () => {
    const ws = workspace();
    // some history first (print mode), so that /compact has something to summarize
    for (let i = 0; i < 4; i++) {
      server.enqueue({ text: `Earlier answer ${i}. ${LONG}` });
      const r = await runAgent(['-p', `earlier question ${i}`, ...(i ? ['--continue'] : [])], { ws, server });
      expect(r.code).toBe(0);
    }
    server.respondWith((req) => (isSummarizer(req.view) ? { text: '## Goal\nGreet from bash.\n## Next Steps\nKeep going.' } : undefined));

    // CI set, as on a CI machine: the app must still draw its live region in a real terminal
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color', CI: 'true' };
    const open = (args: string[]): Tmux => new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-6', ...args], cwd: ws.dir, env });

    term = open(['--continue']);
    await term.waitFor('Ask for a change');
    // the resumed transcript is on screen
    await term.waitFor('earlier question 3');

    // a prompt, a Bash call that asks first, then a streamed Markdown answer
    server.enqueue(
      { text: 'I will greet.', toolCalls: [{ name: 'Bash', input: { command: 'echo hello-from-bash | tee greeting.txt' } }] },
      { text: 'The command printed **hello-from-bash**.\n\n- first point\n- second point', chunkSize: 4, frameDelayMs: 20 },
    );
    term.type('please greet from bash');
    term.keys('Enter');
    await term.waitFor('wants to run');
    expect(term.screen()).toContain('echo hello-from-bash | tee greeting.txt');
    expect(existsSync(join(ws.dir, 'greeting.txt'))).toBe(false);
    term.keys('Enter'); // allow once
    await term.waitFor(/The command printed hello-from-bash\./);
    await term.waitFor('second point');
    expect(readFileSync(join(ws.dir, 'greeting.txt'), 'utf8')).toBe('hello-from-bash\n');
    expect(term.screen()).toMatch(/✓ Bash echo hello-from-bash/);

    // /compact with a focus: the focus reaches the summarizer and the receipt shows
    term.type('/compact focus: keep the greeting');
    term.keys('Enter');
    await term.waitFor(/Compacted [\d.]+k? → [\d.]+k? tokens · archived \d+ messages · kept \d+/);
    // issue 37: the report in one line under the receipt, and whole on Ctrl+O (mutation: Ctrl+O
    // preferring the older thinking over the newer report, as it did, fails the Archived line)
    await term.waitFor(/ledger [\d,]+ tokens[\s\S]*\/uncompact\s+undoes\s+it\s+·\s+ctrl\+o\s+for\s+the\s+report/);
    term.keys('C-o');
    await term.waitFor(/Archived:\s+\d+\s+messages\s+\(Recall\s+ids\s+m_\w+\s+…\s+m_\w+\)/);
    expect(term.screen()).toMatch(/Tokens:\s+[\d,]+\s+→\s+[\d,]+/);
    const summaries = server.requests.filter((q) => q.view && isSummarizer(q.view));
    expect(summaries).toHaveLength(1);
    expect(JSON.stringify(summaries[0]!.view!.messages)).toContain('keep the greeting');

    // Esc mid-stream: the partial reply stays, marked interrupted
    server.enqueue({ text: `Once upon a time ${'there was a very long story that goes on and on. '.repeat(60)}`, chunkSize: 8, frameDelayMs: 40 });
    term.type('tell me a long story');
    term.keys('Enter');
    await term.waitFor('Once upon a time');
    term.keys('Escape');
    await term.waitFor(/interrupted/i);
    await term.waitFor('Ask for a change');

    // the session goes on after the interruption
    server.enqueue({ text: 'Still here after the interruption.' });
    term.type('are you there?');
    term.keys('Enter');
    await term.waitFor('Still here after the interruption.');
    expect(term.screen()).toMatch(/context left/);

    // Ctrl-C twice exits cleanly
    expect(await term.exitWithCtrlC()).toBe(0);
    term.kill();

    // --continue finds the transcript again: checkpoint first, then the tail
    term = open(['--continue']);
    await term.waitFor('Still here after the interruption.');
    // the newest screenful comes first; the older items (the checkpoint) are printed right after
    const screen = await term.waitFor(/Greet from bash\.|checkpoint/i);
    expect(screen).toContain('tell me a long story');
    expect(await term.exitWithCtrlC()).toBe(0);
  }, 120_000);

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

  it('opens a long resumed session on its newest screenful, right above the prompt, then fills the scrollback in order', async () => {
    const ws = workspace();
    mkdirSync(dirname(ws.db), { recursive: true });
    const store = openStore(ws.db);
    store.createSession({ id: 'long-session', cwd: ws.dir, provider: 'anthropic', model: 'claude-sonnet-4-6' });
    let at = 1_700_000_000_000;
    const message = (role: 'user' | 'assistant', text: string): Message => ({
      id: `m${at}`,
      role,
      kind: 'normal',
      createdAt: (at += 1000),
      blocks: [{ type: 'text', text }],
    });
    for (let i = 0; i < 100; i++) {
      store.appendMessage('long-session', message('user', `question ${i} about the parser`), 10);
      store.appendMessage('long-session', message('assistant', `answer ${i}: the parser handles case ${i}.`), 12);
    }
    store.close();

    term = new Tmux({
      command: [process.execPath, AGENT_BIN, '--resume', 'long-session'],
      cwd: ws.dir,
      env: { ...agentEnv({ ws, server }), TERM: 'xterm-256color' },
      width: 100,
      height: 30,
    });
    await term.waitFor('Ask for a change');
    // the newest exchange sits right above the prompt box, each line once
    const visible = term.screen(0).split('\n');
    const box = visible.findIndex((l) => l.includes('╭'));
    expect(visible.slice(Math.max(0, box - 4), box).join('\n')).toMatch(/question 99 about the parser\n\n● answer 99: the parser handles case 99\.\n\s*$/);
    // after the first frame the transcript is printed again from its start (a terminal that keeps
    // a cleared screen in its scrollback, as tmux does, keeps the first screenful above it): in
    // order, each item once, the prompt after the newest
    await term.waitFor('question 0 about the parser');
    const all = term.screen(1_000);
    const [at0, , at99] = expectInOrder(all, ['question 0 about the parser', 'answer 50: the parser', 'answer 99: the parser', 'Ask for a change']);
    expect(all.indexOf('answer 99: the parser', at99! + 1)).toBe(-1);
    expect(all.indexOf('question 0 about the parser', at0! + 1)).toBe(-1);
    expect(await term.exitWithCtrlC()).toBe(0);
  });

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
