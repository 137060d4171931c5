import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, useFakeServer, workspace } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// Custom commands and hooks in the interactive app, in a real terminal (tmux): a project's
// hooks wait for the person's approval, a Notification hook hears of an approval prompt, a
// .claude/commands file runs unchanged as /name args.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

describe.skipIf(!hasTmux)('custom commands and hooks in the TUI', () => {
  it("asks before running a project's hooks, remembers the approval, and runs a .claude/commands file as /name args", async () => {
    const ws = workspace();
    mkdirSync(join(ws.dir, '.claude', 'commands'), { recursive: true });
    writeFileSync(join(ws.dir, '.claude', 'commands', 'explain.md'), '---\ndescription: Explain a file\nargument-hint: <file>\n---\nExplain $1 in $2 words.\n');
    const log = join(ws.dir, 'hook-log.txt');
    writeFileSync(
      join(ws.dir, '.agentrc'),
      JSON.stringify({
        hooks: {
          UserPromptSubmit: [{ command: `cat >> ${log}; echo >> ${log}; echo PROMPT-HOOK-CONTEXT` }],
          Notification: [{ command: `cat >> ${join(ws.dir, 'notified.txt')}` }],
        },
      }),
    );
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color', XDG_CONFIG_HOME: join(ws.home, '.config') };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-6'], cwd: ws.dir, env });
    await term.waitFor('Ask for a change');

    // the slash menu lists the custom command with its description and source
    term.type('/expl');
    await term.waitFor('Explain a file');
    term.keys('C-u');

    server.enqueue({ text: 'It sets the port.' });
    term.type('/explain app.ts 20');
    term.keys('Enter');
    // the project's hooks ask first
    await term.waitFor('has hooks');
    expect(existsSync(log)).toBe(false);
    expect(term.screen()).toContain('Run them, and remember for this project');
    term.keys('Enter'); // allow
    await term.waitFor('It sets the port.');
    const sent = JSON.stringify(server.requests[0]?.view?.messages ?? []);
    expect(sent).toContain('Explain app.ts in 20 words.');
    expect(sent).toContain('PROMPT-HOOK-CONTEXT');
    expect(readFileSync(log, 'utf8')).toContain('"prompt":"Explain app.ts in 20 words.');
    // the approval is remembered for this project
    const trust = JSON.parse(readFileSync(join(ws.home, '.config', 'agent', 'trust.json'), 'utf8')) as {
      approvals: Array<{ kind: string; projectDir: string }>;
    };
    expect(trust.approvals).toEqual([expect.objectContaining({ kind: 'hooks', projectDir: ws.dir })]);

    // a Bash call asks: the Notification hook hears of it
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: 'echo hi' } }] }, { text: 'done' });
    term.type('run echo');
    term.keys('Enter');
    await term.waitFor('wants to run');
    for (let i = 0; i < 50 && !existsSync(join(ws.dir, 'notified.txt')); i++) await new Promise((r) => setTimeout(r, 100));
    expect(readFileSync(join(ws.dir, 'notified.txt'), 'utf8')).toContain('"notification_type":"permission_prompt"');
    term.keys('Enter');
    await term.waitFor('done');
  }, 60_000);

  it("runs none of a project's hooks when the person says no, and the prompt still goes", async () => {
    const ws = workspace();
    writeFileSync(
      join(ws.dir, '.agentrc'),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ command: `touch ${join(ws.dir, 'ran')}; echo SHOULD-NOT-APPEAR` }] } }),
    );
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color', XDG_CONFIG_HOME: join(ws.home, '.config') };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-6'], cwd: ws.dir, env });
    await term.waitFor('Ask for a change');
    server.enqueue({ text: 'Answered without hooks.' });
    term.type('hello');
    term.keys('Enter');
    await term.waitFor('has hooks');
    // issue 30: the project's code gets its own words, not a tool call's ("Hooks wants to run",
    // "Deny, and tell the model why" whose note went nowhere, "esc: deny and stop")
    const dialog = term.screen();
    expect(dialog).toContain(`${join(ws.dir, '.agentrc')} has hooks: shell commands that run on the agent's events`);
    expect(dialog).toMatch(/UserPromptSubmit: touch /);
    expect(dialog).toContain('1. Run them, and remember for this project');
    expect(dialog).toContain('2. Run them for this session only');
    expect(dialog).toContain('3. Do not run them');
    expect(dialog).toContain('esc: do not run them');
    expect(dialog).not.toMatch(/wants to run|tell the model|deny and stop/);
    // typing is no note to anyone: it is shown as ignored
    term.type('x');
    await term.waitFor('Typed text is not an answer and was ignored');
    expect(term.screen()).not.toContain('to send a note');
    term.keys('Enter');
    await term.waitFor(/^(?![\s\S]*Typed text is not an answer)/);
    term.keys('Escape');
    await term.waitFor('Answered without hooks.');
    expect(term.screen()).toContain('do not run in this session');
    expect(existsSync(join(ws.dir, 'ran'))).toBe(false);
    expect(JSON.stringify(server.requests[0]?.view?.messages ?? [])).not.toContain('SHOULD-NOT-APPEAR');
    expect(existsSync(join(ws.home, '.config', 'agent', 'trust.json'))).toBe(false);
  }, 60_000);
});
