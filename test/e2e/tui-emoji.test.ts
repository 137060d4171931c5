import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, MODEL, useFakeServer, workspace } from './harness.js';
import { hasTmux, Tmux } from './tmux.js';

// An emoji with a skin-tone modifier typed into the input box, in tmux (issue 30): tmux draws 👍🏽
// four columns wide (the base and the modifier side by side) where string-width says two. The TUI
// asks the terminal at start how wide it draws one (ui/emoji-probe.ts: two cursor reports around
// a sample), so the box keeps the tone and its right border stays on its line.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

describe.skipIf(!hasTmux)('a skin-toned emoji in the input box, in tmux', () => {
  it('is drawn with its tone, and the box keeps its border on the emoji’s line', async () => {
    const ws = workspace();
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', MODEL.anthropic], cwd: ws.dir, env, width: 60, height: 20 });
    await term.waitFor('Ask for a change');
    term.type('ok 👍🏽 and 👋🏿 thanks');
    const screen = await term.waitFor('thanks');
    const lines = screen.split('\n');
    const at = lines.findIndex((l) => l.includes('❯ ok'));
    // mutations: PromptView stripping the tone fails the first; the width function not counting
    // what tmux said (two columns) puts the border past the edge, onto the next line
    expect(lines[at]).toContain('ok 👍🏽 and 👋🏿 thanks');
    expect(lines[at]).toMatch(/thanks\s*│$/);
    expect(lines[at + 1]).toMatch(/^╰─+╯$/);
    // the question left nothing behind: no cursor report reached the box, no sample above it
    expect(screen).not.toMatch(/\d;\d+R/);
    expect(lines.slice(0, at).join('\n')).not.toContain('👍');
  });
});
