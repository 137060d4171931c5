import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, useFakeServer, workspace, type Workspace } from './harness.js';
import { hasTmux, Tmux } from './tmux.js';

// ~/.agentrc's statusLine (Claude Code's shape): the command reads the session as JSON on stdin,
// its first line shows under the footer and follows the turns; a command that hangs is cut off
// and never holds up the prompt.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

function withStatusLine(ws: Workspace, command: string): void {
  writeFileSync(join(ws.home, '.agentrc'), JSON.stringify({ statusLine: { type: 'command', command } }));
}

describe.skipIf(!hasTmux)('the statusLine command', () => {
  it("shows the command's first line from Claude Code's JSON and updates it after a turn", async () => {
    const ws = workspace();
    // prints the model, the output tokens so far and the compactions (this project's extra field)
    const script = join(ws.root, 'status.mjs');
    writeFileSync(
      script,
      `let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => { const j = JSON.parse(s);
console.log(\`SL[\${j.model.id}] out=\${j.context_window.total_output_tokens} dir=\${j.workspace.current_dir === process.cwd()} compactions=\${j.agent_compactions}\`); console.log('second line never shown'); });`,
    );
    withStatusLine(ws, `"${process.execPath}" "${script}"`);
    server.enqueue({ text: 'Answered.', usage: { inputTokens: 100, outputTokens: 37 } });
    term = new Tmux({
      command: [process.execPath, AGENT_BIN],
      cwd: ws.dir,
      env: { ...agentEnv({ ws, server }), TERM: 'xterm-256color' },
      width: 140,
      height: 30,
    });
    await term.waitFor(/SL\[[^\]]+\] out=0 dir=true compactions=0/);
    expect(term.screen()).not.toContain('second line never shown');
    term.type('hello');
    term.keys('Enter');
    await term.waitFor('Answered.');
    // after the turn: the output tokens the provider reported (a frozen line fails here)
    await term.waitFor(/SL\[[^\]]+\] out=37 dir=true/);
  });

  it('a command that sleeps 10 s neither delays the prompt nor shows; it is cut off with a warning', async () => {
    const ws = workspace();
    withStatusLine(ws, 'sleep 10; echo SLOW-STATUS');
    term = new Tmux({
      command: [process.execPath, AGENT_BIN],
      cwd: ws.dir,
      env: { ...agentEnv({ ws, server }), TERM: 'xterm-256color' },
      width: 140,
      height: 30,
    });
    await term.waitFor('agent');
    term.type('typed-while-the-status-runs');
    // the prompt echoes the keys long before the command could end (a blocking run would take 10 s)
    await term.waitFor('typed-while-the-status-runs', 4_000);
    await term.waitFor(/statusLine command took longer than 2000 ms/, 6_000);
    expect(term.screen()).not.toContain('SLOW-STATUS');
  });

  it("a failing command's warning carries its stderr; a project's statusLine (.agentrc or .claude/settings.json) is said to be ignored", async () => {
    const ws = workspace();
    withStatusLine(ws, 'echo "statusline.sh: jq: command not found" >&2; exit 127');
    writeFileSync(join(ws.dir, '.agentrc'), JSON.stringify({ statusLine: { type: 'command', command: 'echo PROJECT-STATUS' } }));
    mkdirSync(join(ws.dir, '.claude'), { recursive: true });
    writeFileSync(join(ws.dir, '.claude', 'settings.json'), JSON.stringify({ statusLine: { type: 'command', command: 'echo CLAUDE-STATUS' } }));
    term = new Tmux({
      command: [process.execPath, AGENT_BIN],
      cwd: ws.dir,
      env: { ...agentEnv({ ws, server }), TERM: 'xterm-256color' },
      width: 200,
      height: 40,
    });
    // mutation: stderr ignored (stdio 'ignore') says only the exit code
    await term.waitFor('the statusLine command exited with code 127; its stderr said: statusline.sh: jq: command not found');
    // mutation: the project's .claude/settings.json statusLine dropped without a word
    await term.waitFor(/\.claude\/settings\.json: statusLine is read from ~\/\.agentrc only/);
    expect(term.screen()).toMatch(/\.agentrc: statusLine is read from ~\/\.agentrc only/);
    expect(term.screen()).not.toContain('PROJECT-STATUS');
    expect(term.screen()).not.toContain('CLAUDE-STATUS');
  });
});
