import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fake-server/server.js';
import { LONG, SUMMARY } from './compaction-cases.js';
import { AGENT_BIN, agentEnv, isSummarizer, useFakeServer, workspace, type Workspace } from './inprocess.js';
import { Tmux } from './terminal.js';

// /compact in the app runs in the background (issue 43 item 5): the prompt stays usable, a prompt
// sent meanwhile is answered at once with the full history, the receipt arrives when the summary
// does; the row "compacting… 4s" and the footer show the job; Esc or /compact cancel stops it.
// The fake's summarizer waits at a gate the test opens: nothing here depends on timing.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

const summaries = (): RecordedRequest[] => server.requests.filter((q) => q.view !== undefined && isSummarizer(q.view));
const turnRequests = (): RecordedRequest[] => server.requests.filter((q) => q.view !== undefined && !isSummarizer(q.view) && (q.view.maxTokens ?? 0) > 16);
const checkpointed = (q: RecordedRequest): boolean => {
  const first = q.view?.messages[0]?.blocks[0];
  return first?.type === 'text' && first.text.startsWith('[Context checkpoint');
};

/** Waits until the fake saw what `ok` looks for; fails with `what` when it does not within 15 s. */
async function until(what: string, ok: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The app on a session of three answered turns (the last stays after the checkpoint). */
async function started(ws: Workspace): Promise<Tmux> {
  const t = new Tmux({
    command: [process.execPath, AGENT_BIN],
    cwd: ws.dir,
    env: { ...agentEnv({ ws, server }), TERM: 'xterm-256color' },
    width: 140,
    height: 40,
  });
  await t.waitFor('Ask for a change');
  for (let n = 0; n < 3; n++) await turn(t, `question ${n}`, `${LONG}(turn ${n} done)`);
  return t;
}

async function turn(t: Tmux, prompt: string, answer: string): Promise<void> {
  server.enqueue({ text: answer });
  t.type(prompt);
  t.keys('Enter');
  await t.waitFor(answer.slice(-20), 30_000);
}

/** /compact typed; resolves once its summary request reached the fake (held at its gate). */
async function compact(t: Tmux, seen: number): Promise<RecordedRequest> {
  t.type('/compact');
  t.keys('Enter');
  await t.waitFor(/✻ compacting… \d+s/);
  await until('the summary request', () => summaries().length > seen);
  return summaries()[seen]!;
}

describe('/compact in the app, in the background', () => {
  it('a prompt sent right after /compact is answered at once with the full history; the receipt arrives with the summary', async () => {
    const ws = workspace({ compaction: { tailTurns: 1 } });
    let open = (): void => undefined;
    const gate = new Promise<void>((r) => (open = r));
    server.respondWith((req) => (isSummarizer(req.view) ? { text: SUMMARY, gate } : undefined));
    term = await started(ws);

    await compact(term, 0);
    // the footer shows the job in flight
    await term.waitFor('compacting in the background');
    await turn(term, 'a question meanwhile', 'Answered while the summary is written.');
    const meanwhile = turnRequests().at(-1)!;
    // answered with the full history, the summary still on its way: no receipt yet, the row still there
    expect(checkpointed(meanwhile)).toBe(false);
    expect(JSON.stringify(meanwhile.view!.messages)).toContain('question 0');
    expect(term.screen()).not.toContain('Compacted');
    expect(term.screen(0)).toMatch(/✻ compacting… \d+s/);

    // a second prompt whose reply waits at a gate of its own: the summary arrives during that turn
    let reply = (): void => undefined;
    server.enqueue({ text: 'Answered as the summary came.', gate: new Promise<void>((r) => (reply = r)) });
    term.type('one more meanwhile');
    term.keys('Enter');
    await until('the second prompt', () => turnRequests().length > 4);
    open();
    await term.waitFor('summary ready, swapped in at the next turn');
    reply();
    await term.waitFor('Answered as the summary came.');
    // no boundary came after the summary in that turn: it is swapped in when the turn ends
    await term.waitFor('Compacted', 30_000);
    // the row and the footer's words go once it is swapped in
    await until('the row and the footer to clear', () => !/✻ compacting…|compacting in the background/.test(term!.screen(0)));
    await turn(term, 'and after it', 'Answered over the checkpoint.');
    const after = turnRequests().at(-1)!;
    expect(checkpointed(after)).toBe(true);
    // the prompt sent meanwhile stayed verbatim after the checkpoint
    expect(JSON.stringify(after.view!.messages)).toContain('a question meanwhile');
    // the answers before it were archived (the ledger keeps the person's words, not the replies)
    expect(JSON.stringify(after.view!.messages)).not.toContain('(turn 0 done)');
  }, 120_000);

  it('Esc and /compact cancel stop a pending one: its request is cancelled, the history stays as it is', async () => {
    const ws = workspace({ compaction: { tailTurns: 1 } });
    // the gate never opens: only a cancel ends these requests
    const gate = new Promise<void>(() => undefined);
    server.respondWith((req) => (isSummarizer(req.view) ? { text: SUMMARY, gate } : undefined));
    term = await started(ws);

    const first = await compact(term, 0);
    term.keys('Escape');
    await term.waitFor('cancelled: the history stays as it is');
    await until('the first summary request to be cancelled', () => first.cancelled === true);
    await until('the row to clear', () => !/✻ compacting…/.test(term!.screen(0)));

    const second = await compact(term, summaries().length);
    term.type('/compact cancel');
    term.keys('Enter');
    await until('the second summary request to be cancelled', () => second.cancelled === true);
    await until('the row to clear', () => !/✻ compacting…/.test(term!.screen(0)));
    // nothing to cancel now: said so
    term.type('/compact cancel');
    term.keys('Enter');
    await term.waitFor('no compaction is running');

    await turn(term, 'still whole?', 'The history is whole.');
    expect(checkpointed(turnRequests().at(-1)!)).toBe(false);
    expect(term.screen()).not.toContain('Compacted');
  }, 120_000);
});

// Mutations checked (each run): /compact in the app waiting for its summary (registry.ts
// without the compactInBackground branch) fails the first test (no job in the background: the
// footer never says "compacting in the background"); Esc at rest without cancelCompaction
// (app-keys.ts) fails the second (no cancel shown, the request never cancelled); a summary that
// settles during a turn left for the next prompt (Session.end without background.rested) fails
// the first's wait for the receipt. The footer's words are pinned by test/ui/gauge.test.tsx.
