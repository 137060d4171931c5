import { processesMatching } from '../processTable.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RequestView } from '../fake-server/types.js';
import { runAgent, useFakeServer, workspace } from './inprocess.js';

// Background commands through print mode and the fake provider: Bash run_in_background answers
// while the command runs, the end notice reaches the model's next request with the last line, a
// foreground command past its timeout is moved there and its late output reaches the model, Recall
// reads a running command by pattern and range, and nothing is left once -p ends (after the
// result). The agent runs in-process (inprocess.ts); a SIGTERM to the agent's process mid-command
// is signals.test.ts's.

const server = useFakeServer();

/** Processes (not zombies) whose command line contains `marker`, the agent itself left out (its prompt names the markers too). */
function running(marker: string): string[] {
  return processesMatching(marker).filter((l) => !l.includes('agent.js'));
}

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const uniqueSleep = (): string => `300.${process.pid}${Math.floor(Math.random() * 1e6)}`;

/** Everything the last user message of a request says: its tool results and its texts. */
function lastUser(view: RequestView | undefined): string {
  const m = view?.messages[view.messages.length - 1];
  return (m?.blocks ?? []).map((b) => (b.type === 'tool_result' ? b.content : b.type === 'text' ? b.text : '')).join('\n---\n');
}

describe('background commands in print mode', () => {
  it('answer at once, are told when they end, move past a timeout, read by Recall, and are stopped after the result', async () => {
    const ws = workspace();
    const secs = uniqueSleep();
    let runningWhenAnswered = false;
    const prompt = [
      `@call Bash {"command":"echo first-BG; sleep ${secs}","run_in_background":true}`,
      '@call Bash {"command":"echo short-start; sleep 0.3; echo short-last-line","run_in_background":true}',
      '@then',
      '@bash sleep 1.5',
      '@then',
      '@call Recall {"id":"b1","pattern":"first"}',
      '@call Recall {"id":"b1","offset":1,"limit":1}',
      '@then',
      // b3 cannot end before its timeout moves it (it waits for the next step's release, not a sleep
      // that a late timer could outlast), and the timeout leaves its first echo 2 s to arrive; the
      // next step releases it and waits (10 s at most) until its process is gone, so its end is
      // there for the next request
      `@call Bash ${JSON.stringify({ command: 'echo $$ > b3.pid; echo early-out; until [ -f release-b3 ]; do sleep 0.05; done; echo late-out', timeout: 2000 })}`,
      '@then',
      '@bash touch release-b3; i=0; while kill -0 "$(cat b3.pid)" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done',
      '@then',
      '@report all done',
    ].join('\n');
    // the second request (the answers to the two background calls) comes while b1's sleep runs
    void until(() => server.requests.length >= 2, 30_000, 'the second request').then(() => {
      runningWhenAnswered = running(`sleep ${secs}`).length > 0;
    });
    const r = await runAgent(['-p', prompt, '--permission-mode', 'allow'], { ws, server, timeoutMs: 40_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('all done');
    const views = server.requests.map((q) => q.view);
    // mutation: a Bash that ignores run_in_background blocks on the 300 s sleep (the run times out)
    expect(runningWhenAnswered).toBe(true);
    expect(lastUser(views[1])).toMatch(/Started in the background as b1 \(pid \d+\): echo first-BG[\s\S]*First lines:\nfirst-BG/);
    expect(lastUser(views[1])).toContain('Started in the background as b2');
    // mutation: no notices hook in the loop leaves the ended command untold
    // the first request after it ended carries it, whichever that is: on a quiet machine the one after
    // the 1.5 s sleep; under load the short command may end before the calls' own results go back,
    // or only after the sleep (the notice is not timed)
    const afterwards = (from: number, re: RegExp): string | undefined =>
      views
        .slice(from)
        .map(lastUser)
        .find((t) => re.test(t));
    expect(afterwards(1, /\[Background command b2 ended: exit code 0 after [\d.]+m?s\]\n\$ echo short-start[\s\S]*short-last-line/)).toBeDefined();
    expect(lastUser(views[3])).toContain('1: first-BG');
    expect(lastUser(views[3])).toContain('(running) (id b1):\nfirst-BG');
    expect(lastUser(views[4])).toMatch(/still running after 2s, so it was moved to the background as b3[\s\S]*Output so far:\nearly-out/);
    expect(
      afterwards(4, /\[Background command b3 ended: exit code 0[\s\S]*early-out\nlate-out/),
      `b3's end notice in a request after its move:\n${views.slice(4).map(lastUser).join('\n===\n')}`,
    ).toBeDefined();
    // after the result b1 was stopped, with a note on stderr, and nothing of the run is left
    expect(r.stderr).toContain('agent: stopping the background command still running: b1 `echo first-BG;');
    expect(running(`sleep ${secs}`)).toEqual([]);
  }, 60_000);

  it('Recall reads a command by what is new since the last read, by range, by pattern and by a search, while it runs and after it ended', async () => {
    const ws = workspace();
    const cmd =
      'echo alpha-1; echo alpha-2; until [ -f go ]; do sleep 0.05; done; echo beta-3; echo needle-4; until [ -f stop ]; do sleep 0.05; done; echo gamma-5';
    const prompt = [
      `@call Bash ${JSON.stringify({ command: cmd, run_in_background: true })}`,
      '@then',
      '@bash sleep 0.5',
      '@then',
      '@call Recall {"id":"b1","since_last_read":true}',
      '@then',
      '@call Recall {"id":"b1","since_last_read":true}',
      '@then',
      '@bash touch go; sleep 0.5',
      '@then',
      '@call Recall {"id":"b1","since_last_read":true}',
      '@recall needle',
      '@then',
      '@bash touch stop; sleep 0.5',
      '@then',
      '@call Recall {"id":"b1","since_last_read":true}',
      '@call Recall {"id":"b1","pattern":"^needle"}',
      '@then',
      '@call Recall {"id":"b1","offset":2,"limit":2}',
      '@recall gamma',
      '@then',
      '@report read',
    ].join('\n');
    const r = await runAgent(['-p', prompt, '--permission-mode', 'allow'], { ws, server, timeoutMs: 40_000 });
    expect(r.code, r.stderr).toBe(0);
    const v = server.requests.map((q) => lastUser(q.view));
    // mutation: since_last_read starting at line 1 every time repeats alpha-1 in views 3 and 5
    expect(v[3]).toMatch(/\(running\) \(id b1\):\nalpha-1\nalpha-2$/);
    expect(v[4]).toContain('(running) (id b1) has no new output: 2 lines so far, all read.');
    expect(v[6]).toContain('(running) (id b1), lines 3-4 of 4:\nbeta-3\nneedle-4');
    // mutation: a Recall query that searches only the store finds nothing (no compaction happened)
    expect(v[6]).toMatch(/1\. id: b1 — background command `echo alpha-1;[^\n]*\(running\) · [^\n]*\n {3}needle-4/);
    // after it ended: the notice, then what is new, the pattern and a range of the archived output
    expect(v[7]).toMatch(/\[Background command b1 ended: exit code 0/);
    expect(v[8]).toMatch(/\(exit code 0\) \(id b1\), lines 5-5 of 5:\ngamma-5/);
    expect(v[8]).toContain('4: needle-4');
    expect(v[9]).toContain('lines 2-3 of 5:\nalpha-2\nbeta-3');
    expect(v[9]).toMatch(/id: b1 — background command [^\n]*\(exit code 0\)[^\n]*\n {3}gamma-5/);
  }, 60_000);

  it('--keep-background leaves a command running past the end, detached (it keeps printing), with its pid on stderr', async () => {
    const ws = workspace();
    const mark = `keep-${process.pid}-${Math.floor(Math.random() * 1e6)}`;
    const prompt = [
      `@call Bash ${JSON.stringify({ command: `while :; do echo tick; sleep 0.1; done # ${mark}`, run_in_background: true })}`,
      '@then',
      '@report started',
    ].join('\n');
    const r = await runAgent(['-p', prompt, '--permission-mode', 'allow', '--keep-background'], { ws, server, timeoutMs: 30_000 });
    const pid = Number(/b1 `while :; do echo tick; sleep 0\.1; done # [^`]*` \(pid (\d+)\)/.exec(r.stderr)?.[1]);
    try {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trim()).toBe('started');
      expect(r.stderr).toContain('agent: the background command left running (detached): b1 `while :;');
      expect(pid).toBeGreaterThan(0);
      // the command to stop it, with its pid in place (a "-<pid>" placeholder fails here)
      expect(r.stderr).toContain(`stop it with kill -TERM -${pid} (its whole process group)`);
      // it prints every 100 ms: a pipe left without a reader would end it (SIGPIPE) well within this
      await new Promise((res) => setTimeout(res, 600));
      // mutation: no drain for its pipe (or the group still tracked, SIGKILLed at the exit) leaves nothing running
      expect(running(mark).length).toBeGreaterThan(0);
    } finally {
      if (pid > 0) process.kill(-pid, 'SIGTERM');
    }
    await until(() => running(mark).length === 0, 5_000, 'the kept command to stop');
  }, 40_000);

  it("a sub-agent's background command is stopped when it ends, or handed to the parent (Task keep_background), whose model gets its end notice", async () => {
    const ws = workspace();
    mkdirSync(join(ws.dir, '.agent', 'agents'), { recursive: true });
    writeFileSync(
      join(ws.dir, '.agent', 'agents', 'runner.md'),
      '---\nname: runner\ndescription: Runs commands.\ntools: Bash, Recall, KillShell\n---\nRun what you are asked.\n',
    );
    const dropped = uniqueSleep();
    const child = (command: string): string => `@call Bash ${JSON.stringify({ command, run_in_background: true })}\n@report child started it`;
    const prompt = [
      `@task ${JSON.stringify({ description: 'start and drop', prompt: child(`echo dropped-up; sleep ${dropped}`), agent: 'runner' })}`,
      '@then',
      `@bash sleep 0.3; echo "left: $(ps -eo stat=,args= | grep -v agent.js | grep -v '^Z' | grep -c 'slee[p] ${dropped}')"`,
      '@then',
      `@task ${JSON.stringify({ description: 'start and hand', prompt: child('echo handed-up; sleep 1; echo handed-last-line'), agent: 'runner', keep_background: true })}`,
      '@then',
      '@bash sleep 2',
      '@then',
      '@call Recall {"id":"b1","pattern":"handed"}',
      '@then',
      '@report parent done',
    ].join('\n');
    const r = await runAgent(['-p', prompt, '--permission-mode', 'allow'], { ws, server, timeoutMs: 40_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('parent done');
    // the parent's requests: those whose first message is the prompt
    const parent = server.requests.filter((q) => JSON.stringify(q.view?.messages[0]).includes('start and drop')).map((q) => lastUser(q.view));
    // mutation: a child's close that does not stop its commands leaves the sleep running after its Task result
    expect(parent[2]).toContain('left: 0');
    expect(parent[1]).not.toContain('handed you');
    // mutation: keep_background ignored (the command stopped with the child) leaves no hand-over notice and no end notice
    expect(parent[3]).toMatch(
      /\[The sub-agent "runner: start and hand" ended and handed you its background command still running: b1 `echo handed-up; sleep 1; echo handed-last-line` \(pid \d+; b1 in the sub-agent\)/,
    );
    expect(parent[4]).toMatch(/\[Background command b1 ended: exit code 0[\s\S]*handed-last-line/);
    expect(parent[5]).toContain('2: handed-last-line');
  }, 60_000);

  it('KillShell answers in print mode and the turn goes on to its result (text and stream-json)', async () => {
    const ws = workspace();
    const secs = uniqueSleep();
    const prompt = [
      `@call Bash {"command":"sleep ${secs}","run_in_background":true}`,
      '@then',
      '@call KillShell {"shell_id":"b1"}',
      '@then',
      '@report stopped it',
    ].join('\n');
    const r = await runAgent(['-p', prompt, '--permission-mode', 'allow'], { ws, server, timeoutMs: 30_000 });
    expect([r.code, r.stdout.trim()], r.stderr).toEqual([0, 'stopped it']);
    const killed = server.requests.map((q) => lastUser(q.view)).find((t) => t.includes('Stopped b1'));
    expect(killed).toContain(`sleep ${secs}`);
    expect(running(`sleep ${secs}`)).toEqual([]);
    const json = await runAgent(['-p', prompt.replaceAll(secs, uniqueSleep()), '--permission-mode', 'allow', '--output-format', 'stream-json', '--verbose'], {
      ws,
      server,
      timeoutMs: 30_000,
    });
    const result = json.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { type: string; result?: string; is_error?: boolean })
      .find((e) => e.type === 'result');
    expect(json.code, json.stderr).toBe(0);
    expect(result).toMatchObject({ result: 'stopped it', is_error: false });
  }, 60_000);
  // Mutation: stopGroup's waits unref'd again (the KillShell await the only thing the event loop holds) ends -p
  // with exit 0, an empty stdout and no result line.
});
