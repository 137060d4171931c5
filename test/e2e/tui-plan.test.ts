import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, workspace, useFakeServer } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// Plan mode in the TUI (in-process, terminal.ts): Shift+Tab into plan mode (the footer says so), a
// Write refused while planning, the plan presented with ExitPlanMode, sent back with a note,
// approved with edits accepted, and the work done. The plan edited in $EDITOR, which gets the
// real terminal and the Ctrl+C of its process group, is in tmux: tui.test.ts.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

describe.skipIf(!hasTmux)('plan mode in the TUI', () => {
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
