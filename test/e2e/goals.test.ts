import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import { lastUserText, type RequestView } from '../fake-server/server.js';
import { isSummarizer, jsonLines, runAgent, workspace, type Workspace, useFakeServer } from './inprocess.js';
import { describeRegimeFree } from './regime.js';

// Goals end to end in print mode (issue 47): the built CLI, the real SDK, the fake server as a
// model scripted to do one step of the work per reply (each appends a line to progress.txt) on
// a 30K window with maxSteps 10, so the work takes several turns and the history compacts.

const server = useFakeServer();
const MODEL = 'goal-model';
const OBJECTIVE = 'Append the 30 lines of the progress log, one per step (keep the zebra-417 marker).';
const CHECK = 'test $(wc -l < progress.txt) -ge 30';
const SUMMARY = '## Goal\nKeep appending lines.\n## Next Steps\nAppend the next line.';
// each step says a fair amount: the history grows past the compaction threshold within the work
const FILLER = 'Appending the next line of the progress log and noting what the step did, in some detail. '.repeat(30);

const lines = (ws: Workspace): number =>
  existsSync(join(ws.dir, 'progress.txt')) ? readFileSync(join(ws.dir, 'progress.txt'), 'utf8').split('\n').length - 1 : 0;

/** The model: a step of the work per reply while lines are missing; a short answer otherwise. */
function script(ws: Workspace): void {
  server.respondWith((req) => {
    const v: RequestView = req.view;
    if (isSummarizer(v)) return { text: SUMMARY };
    const last = lastUserText(v) ?? '';
    if (last.includes('[Goal stopped')) return { text: `Wrap-up: ${lines(ws)} lines are written, ${30 - lines(ws)} are left.` };
    if (last.includes('status?')) return { text: `${lines(ws)} lines so far.` };
    if (lines(ws) >= 30) return { text: 'All 30 lines are written.' };
    return { text: FILLER, toolCalls: [{ name: 'Bash', input: { command: 'echo step >> progress.txt' } }] };
  });
}

/** The first text of a request's history (a compacted one begins with its checkpoint). */
const firstText = (v: RequestView): string => {
  const b = v.messages[0]?.blocks[0];
  return b?.type === 'text' ? b.text : '';
};
const modelRequests = (): RequestView[] => server.requests.flatMap((q) => (q.view && !isSummarizer(q.view) ? [q.view] : []));

describeRegimeFree('goals in print mode', () => {
  let ws: Workspace;
  beforeEach(() => {
    ws = workspace({ models: { [MODEL]: { contextWindow: 27_000, maxOutputTokens: 2_048, provider: 'anthropic' } }, maxSteps: 10 });
    script(ws);
  });
  const run = (args: string[]) =>
    runAgent([...args, '--model', MODEL, '--allowed-tools', 'Bash', '--output-format', 'events'], { ws, server, timeoutMs: 120_000 });

  it('works turn after turn and across compactions until the check passes', async () => {
    const r = await run(['-p', `/goal ${OBJECTIVE} --check '${CHECK}'`]);
    expect(r.code, r.stderr).toBe(0);
    expect(lines(ws)).toBe(30);
    const evs = jsonLines(r.stdout);
    const result = evs.at(-1)!;
    expect(result['type']).toBe('result');
    expect(result['turns'] as number).toBeGreaterThanOrEqual(3);
    expect((result['goal'] as { status: string }).status).toBe('complete');
    const compacted = evs.findIndex((e) => e['type'] === 'compaction_end' && (e['record'] as { status: string }).status === 'applied');
    expect(compacted, 'no compaction').toBeGreaterThanOrEqual(0);
    // the objective verbatim in every request after the first compaction (its swap: the summary
    // is written in the background, the requests meanwhile carry the full history); none over the window
    expect(
      server.requests.some((q) => q.view && isSummarizer(q.view)),
      'no summary was asked for',
    ).toBe(true);
    // (a warm-up, asking for 16 output tokens, sends the compacted history before its swap)
    const firstCompaction = server.requests.findIndex(
      (q) => q.view && !isSummarizer(q.view) && q.view.maxTokens !== 16 && /^\[Context checkpoint/.test(firstText(q.view)),
    );
    expect(firstCompaction, 'no request after a compaction').toBeGreaterThan(0);
    const after = server.requests.slice(firstCompaction).flatMap((q) => (q.view && !isSummarizer(q.view) ? [q.view] : []));
    expect(after.length).toBeGreaterThan(0);
    // the ledger's section ("Objective (active): …") in each, beside the continuation's own words
    const shapes = JSON.stringify(server.requests.map((q) => [isSummarizer(q.view!), q.view!.maxTokens, firstText(q.view!).slice(0, 20)]));
    for (const v of after) expect(JSON.stringify(v.messages), shapes).toContain(`Objective (active): ${OBJECTIVE}`);
    for (const q of server.requests) {
      expect(q.response?.status, JSON.stringify(q.response)).toBe(200);
      expect(q.view!.promptTokens).toBeLessThanOrEqual(27_000);
    }
    // goal events on the stream, the last one complete
    const goals = evs.filter((e) => e['type'] === 'goal');
    expect((goals.at(-1)!['goal'] as { status: string }).status).toBe('complete');
  }, 180_000);

  it('a turn budget stops it short with a wrap-up; a resumed run leaves it be until /goal resume finishes it', async () => {
    const r = await run(['-p', `/goal ${OBJECTIVE} --check '${CHECK}' --turns 2`]);
    expect(r.code, r.stderr).toBe(0);
    expect(lines(ws)).toBe(20);
    const evs = jsonLines(r.stdout);
    const result = evs.at(-1)!;
    expect(result['turns']).toBe(3);
    // the result's usage and steps are the three turns' together
    const turnEnds = evs.filter((e) => e['type'] === 'turn_end') as Array<{ steps: number; usage: { inputTokens: number; outputTokens: number } }>;
    expect(turnEnds).toHaveLength(3);
    const usage = result['usage'] as { inputTokens: number; outputTokens: number };
    expect(usage.outputTokens).toBe(turnEnds.reduce((n, t) => n + t.usage.outputTokens, 0));
    expect(usage.inputTokens).toBe(turnEnds.reduce((n, t) => n + t.usage.inputTokens, 0));
    expect(result['steps']).toBe(turnEnds.reduce((n, t) => n + t.steps, 0));
    expect(result['result']).toContain('Wrap-up: 20 lines are written');
    const goal = result['goal'] as { status: string; reason: string };
    expect(goal.status).toBe('budget_limited');
    expect(goal.reason).toContain('turn budget (2 turns) ran out');

    // sessions show prints the saved goal
    const shown = await runAgent(['sessions', 'show', result['sessionId'] as string], { ws });
    expect(shown.stdout).toContain(`Goal (budget-limited: the turn budget (2 turns) ran out): ${OBJECTIVE}`);
    expect(shown.stdout).toContain('Used: 2/2 turns');
    const status = await run(['-p', 'status?', '--continue']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stderr).toContain('goal budget-limited');
    expect(lines(ws)).toBe(20);
    expect(jsonLines(status.stdout).at(-1)!['turns']).toBe(1);

    const resumed = await run(['-p', '/goal resume', '--continue']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(lines(ws)).toBe(30);
    expect((jsonLines(resumed.stdout).at(-1)!['goal'] as { status: string }).status).toBe('complete');
    expect(modelRequests().every((v) => v.promptTokens <= 27_000)).toBe(true);
  }, 180_000);

  it("without a check the model's claim (the Goal tool) ends it, and a Stop hook can veto the end of a goal turn first", async () => {
    // the person's own Stop hook (home .agentrc: no project approval) sends the model back once
    const hook = `cat > /dev/null; if [ ! -f vetoed ]; then touch vetoed; echo '{"decision":"block","reason":"also write the NOTES file"}'; fi`;
    writeFileSync(join(ws.home, '.agentrc'), JSON.stringify({ hooks: { Stop: [{ command: hook }] } }));
    server.respondWith((req) => {
      const v: RequestView = req.view;
      const last = lastUserText(v) ?? '';
      const results = JSON.stringify(v.messages.at(-1));
      if (results.includes('The goal is marked complete')) return { text: 'Done: the notes are written.' };
      if (last.includes('A Stop hook asks you to go on')) return { toolCalls: [{ name: 'Goal', input: { action: 'complete' } }] };
      return { text: 'I believe it is done.' };
    });
    const r = await run(['-p', '/goal write the notes']);
    expect(r.code, r.stderr).toBe(0);
    const result = jsonLines(r.stdout).at(-1)!;
    expect(result['result']).toBe('Done: the notes are written.');
    expect(result['turns']).toBe(1);
    expect(result['goal']).toMatchObject({ status: 'complete', reason: 'the model said it is done' });
    // the tool is offered while the goal is open
    expect(modelRequests()[0]!.toolNames).toContain('Goal');
    expect(JSON.stringify(modelRequests()[1]!.messages)).toContain('also write the NOTES file');
  }, 60_000);

  it('over --input-format stream-json a /goal line runs its turns and answers with one result; a second line after it is a plain turn', async () => {
    const input = [`/goal ${OBJECTIVE} --check '${CHECK}' --turns 1`, 'status?']
      .map((content) => JSON.stringify({ type: 'user', message: { role: 'user', content }, parent_tool_use_id: null, session_id: '' }))
      .join('\n');
    const r = await runAgent(
      ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--model', MODEL, '--allowed-tools', 'Bash'],
      {
        ws,
        server,
        stdin: `${input}\n`,
        timeoutMs: 60_000,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const msgs = jsonLines(r.stdout);
    const results = msgs.filter((m) => m['type'] === 'result');
    expect(results.map((m) => m['result'])).toEqual(['Wrap-up: 10 lines are written, 20 are left.', '10 lines so far.']);
    expect(results[0]!['agent_goal']).toMatchObject({ status: 'budget_limited' });
    const goals = msgs.filter((m) => m['type'] === 'system' && m['subtype'] === 'agent_goal');
    expect(goals.length).toBeGreaterThan(0);
    expect(goals.at(-1)!['goal']).toMatchObject({ objective: OBJECTIVE, status: 'budget_limited' });
    expect(lines(ws)).toBe(10);
  }, 90_000);
});

// Mutations checked: SessionGoal.ledger() returning nothing fails "Objective (active): … in every
// request after the compaction" (the continuation's own "Objective:" line does not match it).
// Not killed here: restore() leaving a resumed *active* goal active — these runs leave it
// budget-limited or complete; test/goals/goals.test.ts kills that one.
