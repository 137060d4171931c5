import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Reply } from '../fake-server/server.js';
import { bigFile, SUMMARY } from './compaction-cases.js';
import { AGENT_BIN, agentEnv, isSummarizer, useFakeServer, workspace } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// The 12-turn tool session of issue 20 in the TUI (tmux) on claude-sonnet-5-5 with a 16K
// window: thinking shown collapsed and whole (Ctrl+O), /cost's thinking tokens, micro and auto
// compaction firing, and zero requests refused by a fake that enforces thinking's binding.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

function turn(t: number): Reply[] {
  const thinking = `Turn ${t}: I should look at the files before answering.`;
  if (t % 3 === 0)
    return [
      { thinking, toolCalls: [{ name: 'FileRead', input: { path: `big${t}.txt` } }] },
      { thinking, text: `Read big${t}.txt (turn ${t} done).` },
    ];
  if (t % 3 === 1)
    return [
      { thinking, toolCalls: [{ name: 'Bash', input: { command: `echo turn-${t}` } }] },
      { thinking, text: `Ran it (turn ${t} done).` },
    ];
  return [{ thinking, text: `${'A long answer about the project and its files. '.repeat(40)}(turn ${t} done).` }];
}

describe.skipIf(!hasTmux)('thinking in the TUI', () => {
  it('12 turns on claude-sonnet-5-5 at 16K: thinking shown, compaction fires, nothing refused', async () => {
    const model = 'claude-sonnet-5-5';
    const ws = workspace({
      permissions: { mode: 'allow' },
      compaction: { microKeepRecent: 2 },
      models: { [model]: { contextWindow: 16_384, maxOutputTokens: 4_096 } },
    });
    server.settings.contextWindow = { [model]: 16_384, '*': 1_000_000 };
    for (let i = 0; i < 12; i++) bigFile(ws, `big${i}.txt`, 90);
    writeFileSync(join(ws.dir, 'notes.txt'), 'notes\n');
    server.respondWith((req) => (isSummarizer(req.view) ? { text: SUMMARY } : undefined));
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', model], cwd: ws.dir, env, width: 120, height: 40 });
    await term.waitFor('Ask for a change');
    for (let t = 0; t < 12; t++) {
      server.enqueue(...turn(t));
      term.type(`turn ${t}: next part`);
      term.keys('Enter');
      await term.waitFor(`(turn ${t} done).`, 30_000);
    }
    expect(term.screen()).toMatch(/✻ Thought \(\d+ tokens\): Turn 11: I should look/);
    term.keys('C-o');
    await term.waitFor(/✻ Thought \(\d+ tokens\)\n\s+Turn 11: I should look at the files before answering\./);
    term.type('/cost');
    term.keys('Enter');
    await term.waitFor('of it thinking');
    const refused = server.requests.filter((q) => q.response?.status !== 200).map((q) => q.response?.errorMessage);
    expect(refused).toEqual([]);
    const compactions = server.requests.filter((q) => q.view && isSummarizer(q.view)).length;
    expect(compactions).toBeGreaterThan(0);
  }, 300_000);
});
