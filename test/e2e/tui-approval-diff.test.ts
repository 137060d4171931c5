import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, workspace, useFakeServer } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// The edit approval in a real terminal (issue 26, defect 3): what is approved is visible. A long
// new line wraps inside the box at 120 and 60 columns (also after a resize), and Ctrl+O prints
// the whole diff above the prompt while it is open.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

const LONG = 'if (!config.apiKey) { console.error("no API key: set ANTHROPIC_API_KEY or add apiKey to .agentrc"); process.exit(1); }';
/** The screen's text inside the approval box, borders and line breaks out. */
const boxText = (screen: string): string => {
  const box = screen.slice(screen.lastIndexOf('╭'), screen.lastIndexOf('╰'));
  return box.replace(/[│╭╮╰╯─]/g, '').replace(/\s+/g, ' ');
};

describe.skipIf(!hasTmux)('the edit approval diff in a real terminal', () => {
  it('wraps a long line at 120 and at 60 columns, and Ctrl+O prints the whole diff while the prompt is open', async () => {
    const ws = workspace();
    const rows = Array.from({ length: 60 }, (_, i) => `const v${i + 1} = ${i + 1};`);
    writeFileSync(join(ws.dir, 'main.ts'), `${rows.join('\n')}\n`);
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5'], cwd: ws.dir, env, width: 120, height: 30 });
    await term.waitFor('Ask for a change');
    const newText = rows.map((r, i) => (i === 0 ? `${r}\n${LONG}` : i % 10 === 9 ? r.replace('= ', '= 10 * ') : r)).join('\n');
    server.enqueue(
      { toolCalls: [{ name: 'FileRead', input: { path: 'main.ts' } }] },
      { toolCalls: [{ name: 'Edit', input: { path: 'main.ts', old_string: rows.join('\n'), new_string: newText } }] },
      { text: 'Done.' },
    );
    term.type('guard the key');
    term.keys('Enter');
    await term.waitFor('Edit wants to change main.ts');
    await term.waitFor('Apply once');
    let box = boxText(term.screen());
    expect(box).toContain(LONG.replace(/\s+/g, ' '));
    expect(box).not.toContain('…');

    term.resize(60, 30);
    await term.waitFor(/│ *\d+ *\+ if \(!config/);
    await new Promise((r) => setTimeout(r, 500));
    box = boxText(term.screen());
    expect(box).toContain(LONG.replace(/\s+/g, ' '));
    expect(box).not.toContain('…');

    // the diff is taller than the box: Ctrl+O prints all of it above, the prompt stays open
    expect(term.screen()).not.toContain('+ const v60 = 10 * 60;');
    term.keys('C-o');
    await term.waitFor('Proposed, not applied yet');
    await term.waitFor('+ const v60 = 10 * 60;');
    expect(term.screen()).toContain('Edit wants to change main.ts');
    term.keys('Enter');
    await term.waitFor('Done.');
  });

  it('text typed at the approval prompt, Enter included, neither applies nor denies the edit', async () => {
    const ws = workspace();
    writeFileSync(join(ws.dir, 'a.ts'), 'export const a = 1;\n');
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5'], cwd: ws.dir, env, width: 100, height: 30 });
    await term.waitFor('Ask for a change');
    server.enqueue(
      { toolCalls: [{ name: 'FileRead', input: { path: 'a.ts' } }] },
      { toolCalls: [{ name: 'Edit', input: { path: 'a.ts', old_string: 'a = 1', new_string: 'a = 2' } }] },
      { text: 'Changed.' },
    );
    term.type('change a');
    term.keys('Enter');
    await term.waitFor('Apply once');
    // the person thought the prompt had focus: a message and its Enter (one chunk when typed fast)
    term.type('and then run the tests\r');
    await term.waitFor('Typed text is not an answer');
    term.keys('Enter');
    await term.waitFor(/^(?![\s\S]*Typed text is not an answer)[\s\S]*enter: choose/);
    await new Promise((r) => setTimeout(r, 500));
    expect(readFileSync(join(ws.dir, 'a.ts'), 'utf8')).toBe('export const a = 1;\n');
    expect(term.screen()).toContain('Apply once');
    term.keys('Enter');
    await term.waitFor('Changed.');
    expect(readFileSync(join(ws.dir, 'a.ts'), 'utf8')).toBe('export const a = 2;\n');
  });
});
