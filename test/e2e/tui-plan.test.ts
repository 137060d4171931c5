import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, workspace, useFakeServer } from './harness.js';
import { hasTmux, Tmux } from './tmux.js';

// Plan mode in a real terminal (tmux): Shift+Tab into plan mode (the footer says so), a Write
// refused while planning, the plan presented with ExitPlanMode, sent back with a note, approved
// with edits accepted, and the work done.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

describe.skipIf(!hasTmux)('plan mode in a real terminal', () => {
  it('cycles into plan mode; a read runs, an Edit, a touch and a Write are refused; keeps planning with a note, then approves with edits accepted', async () => {
    const ws = workspace();
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5'], cwd: ws.dir, env, height: 40 });
    await term.waitFor('Ask for a change');
    term.keys('BTab');
    await term.waitFor('⏵⏵ accept edits');
    term.keys('BTab');
    await term.waitFor('plan mode (only reads run)');

    writeFileSync(join(ws.dir, 'app.ts'), 'export const port = 80;\n');
    server.enqueue(
      { toolCalls: [{ name: 'FileRead', input: { path: 'app.ts' } }] },
      { toolCalls: [{ name: 'Edit', input: { path: 'app.ts', old_string: '80', new_string: '8080' } }] },
      { toolCalls: [{ name: 'Bash', input: { command: 'touch made.txt' } }] },
      { toolCalls: [{ name: 'Write', input: { path: 'notes.md', content: 'too early\n' } }] },
      { toolCalls: [{ name: 'ExitPlanMode', input: { plan: '## Plan\n1. Write notes.md with the port.' } }] },
      { toolCalls: [{ name: 'ExitPlanMode', input: { plan: '## Plan\n1. Write notes.md with port 8080.' } }] },
      { toolCalls: [{ name: 'Write', input: { path: 'notes.md', content: 'port 8080\n' } }] },
      { text: 'Notes written.' },
    );
    term.type('write the notes');
    term.keys('Enter');
    await term.waitFor('presents its plan');
    expect(term.screen()).toContain('1. Write notes.md with the port.');
    // the note that tells the model it is planning is not shown as what the person typed
    expect(term.screen()).not.toContain('system-reminder');
    expect(existsSync(join(ws.dir, 'notes.md'))).toBe(false);
    // the read ran; the Edit, the touch and the Write were refused with a reason the model read, and changed nothing
    const results = server.requests
      .at(-1)!
      .view!.messages.flatMap((m) => m.blocks)
      .flatMap((b) => (b.type === 'tool_result' ? [b.content] : []));
    expect(results[0]).toContain('export const port = 80;');
    expect(results[1]).toContain('Plan mode is on, and Edit can change things');
    expect(results[2]).toContain('Plan mode is on, and this command is not one that only reads');
    expect(results[3]).toContain('Plan mode is on, and Write can change things');
    expect(readFileSync(join(ws.dir, 'app.ts'), 'utf8')).toBe('export const port = 80;\n');
    expect(existsSync(join(ws.dir, 'made.txt'))).toBe(false);
    // keep planning, with a note for the model
    term.keys('3');
    // the choice is read before the note is typed (in one read, "3use…" is typed text, not a choice)
    await term.waitFor('❯ 3. Keep planning');
    term.type('use port 8080');
    await term.waitFor('note: use port 8080');
    term.keys('Enter');
    await term.waitFor('with port 8080.');
    const sentBack = JSON.stringify(server.requests.at(-1)!.view!.messages);
    expect(sentBack).toContain('use port 8080');
    // the person's answer, not a failure: the plan's row is not drawn as an error (mutation: isError true draws ✗)
    expect(term.screen()).not.toMatch(/✗ ExitPlanMode/);
    expect(term.screen()).toMatch(/✓ ExitPlanMode/);
    expect(sentBack).toContain('Plan mode is on, and Write can change things');
    // approve, with edits accepted: the Write runs without asking
    term.keys('2');
    await term.waitFor('❯ 2. Approve the plan, and accept edits');
    term.keys('Enter');
    await term.waitFor('Notes written.');
    await term.waitFor('⏵⏵ accept edits');
    expect(readFileSync(join(ws.dir, 'notes.md'), 'utf8')).toBe('port 8080\n');
  }, 60_000);
});
// Mutations that fail this: plan left out of the Shift+Tab cycle, the plan check dropped (app.ts edited, made.txt or notes.md made early),
// the note not returned to the model, the approved mode not applied (the second Write asks).

// ExitPlanMode's fourth choice: the plan opened in the person's $EDITOR, then asked again with
// their version, which is what the model is told, what is approved and what /plan show prints.
describe.skipIf(!hasTmux)('a plan edited in $EDITOR before approval', () => {
  const PLAN = '## Plan\n1. Serve on port 80.\n2. Run the tests.';

  it('a script as $EDITOR rewrites the plan: the edited plan is approved, the model told, /plan show prints it; the editor sees no key', async () => {
    const ws = workspace();
    const editor = join(ws.dir, 'editor.sh');
    writeFileSync(editor, `#!/bin/sh\nenv > "${join(ws.dir, 'editor-env.txt')}"\nsed -i 's/port 80\\./port 8080./' "$1"\n`);
    chmodSync(editor, 0o755);
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color', EDITOR: editor, VISUAL: '' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5', '--permission-mode', 'plan'], cwd: ws.dir, env, height: 40 });
    await term.waitFor('plan mode (only reads run)');
    server.enqueue({ toolCalls: [{ name: 'ExitPlanMode', input: { plan: PLAN } }] }, { text: 'Carrying out your plan.' });
    term.type('plan the server');
    term.keys('Enter');
    await term.waitFor('4. Open the plan in your editor first');
    term.keys('4');
    await term.waitFor('❯ 4. Open the plan');
    term.keys('Enter');
    await term.waitFor('Your edited plan');
    expect(term.screen()).toContain('1. Serve on port 8080.');
    term.keys('1');
    await term.waitFor('❯ 1. Approve the plan;');
    term.keys('Enter');
    await term.waitFor('Carrying out your plan.');
    // the first choice: plan mode is over, edits and commands ask again
    await term.waitFor('ask before edits and commands');
    const result = JSON.stringify(server.requests.at(-1)!.view!.messages);
    expect(result).toContain('The user approved the plan after editing it');
    expect(result).toContain('1. Serve on port 8080.');
    const shown = (): number => term!.screen().split('Serve on port 8080.').length;
    const before = shown();
    term.type('/plan show');
    term.keys('Enter');
    const deadline = Date.now() + 15_000;
    while (shown() <= before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(shown(), term.screen()).toBeGreaterThan(before);
    // the editor ran with the person's environment, less the provider key
    const editorEnv = readFileSync(join(ws.dir, 'editor-env.txt'), 'utf8');
    expect(editorEnv).toContain(`EDITOR=${editor}`);
    expect(editorEnv).not.toContain('ANTHROPIC_API_KEY');
  }, 60_000);

  it("a Ctrl+C while the editor runs is the editor's: the app lives on and asks again with the plan as it was", async () => {
    const ws = workspace();
    const editor = join(ws.dir, 'editor.sh');
    // the terminal's Ctrl+C reaches the editor and the agent (one process group): this sends SIGINT to both
    writeFileSync(
      editor,
      '#!/bin/sh\nsed -i "s/port 80\\./port 9090./" "$1"\np=$$\nwhile [ "$(ps -o comm= -p $p)" != node ]; do p=$(ps -o ppid= -p $p | tr -d " "); done\nkill -INT $p $$\n',
    );
    chmodSync(editor, 0o755);
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color', EDITOR: editor, VISUAL: '' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5', '--permission-mode', 'plan'], cwd: ws.dir, env, height: 40 });
    await term.waitFor('plan mode (only reads run)');
    server.enqueue({ toolCalls: [{ name: 'ExitPlanMode', input: { plan: PLAN } }] }, { text: 'Approved as it was.' });
    term.type('plan the server');
    term.keys('Enter');
    await term.waitFor('4. Open the plan in your editor first');
    term.keys('4');
    await term.waitFor('❯ 4. Open the plan');
    term.keys('Enter');
    await term.waitFor(/editor\.sh" (was ended by SIGINT|exited with status 130)/);
    // still running, and the question still open: approve the plan as presented
    term.keys('1');
    await term.waitFor('❯ 1. Approve the plan;');
    term.keys('Enter');
    await term.waitFor('Approved as it was.');
    expect(term.screen()).not.toContain('[exited with');
    const result = JSON.stringify(server.requests.at(-1)!.view!.messages);
    expect(result).toContain('1. Serve on port 80.');
    expect(result).not.toContain('port 9090');
  }, 60_000);

  it.skipIf(!existsSync('/usr/bin/vi'))(
    'vi gets the terminal (keys go to it, not to the app), and the app takes it back when vi exits',
    async () => {
      const ws = workspace();
      const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color', VISUAL: 'vi -u NONE -i NONE -N', EDITOR: '' };
      term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5', '--permission-mode', 'plan'], cwd: ws.dir, env, height: 40 });
      await term.waitFor('plan mode (only reads run)');
      server.enqueue({ toolCalls: [{ name: 'ExitPlanMode', input: { plan: PLAN } }] }, { text: 'Going on with edits accepted.' });
      term.type('plan the server');
      term.keys('Enter');
      await term.waitFor('4. Open the plan in your editor first');
      term.keys('4');
      await term.waitFor('❯ 4. Open the plan');
      term.keys('Enter');
      await term.waitFor('plan.md"');
      // typed into vi: a substitution, then save and quit
      term.type(':%s/port 80\\./port 8443./');
      term.keys('Enter');
      term.type(':wq');
      term.keys('Enter');
      await term.waitFor('Your edited plan');
      expect(term.screen()).toContain('1. Serve on port 8443.');
      // the app reads keys again: 2 then Enter approves with edits accepted
      term.keys('2');
      await term.waitFor('❯ 2. Approve the plan, and accept edits');
      term.keys('Enter');
      await term.waitFor('Going on with edits accepted.');
      await term.waitFor('⏵⏵ accept edits');
      expect(JSON.stringify(server.requests.at(-1)!.view!.messages)).toContain('1. Serve on port 8443.');
    },
    60_000,
  );
});
// Mutations that fail these: the fourth choice left out, the editor's file not read back (port 80 stays), the approval
// without the edited plan (/plan show and the request keep port 80), the model not told of the edit,
// raw mode not given back after the editor (2 waits for Enter), the key in the editor's env, a SIGINT during the editor not held (the app exits).
