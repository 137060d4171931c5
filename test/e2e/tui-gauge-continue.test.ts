import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, runAgent, workspace, useFakeServer } from './harness.js';
import { waitForIdle } from './screenWaits.js';
import { hasTmux, Tmux } from './tmux.js';

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

// Issue 30 item 14 and issue 49 item 18: after --continue the footer said 56% and then 59% with
// nothing sent in between, and /context a point off the footer. The footer showed a rough figure
// (~4 bytes a token) until the tokenizer happened to load, then the exact one. Now the TUI counts
// exactly from the start (the footer says "counting context…" until then), so its first figure is
// the one /context shows, and only a request moves it. Spawned: a fresh process is the subject
// (a test worker keeps the tokenizer once a run loaded it).

const FOOTER = /(\d+)% context left/;
const footer = (screen: string): number =>
  Number(
    FOOTER.exec(
      screen
        .split('\n')
        .reverse()
        .find((l) => FOOTER.test(l)) ?? '',
    )?.[1],
  );
/** The last /context output's figure ("N% context left · … tokens in use"). */
const contextFigure = (screen: string): number => Number([...screen.matchAll(/(\d+)% context left · [\d.,]+k? of/g)].at(-1)?.[1]);

describe.skipIf(!hasTmux)('the gauge after --continue', () => {
  it('shows /context’s figure from its first one, and only a request moves it', async () => {
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
    const a = footer(await term.waitFor(FOOTER));
    term.type('/context');
    term.keys('Enter');
    const ctx1 = contextFigure(await term.waitFor('tokens in use'));
    const a2 = footer(term.screen());
    // before the fix the footer's first figure was the rough one (73% against /context's 68%); mutation: the controller not calling countExactly leaves the footer at "counting context…" (the wait above fails)
    expect(ctx1).toBe(a);
    expect(a2).toBe(a);
    const requestsBefore = server.requests.length;
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: 'seq 2000 3500' } }] }, { text: 'Counted again.' });
    term.type('count more');
    term.keys('Enter');
    await term.waitFor('Counted again.');
    await waitForIdle(term);
    const b = footer(term.screen());
    term.type('/context');
    term.keys('Enter');
    await term.waitFor(/tokens in use[\s\S]*tokens in use/);
    // the first turn after --continue moves the gauge, and /context says the same after it
    expect(server.requests.length).toBeGreaterThan(requestsBefore);
    expect(b).toBeLessThan(a);
    expect(contextFigure(term.screen())).toBe(b);
    expect(footer(term.screen())).toBe(b);
  });
});

// Mutation checked: background compaction's prefire threshold (0.7 of auto) judged on the exact
// counter's upper bound instead of the rough figure loads the tokenizer in the first run, whose
// exact counts make the resumed footer exact from the start (68% before /context, not 73%).
