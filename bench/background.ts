// Background commands benchmark (issue 34): (1) a 50 MB stream from a background command archived
// to the cap, its peak RSS growth against the spill benchmark's 50 MB foreground output measured
// in the same run; (2) this process's CPU share with ten commands printing and no turn (what
// reading and archiving them costs, apart from any turn); (3) what they cost the turn loop: the
// round trip of a turn (a Bash call and an answer, real SDK against the fake server) with none
// running vs ten, in interleaved rounds, as a ratio, and this process's CPU time per turn (the
// agent's own cost, which the machine's load moves less). The loop runs twice: the fake server in
// this process (its work counted as the agent's) and in a child process (as a real provider is).
//   npm run bench -- background
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { backgroundCapability } from '../src/background/capability.js';
import { BackgroundCommands } from '../src/background/commands.js';
import { createTokenCounter } from '../src/compaction/tokens.js';
import { loadConfig } from '../src/config/config.js';
import { createProvider } from '../src/llm/factory.js';
import { redact } from '../src/log.js';
import { Session } from '../src/session/session.js';
import { openStore } from '../src/store/index.js';
import { createTools } from '../src/tools/registry.js';
import type { AnyTool } from '../src/tools/types.js';
import { startFakeServer } from '../test/fake-server/server.js';
import { runBigOutput } from './spill.js';

const mb = (v: number): string => (v / 2 ** 20).toFixed(1);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function bigStream(): Promise<{ seen: number; kept: number; growth: number; ms: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-bench-bg-big-'));
  try {
    const commands = new BackgroundCommands({ root: dir, maxRunning: 10, redact });
    const shells = commands.open('s1');
    const bash = createTools({ bash: { timeoutMs: 300_000, maxTimeoutMs: 600_000, maxOutputChars: 30_000 } }, { background: shells }).find(
      (t) => t.name === 'Bash',
    ) as AnyTool;
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const input = bash.parse({ command: "yes 'a line of fifty characters to make up fifty megabytes' | head -c 52428800", run_in_background: true });
    const start = performance.now();
    await bash.run(input, { cwd: dir, signal: new AbortController().signal });
    while (shells.running().length > 0) await new Promise((r) => setTimeout(r, 20));
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    const r = shells.list()[0]!;
    return { seen: r.bytes, kept: r.kept, growth: peak - before, ms: performance.now() - start };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** This process's CPU share (of one core) over `ms` with nothing else to do: none running, then ten printing a line every 10 ms. */
async function restingCost(ms: number): Promise<{ none: number; ten: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-bench-bg-cpu-'));
  try {
    const commands = new BackgroundCommands({ root: dir, maxRunning: 10, redact });
    const shells = commands.open('s1');
    const bash = createTools({ bash: { timeoutMs: 300_000, maxTimeoutMs: 600_000, maxOutputChars: 30_000 } }, { background: shells }).find(
      (t) => t.name === 'Bash',
    ) as AnyTool;
    const share = async (): Promise<number> => {
      const cpu = process.cpuUsage();
      const t = performance.now();
      await new Promise((r) => setTimeout(r, ms));
      const used = process.cpuUsage(cpu);
      return (used.user + used.system) / 1000 / (performance.now() - t);
    };
    const none = await share();
    for (let n = 0; n < 10; n++) {
      const input = bash.parse({ command: `exec 3<> <(:); while :; do echo "tick-${n} $SECONDS $RANDOM"; read -t 0.01 -u 3; done`, run_in_background: true });
      await bash.run(input, { cwd: dir, signal: new AbortController().signal });
    }
    await new Promise((r) => setTimeout(r, 500));
    const ten = await share();
    await commands.stopAll();
    return { none, ten };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The fake provider: in this process (its work counts as the agent's) or in a child (a real provider is elsewhere). */
interface Provider {
  anthropicBaseURL: string;
  /** Readies the replies of one turn: a Bash call, then an answer. */
  turn(): void;
  close(): Promise<void>;
}

const CALL = { text: 'Checking.', toolCalls: [{ name: 'Bash', input: { command: 'echo ok' } }] };
const ANSWER = { text: 'Fine.' };

async function inProcess(): Promise<Provider> {
  const server = await startFakeServer({ contextWindow: 200_000 });
  return { anthropicBaseURL: server.anthropicBaseURL, turn: () => server.enqueue(CALL, ANSWER), close: () => server.close() };
}

async function inChild(dir: string): Promise<Provider> {
  // the answer after the call's result, the call otherwise: every turn the same two requests
  const script = join(dir, 'script.json');
  writeFileSync(
    script,
    JSON.stringify({ options: { contextWindow: 200_000 }, rules: [{ when: { lastToolResultIncludes: 'ok' }, reply: ANSWER }], fallback: CALL }),
  );
  const main = join(import.meta.dirname, '..', 'test', 'fake-server', 'main.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', main, '--script', script, '--quiet', '--exit-on-stdin-close'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return {
    anthropicBaseURL: line.trim(),
    turn: () => undefined,
    close: async () => {
      child.stdin!.end();
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

interface Loop {
  /** Median round trip of a turn (ms). */
  idle: number;
  busy: number;
  /** This process's CPU time per turn (ms, median): the agent's own cost, whatever the machine's load. */
  idleCpu: number;
  busyCpu: number;
  ticks: number;
}

async function turnLoop(rounds: number, turnsPerPhase: number, where: 'in-process' | 'child'): Promise<Loop> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-bench-bg-loop-'));
  const provider = where === 'child' ? await inChild(dir) : await inProcess();
  try {
    writeFileSync(
      join(dir, '.agentrc'),
      JSON.stringify({ models: { 'bench-claude': { contextWindow: 200_000, maxOutputTokens: 8_000, provider: 'anthropic' } }, permissions: { mode: 'allow' } }),
    );
    const config = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: 'bench-claude' } });
    const store = openStore(config.dbPath);
    const commands = new BackgroundCommands({ root: join(dir, 'bg'), maxRunning: 10, redact });
    const session = Session.open({
      config,
      store,
      provider: createProvider({ provider: 'anthropic', apiKey: 'k', baseURL: provider.anthropicBaseURL, cache: config.cache }),
      tools: (lent) => createTools({ bash: config.bash }, lent),
      capabilities: [backgroundCapability(commands)],
      counter: await createTokenCounter(),
      engine: { now: () => Date.now() },
    });
    const shells = commands.open(session.id);
    const bash = createTools({ bash: config.bash }, { background: shells }).find((t) => t.name === 'Bash') as AnyTool;
    const turn = async (times: number[], cpus: number[]): Promise<void> => {
      provider.turn();
      const t = performance.now();
      const cpu = process.cpuUsage();
      const r = await session.prompt('check again');
      if (r.reason !== 'end_turn') throw new Error(`turn ended with ${r.reason}`);
      times.push(performance.now() - t);
      const used = process.cpuUsage(cpu);
      cpus.push((used.user + used.system) / 1000);
    };
    const idle: number[] = [];
    const busy: number[] = [];
    const idleCpu: number[] = [];
    const busyCpu: number[] = [];
    for (let i = 0; i < 3; i++) await turn([], []);
    const quiet = async (): Promise<void> => {
      for (let i = 0; i < turnsPerPhase; i++) await turn(idle, idleCpu);
    };
    const printing = async (): Promise<void> => {
      for (let n = 0; n < 10; n++) {
        // builtins only (read -t on a pipe nobody writes sleeps without a fork): what is measured is the agent's side, not forks
        const input = bash.parse({ command: `exec 3<> <(:); while :; do echo "tick-${n} $SECONDS $RANDOM"; read -t 0.01 -u 3; done`, run_in_background: true });
        await bash.run(input, { cwd: dir, signal: new AbortController().signal });
      }
      for (let i = 0; i < turnsPerPhase; i++) await turn(busy, busyCpu);
      await commands.stopAll();
      shells.notices();
    };
    // A turn costs more as the session grows (its history is counted, sent and saved): the phases
    // alternate their order (quiet first, then printing first), so neither gets the longer history.
    for (let round = 0; round < rounds; round++) {
      if (round % 2 === 0) {
        await quiet();
        await printing();
      } else {
        await printing();
        await quiet();
      }
    }
    const ticks = commands.list().reduce((n, r) => n + r.bytes, 0);
    session.close();
    store.close();
    return { idle: median(idle), busy: median(busy), idleCpu: median(idleCpu), busyCpu: median(busyCpu), ticks };
  } finally {
    await provider.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const bg = await bigStream();
const fgStart = performance.now();
const fg = await runBigOutput();
const fgMs = performance.now() - fgStart;
console.log(
  `50 MB stream from a background command: ${mb(bg.seen)} MB seen, ${mb(bg.kept)} MB archived (cap 10 MB); peak RSS +${mb(bg.growth)} MB, ` +
    `vs +${(fg.peakRssMb - fg.rssBeforeMb).toFixed(1)} MB for the spill benchmark's foreground 50 MB output (ratio ${(bg.growth / 2 ** 20 / (fg.peakRssMb - fg.rssBeforeMb)).toFixed(2)}, goal ≤ 1); ` +
    `it took ${(bg.ms / 1000).toFixed(1)} s against ${(fgMs / 1000).toFixed(1)} s in the foreground (the batched reads must not slow a fast stream)`,
);
const load = (): string => loadavg()[0]!.toFixed(2);
const rest = await restingCost(4_000);
console.log(
  `This process's CPU with no turn running, over 4 s: ${(rest.none * 100).toFixed(2)}% of a core with no background command, ` +
    `${(rest.ten * 100).toFixed(2)}% with ten printing a line every 10 ms (load average ${load()})`,
);
for (const where of ['in-process', 'child'] as const) {
  const before = load();
  const loop = await turnLoop(6, 8, where);
  console.log(
    `Turn round trip (a Bash call and an answer; fake server ${where === 'child' ? 'in a child process' : 'in this process'}), median of 48 interleaved: ` +
      `none running ${loop.idle.toFixed(1)} ms, ten printing a line every 10 ms ${loop.busy.toFixed(1)} ms (ratio ${(loop.busy / loop.idle).toFixed(3)}, goal < 1.05); ` +
      `this process's CPU per turn ${loop.idleCpu.toFixed(1)} vs ${loop.busyCpu.toFixed(1)} ms (ratio ${(loop.busyCpu / loop.idleCpu).toFixed(3)}); ` +
      `${mb(loop.ticks)} MB archived meanwhile; load average ${before} before, ${load()} after`,
  );
}
