import type { ChildProcess } from 'node:child_process';
import { expect, it } from 'vitest';
import type { RequestView } from '../fake-server/types.js';
import { bigFile, events, records } from './compaction-cases.js';
import { isSummarizer, runAgent, useFakeServer, workspace, type Workspace } from './harness.js';
import { runAgent as runInProcess } from './inprocess.js';
import { describeRegimeFree } from './regime.js';

// Background compaction (issue 43) end to end: the program in a `-p` tool loop of 40 steps on
// a 30K window, the fake server's summarizer slow (its reply starts seconds later) or never
// answering. The session must never stop for the summary: it goes on with the full history and
// the summary is swapped in at a step boundary, after a warm-up request wrote the compacted
// history to the (simulated) prompt cache; a summarizer that never answers is cancelled at its
// deadline and, at the hard limit, a compaction without a summary is applied. The loops run in
// this process; only the kill -9 loop's killed runs are processes of their own (kill -9 is its
// subject).

const server = useFakeServer();
const MODEL = 'bg-30k';
const STEPS = 40;
/** Each step's reply starts this late: a model that takes its time, so the loop runs for seconds. */
const STEP_MS = 400;
/** The slow summarizer: slower than any two steps, so a session that waited for it would show it. */
const SUMMARY_MS = 3_000;
/** The longest wait between two steps the issue allows. */
const MAX_GAP_MS = 2_000;

/** A summary that passes the ledger's probes (the person's request, Goal, Next Steps): one request each. */
const SUMMARY = '## Goal\nread the files\n## Next Steps\nKeep reading.';

const isWarmUp = (v: RequestView): boolean => (v.maxTokens ?? Number.POSITIVE_INFINITY) <= 16;
const isCheckpointed = (v: RequestView): boolean => {
  const first = v.messages[0]?.blocks[0];
  return first?.type === 'text' && first.text.startsWith('[Context checkpoint');
};

/** A workspace with ten files of about 1,300 tokens each; micro compaction kept out of the way (every output recent). */
function loopWorkspace(compaction: Record<string, unknown> = {}): Workspace {
  const ws = workspace({
    models: { [MODEL]: { contextWindow: 30_000, maxOutputTokens: 4_096, provider: 'anthropic' } },
    // the summary starts at 0.7 of the auto threshold (the default starts it later, where it costs no more
    // than the synchronous path): the slow summarizer has the time to answer before the hard limit
    compaction: { microKeepRecent: 100, prefire: 0.7, ...compaction },
  });
  server.settings.contextWindow = { [MODEL]: 30_000, '*': 1_000_000 };
  for (let i = 0; i < 10; i++) bigFile(ws, `f${i}.txt`, 60);
  return ws;
}

/**
 * The scripted model: summary requests get SUMMARY (or `summarizer`'s reply), a warm-up its few
 * tokens, and the loop STEPS FileRead calls, then its answer. The times the loop's requests
 * arrived are returned.
 */
function script(summarizer: { delayMs?: number; hang?: boolean }): { stepTimes: number[] } {
  const stepTimes: number[] = [];
  let step = 0;
  server.respondWith((req) => {
    const v = req.view;
    if (isSummarizer(v)) return { text: SUMMARY, ...summarizer };
    if (isWarmUp(v)) return { text: 'ok' };
    stepTimes.push(Date.now());
    step++;
    if (step > STEPS) return { text: 'Done.', delayMs: STEP_MS };
    return { toolCalls: [{ name: 'FileRead', input: { path: `f${step % 10}.txt` } }], delayMs: STEP_MS };
  });
  return { stepTimes };
}

/**
 * The agent's longest wait between two steps: the longest time from one loop request to the next,
 * less the STEP_MS the fake's model takes to start each reply (the model's time, not the agent's).
 */
const longestGap = (times: readonly number[]): number => times.slice(1).reduce((max, t, i) => Math.max(max, t - times[i]!), 0) - STEP_MS;

describeRegimeFree('background compaction in a -p tool loop', () => {
  it('never waits for a slow summarizer: the summary is swapped in at a step boundary, over a warmed cache', async () => {
    // the summary starts at half the auto threshold: on a quiet machine the steps come fast enough
    // that a 3 s summary started at 0.7 arrived after the hard limit (a swap there is not warmed,
    // by design), so the test failed there and passed only under load
    const ws = loopWorkspace({ prefire: 0.5 });
    const { stepTimes } = script({ delayMs: SUMMARY_MS });
    const r = await runInProcess(['-p', 'read the files', '--output-format', 'events', '--model', MODEL], { ws, server, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    const evs = events(r.stdout);
    const applied = records(evs).filter((c) => c.status === 'applied' && c.trigger === 'auto');
    const seen = JSON.stringify(
      evs
        .filter((e) => e.type.startsWith('compaction'))
        .map((e) => [
          e.type,
          e.record?.status,
          e.record?.method,
          e.record?.reason,
          e.record?.tokensBefore,
          (e as { tokensBefore?: number }).tokensBefore,
          (e as { stage?: string }).stage,
        ]),
    );
    expect(applied.length, seen).toBeGreaterThan(0);
    // a summary was written, not the fallback
    expect(applied[0]!.method, seen).not.toBe('ledger');
    expect(stepTimes.length).toBe(STEPS + 1);
    // the loop never stopped for the summary (a synchronous compaction waits SUMMARY_MS between two steps)
    expect(longestGap(stepTimes)).toBeLessThan(MAX_GAP_MS);
    // the warm-up wrote the compacted history to the cache before the swap: the first request
    // after it reads at least 90% of its input from there
    const main = server.requests.filter((q) => q.view && !isSummarizer(q.view));
    const first = main.find((q) => !isWarmUp(q.view!) && isCheckpointed(q.view!));
    expect(first, 'a request after the swap').toBeDefined();
    const u = first!.usage!;
    const input = u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
    expect(u.cacheReadTokens / input).toBeGreaterThanOrEqual(0.9);
    expect(main.filter((q) => isWarmUp(q.view!)).length).toBeGreaterThan(0);
  }, 180_000);

  it('a summarizer that never answers cannot stop the loop: cancelled at its deadline, and the fallback named in the receipt', async () => {
    const ws = loopWorkspace({ summaryDeadlineSeconds: 2 });
    const { stepTimes } = script({ hang: true });
    const r = await runInProcess(['-p', 'read the files', '--output-format', 'events', '--model', MODEL], { ws, server, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(stepTimes.length).toBe(STEPS + 1);
    const all = records(events(r.stdout));
    const fallback = all.filter((c) => c.status === 'applied' && c.method === 'ledger');
    expect(fallback.length, JSON.stringify(all.map((c) => [c.trigger, c.status, c.method, c.reason]))).toBeGreaterThan(0);
    expect(fallback[0]!.reason).toMatch(/^no summary: /);
    // the next request the fake accepted carries the ledger instead of a summary
    const after = server.requests.filter((q) => q.view && !isSummarizer(q.view) && isCheckpointed(q.view));
    expect(after.length).toBeGreaterThan(0);
    expect(JSON.stringify(after[0]!.view!.messages[0])).toContain('No summary was written');
  }, 180_000);
});

// The kill -9 loop checks that a run killed in any phase of a background compaction resumes to
// a history the provider accepts. Its kills land before or after the swap's one SQLite
// transaction, never inside it (the random ones did not either, but by chance): a kill from
// outside cannot check that transaction's atomicity, and no test does yet. Mutation checked: the
// swap stored without its checkpoint's messages (historyWrites.applyCompaction committing none of
// `c.added`) fails the resume after a swap whose history then starts with an assistant message
// ("first message must use the user role"): run 2's when there were 7 runs, run 3's (swap stored)
// since there are 5 (checked again 7 Dec).
// Mutations checked: compaction.background defaulting to false (the synchronous path) fails the
// first test's longest gap (~3 s); dropping the warm-up (EngineDeps.warm left out) fails its
// cache share (the first request after the swap writes the checkpoint instead of reading it);
// the fallback left out of BackgroundCompaction.step at the hard limit fails the second test
// (the loop overflows the window and the run ends in an error).

/** The phases of a background compaction a run is killed in. */
type KillPoint = 'summary requested' | 'warm-up sent' | 'swap stored' | 'first step after the swap';

/**
 * Where each run of the kill -9 loop is killed: the phases of a background compaction in the
 * order one session passes them, each reached by a state rather than a time. The fake server
 * kills the run as the summarizer's request arrives (the summary in flight, nothing of it
 * stored), as the warm-up's arrives (the summary ready, the swap not stored yet), or as the first
 * step request that carries the checkpoint arrives (the swap stored, the loop going on over it);
 * the run's own output kills it as it reports the swap it stored. The first cycle's swap happens
 * in the run that is then killed after it, the second cycle's in the run killed as it reports it
 * (the next run's first request then carries the checkpoint). The second cycle kills only where
 * the first could not: its summary request and warm-up pass unkilled (they were killed there too,
 * as in the first cycle, until issue 50: a kill before the swap is stored leaves the history as
 * the last step stored it, checkpoint or not, which the first cycle's two kills and the resumes
 * over a checkpoint after runs 2 and 3 prove already; 7 killed runs -> 5). Thirty runs killed at
 * random times (300-3,000 ms after the session opened) landed in these phases, most of them in
 * the tool steps between them (crash.test.ts kills those outside compaction), without saying
 * which one each did: here each phase is landed in on every run of the test, and a run that never
 * reaches its phase fails (the loop does not end by itself; the run times out).
 */
const KILL_POINTS: readonly KillPoint[] = ['summary requested', 'warm-up sent', 'first step after the swap', 'swap stored', 'first step after the swap'];

describeRegimeFree('background compaction and kill -9', () => {
  it('a run killed in each phase of a background compaction always resumes to a valid history the fake accepts', async () => {
    const ws = loopWorkspace();
    let mode: 'loop' | 'check' = 'loop';
    let point: KillPoint | undefined;
    let agent: ChildProcess | undefined;
    let landed = false;
    let steps = 0;
    const killAt = (reached: KillPoint): void => {
      if (landed || reached !== point) return;
      landed = true;
      agent?.kill('SIGKILL');
    };
    server.respondWith((req) => {
      const v = req.view;
      if (isSummarizer(v)) {
        killAt('summary requested');
        return { text: SUMMARY, delayMs: 400 };
      }
      if (isWarmUp(v)) {
        killAt('warm-up sent');
        return { text: 'ok', delayMs: 200 };
      }
      if (mode === 'check') return { text: 'ok' };
      if (isCheckpointed(v)) killAt('first step after the swap');
      steps++;
      return { toolCalls: [{ name: 'FileRead', input: { path: `f${steps % 10}.txt` } }], delayMs: 150 };
    });
    for (const [run, at] of KILL_POINTS.entries()) {
      mode = 'loop';
      point = at;
      landed = false;
      let swapped = false;
      const killed = await runAgent(['-p', 'read the files', '--output-format', 'events', '--model', MODEL, ...(run > 0 ? ['--continue'] : [])], {
        ws,
        server,
        timeoutMs: 60_000,
        onSpawn: (child) => {
          agent = child;
          let buffer = '';
          child.stdout?.on('data', (d: Buffer | string) => {
            buffer += d.toString();
            for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
              const e = JSON.parse(buffer.slice(0, nl)) as { type: string; record?: { status?: string } };
              buffer = buffer.slice(nl + 1);
              if (e.type === 'compaction_end' && e.record?.status === 'applied') {
                swapped = true;
                killAt('swap stored');
              }
            }
          });
        },
      });
      // the loop never ends by itself: a run that was not killed where it should be times out
      expect(killed.signal, `run ${run} (${at}): ${killed.stderr}`).toBe('SIGKILL');
      expect(landed, `run ${run} was killed before it reached "${at}"`).toBe(true);
      if (at === 'swap stored') expect(swapped).toBe(true);
      mode = 'check';
      point = undefined;
      const before = server.requests.length;
      // the resume is not the process under test: it runs in this one, on the killed run's database
      const check = await runInProcess(['-p', 'are you there?', '--model', MODEL, '--continue'], { ws, server, timeoutMs: 60_000 });
      expect(check.code, `run ${run} (${at}): ${check.stderr}`).toBe(0);
      // every request the resumed session sent was accepted (the fake refuses an invalid history with a 400)
      const sent = server.requests.slice(before).filter((q) => q.view);
      // (a background summary cancelled at the run's end has no response: it is no refusal)
      expect(sent.filter((q) => q.response?.status === 200).length).toBeGreaterThan(0);
      for (const q of sent) expect(q.response?.kind, `run ${run} (${at}): ${q.response?.errorMessage ?? ''}`).not.toBe('error');
    }
  }, 300_000);
});
