import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest, Reply } from '../fake-server/server.js';
import { bigFile, SUMMARY } from './compaction-cases.js';
import { AGENT_BIN, agentEnv, isSummarizer, useFakeServer, workspace, type Workspace } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// Issue 20's bar for history changes in the TUI (the in-process terminal) on claude-sonnet-5-5, whose replayed
// thinking is bound to everything before it: thinking tool turns, then /compact, /uncompact and
// /rewind, each followed by more thinking tool turns. The fake server refuses a tool loop sent
// without its thinking and a block bound to a prefix that changed: zero refused requests is the
// bar. And a deprecated model is told in the TUI.

const server = useFakeServer();
const MODEL = 'claude-sonnet-5-5';
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

/** A tool loop of two calls whose three replies think, then its (long) answer. */
function loop(t: number): Reply[] {
  const thinking = `Turn ${t}: I should check the files first.`;
  return [
    { thinking, toolCalls: [{ name: 'Bash', input: { command: `wc -l big${t}.txt` } }] },
    { thinking, toolCalls: [{ name: 'Bash', input: { command: `echo step-${t}` } }] },
    { thinking, text: `${'The file holds lines about a fox and a dog, numbered, nothing else of note. '.repeat(40)}Checked big${t}.txt (turn ${t} done).` },
  ];
}

function start(ws: Workspace): Tmux {
  const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
  return new Tmux({ command: [process.execPath, AGENT_BIN, '--model', MODEL], cwd: ws.dir, env, width: 120, height: 40 });
}

async function turn(t: Tmux, n: number): Promise<void> {
  server.enqueue(...loop(n));
  t.type(`turn ${n}: check the next file`);
  t.keys('Enter');
  await t.waitFor(`(turn ${n} done).`, 30_000);
}

async function command(t: Tmux, text: string, done: RegExp | string): Promise<void> {
  t.type(text);
  t.keys('Enter');
  await t.waitFor(done, 30_000);
}

const thinkingBlocks = (q: RecordedRequest): number => (q.view?.messages ?? []).reduce((n, m) => n + m.blocks.filter((b) => b.type === 'thinking').length, 0);
const turnRequests = (): RecordedRequest[] => server.requests.filter((q) => q.view !== undefined && !isSummarizer(q.view));

describe.skipIf(!hasTmux)('thinking across history changes in the TUI', () => {
  it('/compact, /uncompact and /rewind between thinking tool turns on claude-sonnet-5-5: nothing refused, loops carry their thinking', async () => {
    // the last turn stays after the checkpoint, the two before it are archived
    const ws = workspace({ permissions: { mode: 'allow' }, compaction: { tailTurns: 1 } });
    for (let i = 0; i < 10; i++) bigFile(ws, `big${i}.txt`, 20);
    server.respondWith((req) => (isSummarizer(req.view) ? { text: SUMMARY } : undefined));
    term = start(ws);
    await term.waitFor('Ask for a change');
    for (let n = 0; n < 3; n++) await turn(term, n);

    await command(term, '/compact', 'Compacted');
    await turn(term, 3);
    const beforeUndo = server.requests.length;
    await command(term, '/uncompact', /Undid compaction 1: [\d,]+ more messages? in view/);
    await turn(term, 4);
    // the first request after /uncompact: the originals are back, and with their prefix their thinking
    const afterUndo = server.requests.slice(beforeUndo).find((q) => q.view && !isSummarizer(q.view))!;
    expect(thinkingBlocks(afterUndo)).toBeGreaterThanOrEqual(9);

    term.type('/rewind');
    term.keys('Enter');
    await term.waitFor('Rewind to before which turn?');
    term.keys('Up', 'Enter');
    await term.waitFor('Code and conversation');
    term.keys('Enter');
    await term.waitFor(/Rewound to before turn \d/, 30_000);
    // the rewound prompt comes back in the input: clear it before the next turn
    term.keys('C-u');
    for (let n = 5; n < 7; n++) await turn(term, n);

    const refused = server.requests.filter((q) => q.response?.status !== 200).map((q) => `#${q.seq} ${q.response?.status}: ${q.response?.errorMessage ?? ''}`);
    expect(refused).toEqual([]);
    // every request that continued a tool loop sent the loop's reply with its thinking first
    const loops = turnRequests().filter((q) => {
      const m = q.view!.messages;
      return m.at(-1)?.blocks.some((b) => b.type === 'tool_result');
    });
    expect(loops.length).toBeGreaterThanOrEqual(14);
    expect(loops.every((q) => q.view!.messages.at(-2)?.blocks[0]?.type === 'thinking')).toBe(true);
    expect(server.requests.filter((q) => q.view && isSummarizer(q.view)).length).toBeGreaterThan(0);
  }, 300_000);

  it('tells a deprecated model in the TUI, with its dates, as its description arrives', async () => {
    server.settings.models = { [MODEL]: { lifecycle: 'deprecated', deprecatedAt: '2026-09-01T00:00:00Z', retiresAt: '2027-03-01T00:00:00Z' } };
    term = start(workspace());
    await term.waitFor('Ask for a change');
    await term.waitFor(`${MODEL} is deprecated since 2026-09-01 (anthropic): it retires on 2027-03-01`);
  }, 60_000);
});
