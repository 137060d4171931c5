import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, runAgent, workspace, useFakeServer } from './harness.js';
import { hasTmux, Tmux } from './tmux.js';

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

// Issue 30 item 14: after --continue the footer and /context disagreed by a point, and the gauge
// seemed to stay put. Until the tokenizer is loaded the footer shows the provider's count of the
// last request plus ~4 bytes a token for what came after; /context loads it and counts exactly,
// and the footer follows; a turn moves both alike.

const footer = (screen: string): number =>
  Number(
    /(\d+)% context left/.exec(
      screen
        .split('\n')
        .reverse()
        .find((l) => l.includes('context left')) ?? '',
    )?.[1],
  );

describe.skipIf(!hasTmux)('the gauge after --continue', () => {
  it('agrees with /context once it counted exactly, and moves in the first turn', async () => {
    const model = 'claude-sonnet-5-5';
    const ws = workspace({ permissions: { mode: 'allow' }, models: { [model]: { contextWindow: 40_000, maxOutputTokens: 4_096 } } });
    server.settings.contextWindow = { [model]: 40_000, '*': 1_000_000 };
    // the reply the provider has not counted yet: numbers, which take ~2 bytes a token, not ~4
    const numbers = Array.from({ length: 1_500 }, (_, i) => i + 1).join(' ');
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: 'seq 1 1500' } }] }, { text: `${numbers}\n\nCounted.` });
    const first = await runAgent(['-p', 'count', '--model', model], { ws, server });
    expect(first.code, first.stderr).toBe(0);
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color' };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', model, '--continue'], cwd: ws.dir, env, width: 140, height: 40 });
    await term.waitFor('Counted.');
    await new Promise((r) => setTimeout(r, 500));
    const a = footer(term.screen());
    term.type('/context');
    term.keys('Enter');
    await term.waitFor('tokens in use');
    const ctx1 = Number(/(\d+)% context left ·/.exec(term.screen())?.[1]);
    await new Promise((r) => setTimeout(r, 300));
    const a2 = footer(term.screen());
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: 'seq 2000 3500' } }] }, { text: 'Counted again.' });
    term.type('count more');
    term.keys('Enter');
    await term.waitFor('Counted again.');
    await new Promise((r) => setTimeout(r, 500));
    const b = footer(term.screen());
    term.type('/context');
    term.keys('Enter');
    await new Promise((r) => setTimeout(r, 1500));
    const all = [...term.screen().matchAll(/(\d+)% context left ·/g)].map((m) => Number(m[1]));
    // the footer's rough figure took the numbers for fewer tokens than /context counts (73% left
    // against 68% here); mutation: contextParts without its context event leaves the footer where it was
    expect(ctx1).toBeLessThan(a);
    expect(a2).toBe(ctx1);
    // the first turn after --continue moves the gauge, and /context says the same after it
    expect(b).toBeLessThan(a2);
    expect(all.at(-1)).toBe(b);
  });
});

// Mutation checked: background compaction's prefire threshold (0.7 of auto) judged on the exact
// counter's upper bound instead of the rough figure loads the tokenizer in the first run, whose
// exact counts make the resumed footer exact from the start (68% before /context, not 73%).
