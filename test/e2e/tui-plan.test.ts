import { existsSync, readFileSync } from 'node:fs';
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
  it('cycles into plan mode, refuses a Write, keeps planning with a note, then approves with edits accepted', async () => {
    const ws = workspace();
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5'], cwd: ws.dir, env, height: 40 });
    await term.waitFor('Ask for a change');
    term.keys('BTab');
    await term.waitFor('⏵⏵ accept edits');
    term.keys('BTab');
    await term.waitFor('plan mode (only reads run)');

    server.enqueue(
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
    // keep planning, with a note for the model
    term.keys('3');
    term.type('use port 8080');
    await term.waitFor('note: use port 8080');
    term.keys('Enter');
    await term.waitFor('with port 8080.');
    const sentBack = JSON.stringify(server.requests.at(-1)!.view!.messages);
    expect(sentBack).toContain('use port 8080');
    expect(sentBack).toContain('Plan mode is on, and Write can change things');
    // approve, with edits accepted: the Write runs without asking
    term.keys('2');
    await term.waitFor('Notes written.');
    await term.waitFor('⏵⏵ accept edits');
    expect(readFileSync(join(ws.dir, 'notes.md'), 'utf8')).toBe('port 8080\n');
  }, 60_000);
});
// Mutations that fail this: plan left out of the Shift+Tab cycle, the plan check dropped (notes.md written early),
// the note not returned to the model, the approved mode not applied (the second Write asks).
