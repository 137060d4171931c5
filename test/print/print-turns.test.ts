import { mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRuntime } from '../../src/bootstrap.js';
import { PrintTurns } from '../../src/print/printTurns.js';
import { terminate } from '../../src/processes/signals.js';
import { inWorld, processWorld } from '../../src/runtime/world.js';
import { readOnlyCopy } from '../../src/sessionLookup.js';
import { openStore } from '../../src/store/index.js';
import { startFakeServer, type FakeServer } from '../fake-server/server.js';
import type { Reply } from '../fake-server/types.js';
import { fakeProviderEnv } from '../llm/helpers.js';
import { isSummaryRequest, SUMMARY } from '../compaction/helpers.js';
import type { ModelRequest } from '../../src/llm/provider.js';
import { tempDir } from '../tempDirs.js';
import { collector } from '../worlds.js';

// Print mode's turns over a real runtime (createRuntime against the fake provider) with
// stream-json in and out, its standard output captured: one result line per input line.

/** An answer long enough that a compaction after it has something to shrink. */
const ANSWER = `The fake model answers. ${'It goes on about the code base at some length. '.repeat(150)}`.trim();
let server: FakeServer;

/** A fresh home with a project folder in it, the fake provider's environment, and a world whose stdout and stderr are kept. */
function printWorld(prefix: string) {
  const home = tempDir(prefix);
  const cwd = join(home, 'project');
  mkdirSync(cwd);
  const env = fakeProviderEnv(home, server.anthropicBaseURL);
  const out = collector();
  const err = collector();
  const world = { ...processWorld(), cwd, env, stdout: out.stream, stderr: err.stream, slots: new Map<symbol, unknown>() };
  return { env, world, written: out.text, said: err.text };
}

/** The JSON lines a run wrote (events or stream-json), parsed. */
const jsonLinesOf = (text: string): Array<Record<string, unknown>> =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  server = await startFakeServer({ fallback: { text: ANSWER } });
  // the summarizer's request (/compact) gets a checkpoint
  server.respondWith(summaries);
});
const summaries = (r: { view?: unknown }) => (isSummaryRequest(r.view as unknown as ModelRequest) ? { text: SUMMARY } : undefined);
afterAll(() => server.close());

describe('print mode, a line at a time (--input-format stream-json)', () => {
  it("a prompt's result is its answer; a command that prints nothing of its own (/compact) is its receipt, not a turn's", async () => {
    const { env, world, written } = printWorld('agent-print-turns-');
    await inWorld(world, async () => {
      const { runtime } = await createRuntime({ outputFormat: 'stream-json', inputFormat: 'stream-json', model: 'claude-sonnet-4-5' }, {}, env);
      const turns = new PrintTurns(runtime, { format: 'stream-json', inputStream: true, partialMessages: false });
      turns.listen();
      expect(await turns.once('say something', [])).toBe(0);
      expect(await turns.once('say more', [])).toBe(0);
      const code = await turns.once('/compact', []);
      expect(code).toBe(0);
      runtime.close();
    });
    const results = jsonLinesOf(written()).filter((m) => m['type'] === 'result');
    expect(results).toHaveLength(3);
    expect(results[0]).toMatchObject({ is_error: false, result: ANSWER });
    // mutation: `!output && this.lastTurn` made `||`: a command without output read as a model turn's result
    expect(results[2]!['result']).not.toBe(ANSWER);
    expect(results[2]!['result']).toMatch(/compact/i);
  });
});

describe('print mode, a line at a time: /plan <task>, and what a line leaves to the next', () => {
  it("/plan <task>'s result is its turn's (the plan presented); a /compact after it is its own receipt; a later prompt's result is its answer alone", async () => {
    const { env, world, written } = printWorld('agent-print-plan-');
    const codes = await inWorld(world, async () => {
      const { runtime } = await createRuntime({ outputFormat: 'events', inputFormat: 'stream-json', model: 'claude-sonnet-4-5' }, {}, env);
      const turns = new PrintTurns(runtime, { format: 'events', inputStream: true, partialMessages: false });
      turns.listen();
      // each line's session goes on: no background compaction is waited for at a line's end (only a one-prompt run's end)
      const settled = vi.spyOn(runtime.session, 'settleCompaction');
      const lines = [`/plan @call ExitPlanMode ${JSON.stringify({ plan: 'Step one: read the notes.' })}`, '/compact', '/plan off', '@report Just this.'];
      const codes: number[] = [];
      for (const line of lines) codes.push(await turns.once(line, []));
      // mutation: `!this.opts.inputStream` without its `!` (after /plan's turn, after a prompt's) settles each line
      expect(settled).not.toHaveBeenCalled();
      runtime.close();
      return codes;
    });
    const results = jsonLinesOf(written()).filter((m) => m['type'] === 'result');
    expect(codes).toEqual([0, 1, 0, 0]);
    expect(results).toHaveLength(4);
    // mutation: dropping `this.lastTurn = …` at turn_end (printTurns.ts) reads /plan's line as a command that printed nothing
    expect(results[0]).toMatchObject({ stopReason: 'stopped', turns: 1, isError: false, result: 'Step one: read the notes.' });
    expect(results[0]).not.toHaveProperty('command');
    // (the summary would not be smaller: /compact fails, and says so)
    // mutation: dropping `this.lastTurn = undefined` in once() gives /compact the /plan turn's result
    expect(results[1]).toMatchObject({ command: '/compact', isError: true, result: expect.stringMatching(/^Compaction not applied/) });
    // mutation: dropping `this.plans = new Map()` in once() prints the plan again under a later line's answer
    expect(results[3]).toMatchObject({ stopReason: 'end_turn', result: 'Just this.' });
  });
});

describe('print mode, one prompt', () => {
  it('/plan <task> as the one prompt: its turn is the result, and the run settles a background compaction before it ends, as after any prompt', async () => {
    const { env, world, written } = printWorld('agent-print-once-');
    const calls = await inWorld(world, async () => {
      const { runtime } = await createRuntime({ outputFormat: 'events', model: 'claude-sonnet-4-5' }, {}, env);
      const turns = new PrintTurns(runtime, { format: 'events', inputStream: false, partialMessages: false });
      turns.listen();
      const settled = vi.spyOn(runtime.session, 'settleCompaction');
      expect(await turns.once('/plan @report Nothing to plan.', [])).toBe(0);
      const afterPlan = settled.mock.calls.length;
      expect(await turns.once('@report Plain.', [])).toBe(0);
      runtime.close();
      return [afterPlan, settled.mock.calls.length];
    });
    // mutation: `!this.opts.inputStream` without its `!` leaves a due compaction unswapped at the run's end
    expect(calls).toEqual([1, 2]);
    const results = jsonLinesOf(written()).filter((m) => m['type'] === 'result');
    expect(results.map((r) => r['result'])).toEqual(['Nothing to plan.', 'Plain.']);
  });
});

describe('a turn that does not end well', () => {
  /** Runs `prompt` once in `format` while `respond` answers the fake provider: the exit code, stdout's JSON lines, stderr. */
  async function failing(prompt: string, format: 'text' | 'events', respond: (r: { view?: unknown }, session: { interrupt(): unknown }) => Reply | undefined) {
    const { env, world, written, said } = printWorld('agent-print-fail-');
    try {
      const code = await inWorld(world, async () => {
        const { runtime } = await createRuntime({ model: 'claude-sonnet-4-5', outputFormat: format }, {}, env);
        server.respondWith((r) => summaries(r) ?? respond(r, runtime.session));
        const turns = new PrintTurns(runtime, { format, inputStream: false, partialMessages: false });
        turns.listen();
        const c = await turns.once(prompt, []);
        runtime.close();
        return c;
      });
      const lines = format === 'events' ? jsonLinesOf(written()) : [];
      return { code, lines, written: written(), said: said() };
    } finally {
      server.respondWith(summaries);
    }
  }

  it("a provider's error: exit code 1, the result an error carrying its message; said on stderr only in text", async () => {
    const refuse = (): Reply => ({ type: 'error', error: 'invalid_request', message: 'the fake refuses this one' });
    const events = await failing('fail please', 'events', refuse);
    expect(events.code).toBe(1);
    expect(events.lines.at(-1)).toMatchObject({
      type: 'result',
      isError: true,
      stopReason: 'error',
      error: expect.stringContaining('the fake refuses this one'),
    });
    expect(events.said).toBe('');
    const text = await failing('fail please', 'text', refuse);
    expect(text.code).toBe(1);
    expect(text.said).toContain('agent: ');
    expect(text.said).toContain('the fake refuses this one');
  });

  it('an interrupted turn (aborted) is a failed run too', async () => {
    const r = await failing('stop me', 'events', (_r, session) => {
      session.interrupt();
      return undefined;
    });
    expect(r.lines.at(-1)).toMatchObject({ type: 'result', isError: true, stopReason: 'aborted' });
    expect(r.code).toBe(1);
  });
});

describe("print mode's goals: the note on stderr, the result's turns and goal, the goal events", () => {
  /** Runs one `-p` line over a fresh home: its exit code, stdout's lines, what stderr said, and how the goal stands after. */
  async function runLine(line: string, format: 'text' | 'events' | 'stream-json') {
    const { env, world, written, said } = printWorld('agent-print-goal-');
    let status: string | undefined;
    let code: number | undefined;
    let sessionId = '';
    await inWorld(world, async () => {
      const { runtime } = await createRuntime({ model: 'claude-sonnet-4-5', outputFormat: format }, {}, env);
      const turns = new PrintTurns(runtime, { format, inputStream: false, partialMessages: false });
      turns.listen();
      code = await turns.once(line, []);
      sessionId = runtime.session.id;
      status = runtime.goals.of(sessionId)?.view()?.status;
      runtime.close();
    });
    const lines = format === 'text' ? [] : jsonLinesOf(written());
    return { code, written: written(), lines, said: said(), status, sessionId };
  }
  /** A check that fails and a budget of one turn: the goal's turn, then its wrap-up turn. */
  const LIMITED = "/goal write the notes --check 'false' --turns 1";

  it('a goal that runs more than one turn ends with a note naming how it ended; one met in its first turn ends without it', async () => {
    const limited = await runLine(LIMITED, 'text');
    expect(limited.code).toBe(0);
    expect(limited.status).toBe('budget_limited');
    expect(limited.said).toContain('Goal set: write the notes');
    expect(limited.said).toMatch(/agent: goal budget-limited: .*turn budget/);
    // the answer printed is the last turn's (the wrap-up's), once
    expect(limited.written).toBe(`${ANSWER}\n`);
    // mutation: `turns > 1` made `turns > 0`: a goal whose check passed after its first turn announced as if it had worked on
    // the check fails once (before the first turn: the directory is made), then passes
    const met = await runLine("/goal write the notes --check '! mkdir once'", 'text');
    expect(met.code).toBe(0);
    expect(met.status).toBe('complete');
    expect(met.said).toContain('Goal set: write the notes');
    expect(met.said).not.toMatch(/agent: goal /);
  });

  it("events: the result sums the goal's turns and carries the goal; each change of the goal is an event of this session; stderr stays quiet", async () => {
    const r = await runLine(LIMITED, 'events');
    expect(r.code).toBe(0);
    expect(r.said).toBe('');
    const result = r.lines.at(-1)!;
    expect(result).toMatchObject({ type: 'result', sessionId: r.sessionId, isError: false, turns: 2, steps: 2, result: ANSWER });
    expect(result['goal']).toMatchObject({ status: 'budget_limited', objective: 'write the notes' });
    const goals = r.lines.filter((l) => l['type'] === 'goal');
    expect(goals.length).toBeGreaterThan(1);
    for (const g of goals) expect(g['sessionId']).toBe(r.sessionId);
    expect(goals[0]!['goal']).toMatchObject({ status: 'active' });
    expect(goals.at(-1)!['goal']).toMatchObject({ status: 'budget_limited' });
  });

  it("stream-json: the goal's changes are agent_goal system messages, and the result names the goal and its turns", async () => {
    const r = await runLine(LIMITED, 'stream-json');
    expect(r.code).toBe(0);
    const goals = r.lines.filter((l) => l['type'] === 'system' && l['subtype'] === 'agent_goal');
    expect(goals.length).toBeGreaterThan(1);
    expect(goals.at(-1)!['goal']).toMatchObject({ status: 'budget_limited' });
    const result = r.lines.at(-1)!;
    expect(result).toMatchObject({ type: 'result', is_error: false, num_turns: 2, result: ANSWER });
    expect(result['agent_goal']).toMatchObject({ status: 'budget_limited' });
    // no events-format goal lines here
    expect(r.lines.some((l) => l['type'] === 'goal')).toBe(false);
  });

  it("the turn that runs is the one a signal's shutdown waits for: the goal's later turn, not its first", async () => {
    const { env, world: w } = printWorld('agent-print-goal-');
    const seen: Array<Promise<unknown> | undefined> = [];
    try {
      await inWorld(w, async () => {
        const { runtime } = await createRuntime({ model: 'claude-sonnet-4-5', outputFormat: 'text' }, {}, env);
        const turns = new PrintTurns(runtime, { format: 'text', inputStream: false, partialMessages: false });
        turns.listen();
        server.respondWith((r) => {
          if (!summaries(r)) seen.push(turns.running);
          return summaries(r);
        });
        expect(await turns.once(LIMITED, [])).toBe(0);
        runtime.close();
      });
    } finally {
      server.respondWith(summaries);
    }
    // the goal's turn, then its wrap-up turn: two requests, each while its own turn runs
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBeInstanceOf(Promise);
    // mutation: dropping `this.running = running` in the goal's loop leaves the first (ended) turn there
    expect(seen[1]).not.toBe(seen[0]);
  });

  it("a signal that comes during a goal's later turn: the run waits for the signal's exit and prints no result of its own", async () => {
    const { env, world: w, written } = printWorld('agent-print-goal-');
    let settled = false;
    try {
      const code = await inWorld(w, async () => {
        const { runtime } = await createRuntime({ model: 'claude-sonnet-4-5', outputFormat: 'text' }, {}, env);
        const turns = new PrintTurns(runtime, { format: 'text', inputStream: false, partialMessages: false });
        turns.listen();
        let run: Promise<number> | undefined;
        // the goal's second turn (its wrap-up) is asked for: SIGTERM comes now; the shutdown waits for the run (bounded by SHUTDOWN_MS)
        const exited = new Promise<number>((exit) => {
          let asked = 0;
          server.respondWith((r) => {
            if (!summaries(r) && ++asked === 2) void inWorld(w, () => terminate('SIGTERM', () => run?.then(() => undefined), exit));
            return summaries(r);
          });
        });
        run = turns.once(LIMITED, []).then((c) => {
          settled = true;
          return c;
        });
        const exitCode = await exited;
        runtime.close();
        return exitCode;
      });
      expect(code).toBe(143);
      expect(settled).toBe(false);
      expect(written()).toBe('');
    } finally {
      server.respondWith(summaries);
    }
  });
  // mutation: dropping `await untilTerminated()` after a goal's later turn (printTurns.ts) fails it: the run prints its result and ends
});

describe("print mode's runtime: --hooks-trust", () => {
  it("lets a project skill's code run without anyone to ask; without it the code does not run", async () => {
    const may: boolean[] = [];
    for (const hooksTrust of [true, false]) {
      const { env, world } = printWorld('agent-print-trust-');
      mkdirSync(join(world.cwd, '.claude', 'skills', 'deploy'), { recursive: true });
      writeFileSync(join(world.cwd, '.claude', 'skills', 'deploy', 'SKILL.md'), '---\nname: deploy\ndescription: Deploys\n---\nThe branch: !`git branch`\n');
      may.push(
        await inWorld(world, async () => {
          const { runtime } = await createRuntime({ model: 'claude-sonnet-4-5', outputFormat: 'text', hooksTrust }, {}, env);
          try {
            const skill = runtime.skills.list().find((s) => s.name === 'deploy')!;
            return await runtime.skills.mayRunCode(skill, new AbortController().signal);
          } finally {
            runtime.close();
          }
        }),
      );
    }
    // mutation: `trustProject: opts.hooksTrust === false` (bootstrap.ts) ignores the flag
    expect(may).toEqual([true, false]);
  });
});

describe("print mode's runtime: a read-only run's copy left behind", () => {
  it('is removed when a run starts once its reader is gone', async () => {
    const { env, world } = printWorld('agent-print-copies-');
    const store = openStore(env['AGENT_DB']!);
    let copy: string;
    try {
      store.createSession({ id: 's_original', cwd: world.cwd, provider: 'anthropic', model: 'claude-sonnet-4-5' });
      copy = readOnlyCopy(store, store.getSession('s_original')!, world.cwd).id;
      // its reader was killed: a pid above the kernel's maximum never lived
      store.acquireLease(copy, { token: 'gone', pid: 2 ** 22 + 1, host: hostname() }, () => false);
    } finally {
      store.close();
    }
    const left = await inWorld(world, async () => {
      const { runtime } = await createRuntime({ model: 'claude-sonnet-4-5', outputFormat: 'text' }, {}, env);
      try {
        return [runtime.store.getSession(copy), runtime.store.getSession('s_original')?.id];
      } finally {
        runtime.close();
      }
    });
    // mutation: `if (store.readonly) removeLeftoverCopies(store)` (bootstrap.ts) leaves it
    expect(left).toEqual([undefined, 's_original']);
  });
});
