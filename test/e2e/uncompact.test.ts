import { describe, expect, it } from 'vitest';
import { lastUserText, type RequestView } from '../fake-server/server.js';
import { AGENT_BIN, agentEnv, isSummarizer, jsonResult, MODEL, runAgent, workspace, useFakeServer, type ProviderKind, type Workspace } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';
import { describeEachProvider, describeRegimeFree } from './regime.js';

// Both regimes: the archived messages brought back carry thinking blocks of the family's form.
// /uncompact end to end: a session compacted in one process is resumed in another, and the
// compaction is undone there — in print mode with both providers, and in the TUI in a real
// terminal. The next request carries the archived messages again and no longer the summary.

const server = useFakeServer();
const SUMMARY = '## Goal\nTalk about the animals.\n## Next Steps\nGo on.';
const LONG = 'This answer explains one animal in some detail so there is history to compact. '.repeat(20);

async function compactedSession(ws: Workspace, provider: ProviderKind): Promise<void> {
  server.respondWith((req) => (isSummarizer(req.view) ? { text: SUMMARY } : undefined));
  for (let i = 0; i < 4; i++) {
    server.enqueue({ text: `Answer ${i} about animal-${i}. ${LONG}` });
    const r = await runAgent(['-p', `tell me about animal-${i}`, ...(i ? ['--continue'] : [])], { ws, server, provider });
    expect(r.code, r.stderr).toBe(0);
  }
  const c = await runAgent(['-p', '/compact', '--continue'], { ws, server, provider });
  expect(c.code, c.stderr).toBe(0);
}

const turnText = (v: RequestView): string => JSON.stringify(v.messages);
const lastTurn = (): RequestView => server.requests.filter((q) => q.view && !isSummarizer(q.view)).at(-1)!.view!;

describeEachProvider('/uncompact in print mode (%s)', (provider) => {
  it('undoes the compaction of a resumed session: the next request carries the archived turns again, not the summary', async () => {
    const ws = workspace();
    await compactedSession(ws, provider);
    server.enqueue({ text: 'after compaction' });
    expect((await runAgent(['-p', 'what came first?', '--continue'], { ws, server, provider })).code).toBe(0);
    expect(turnText(lastTurn())).toContain('Talk about the animals');
    expect(turnText(lastTurn())).not.toContain('Answer 0 about animal-0');

    const list = await runAgent(['-p', '/uncompact list', '--continue'], { ws, server, provider });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/ 1\. .* manual +c_\S+ — \d+ messages archived/);

    const undo = await runAgent(['-p', '/uncompact', '--continue'], { ws, server, provider });
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toMatch(/Undid compaction 1: \d+ more messages in view, the context is now [\d,]+ tokens/);

    server.enqueue({ text: 'I remember animal-0' });
    const next = await runAgent(['-p', 'and now?', '--continue', '--output-format', 'json'], { ws, server, provider });
    expect(next.code, next.stderr).toBe(0);
    const sent = turnText(lastTurn());
    expect(sent).toContain('Answer 0 about animal-0');
    expect(sent).not.toContain('Talk about the animals');
    expect(lastUserText(lastTurn())).toContain('and now?');

    // nothing left to undo
    const again = await runAgent(['-p', '/uncompact', '--continue'], { ws, server, provider });
    expect(again.stdout).toContain('Nothing to undo');
    // the summary left the context but not the database: the transcript says what took it out
    const id = String(jsonResult(next).session_id);
    const show = await runAgent(['sessions', 'show', id, '--archived'], { ws });
    expect(show.stdout).toMatch(/## checkpoint \[archived by \/uncompact rv_\S+\]/);
  }, 90_000);
});

const answersIn = (v: RequestView): number[] => [...turnText(v).matchAll(/Answer (\d+) about animal/g)].map((m) => Number(m[1]));

describeRegimeFree('/uncompact when the archived messages do not fit', () => {
  it('says how much is missing and offers the newest part that fits, which then works', async () => {
    // a 16K window: the auto threshold is ~10K tokens; ten turns of ~1.3K tokens each do not fit back
    const model = 'small-16k';
    const ws = workspace({ models: { [model]: { contextWindow: 16_000, maxOutputTokens: 1_000, provider: 'anthropic' } }, compaction: { auto: false } });
    server.respondWith((req) => (isSummarizer(req.view) ? { text: SUMMARY } : undefined));
    const run = (args: string[]) => runAgent([...args, '--model', model, '--continue'], { ws, server });
    for (let i = 0; i < 10; i++) {
      server.enqueue({ text: `Answer ${i} about animal-${i}. ${LONG.repeat(4)}` });
      expect((await runAgent(['-p', `tell me about animal-${i}`, '--model', model, ...(i ? ['--continue'] : [])], { ws, server })).code).toBe(0);
    }
    expect((await run(['-p', '/compact'])).code).toBe(0);
    server.enqueue({ text: 'fine' });
    expect((await run(['-p', 'go on'])).code).toBe(0);
    const kept = answersIn(lastTurn());
    expect(kept).not.toContain(0);

    const undo = await run(['-p', '/uncompact']);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toMatch(/would bring the context to [\d,]+ tokens, [\d,]+ more than the auto-compaction threshold \([\d,]+ of a 16,000-token window\)/);
    expect(undo.stdout).toContain('Nothing was changed.');
    const offer = /\/uncompact 1 newest (\d+) brings back the newest \d+ of its (\d+) archived messages/.exec(undo.stdout);
    expect(offer, undo.stdout).not.toBeNull();
    expect(Number(offer![1])).toBeLessThan(Number(offer![2]));

    const part = await run(['-p', `/uncompact 1 newest ${offer![1]}`]);
    expect(part.code, part.stderr).toBe(0);
    expect(part.stdout).toMatch(/Brought back the newest \d+ messages compacted by compaction 1/);
    server.enqueue({ text: 'fine again' });
    expect((await run(['-p', 'and now?'])).code).toBe(0);
    const after = answersIn(lastTurn());
    expect(after.length).toBeGreaterThan(kept.length);
    expect(after).not.toContain(0);
    expect(turnText(lastTurn())).toContain('Talk about the animals');
    // the request fit: the fake server counted it under the auto threshold reported
    expect(lastTurn().promptTokens).toBeLessThan(16_000);
  }, 180_000);
});

describe.skipIf(!hasTmux)('/uncompact in the TUI', () => {
  describeEachProvider('with %s', (provider) => {
    it('undoes the compaction of a resumed session and shows the archived turns again', async () => {
      const ws = workspace();
      await compactedSession(ws, provider);
      const term = new Tmux({
        command: [process.execPath, AGENT_BIN, '--model', MODEL[provider], '--continue'],
        cwd: ws.dir,
        env: { ...agentEnv({ ws, server, provider }), TERM: 'xterm-256color', CI: 'true' },
      });
      try {
        await term.waitFor('Ask for a change');
        expect(term.screen()).not.toContain('Answer 0 about animal-0');
        term.type('/uncompact');
        term.keys('Enter');
        await term.waitFor(/Undid compaction 1: \d+ more messages in view/);
        // the transcript is drawn again from the restored history
        await term.waitFor('Answer 0 about animal-0');
        server.enqueue({ text: 'I see animal-0 again' });
        term.type('anything else?');
        term.keys('Enter');
        await term.waitFor('I see animal-0 again');
        expect(turnText(lastTurn())).toContain('Answer 0 about animal-0');
        // Ctrl+D ends it (Ctrl+C twice is tui-exit's: its hint could fall below this long screen)
        term.keys('C-d');
        expect(await term.waitForExit()).toBe(0);
      } finally {
        term.kill();
      }
    }, 90_000);
  });
});
