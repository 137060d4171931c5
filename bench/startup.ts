import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startFakeServer } from '../test/fake-server/server.js';
import { benchPlace } from './place.js';

// Cold start of the CLI, as ratios to `node -e 0` measured in the same run: `agent --version`
// (commander only), one print-mode round trip against the fake provider server (config, store,
// SDK, one streamed reply), the same round trip resuming a session of 20 tool turns (~45K tokens,
// its bytes past a quarter of the 200K window, far below its micro threshold; each run on a copy of it),
// and the peak RSS of the first round trip (GNU time's %M).
// With AGENT_BENCH_PEER set to a Claude Code executable (`npm install @anthropic-ai/claude-code`,
// then node_modules/@anthropic-ai/claude-code-linux-x64/claude), its `-p` round trip through the
// same fake server is timed in the same interleaved runs. Its request is ~25K tokens of system
// prompt and tools to our ~2K, which the fake server also reads and counts.

const BIN = resolve(import.meta.dirname, '..', 'bin', 'agent.js');

export interface StartupFigures {
  runs: number;
  nodeMs: number;
  versionMs: number;
  printMs: number;
  /** `-p --continue` of a 20-tool-turn session. */
  resumedMs: number;
  /** The session's size by the provider's count. */
  resumedTokens: number;
  versionRatio: number;
  printRatio: number;
  resumedRatio: number;
  /** Median peak resident set of `agent -p`, in MiB; undefined without /usr/bin/time. */
  printPeakRssMiB: number | undefined;
  /** Claude Code's `-p` round trip (AGENT_BENCH_PEER), when given. */
  peerMs?: number;
}

const GNU_TIME = '/usr/bin/time';

/** Peak RSS of one child in KiB, through GNU time (run asynchronously: the fake server must answer). */
function peakRss(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(GNU_TIME, ['-f', 'PEAK_RSS_KB %M', process.execPath, ...args], { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const m = /PEAK_RSS_KB (\d+)/.exec(stderr);
      if (code !== 0 || !m) reject(new Error(`${args.join(' ')} failed (${code}): ${stderr}`));
      else resolvePromise(Number(m[1]));
    });
  });
}

const hasGnuTime = (): boolean => existsSync(GNU_TIME) && spawnSync(GNU_TIME, ['-f', '%M', 'true']).status === 0;

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Wall time of one child process (async: the fake server lives in this process and must keep answering). */
export function timeRun(args: string[], env: NodeJS.ProcessEnv, cwd?: string, command: string = process.execPath): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'], ...(cwd ? { cwd } : {}) });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (code !== 0) reject(new Error(`${args.join(' ')} failed (${code}): ${stderr}`));
      else resolvePromise(ms);
    });
  });
}

/** Turns of the session the bench resumes. */
const SESSION_TURNS = 20;
const RESUME_MODEL = 'claude-sonnet-4-5';

/** Makes the session resumed by the bench: SESSION_TURNS turns, each reading a 6 KB file through Bash. Resolves with its size by the provider's count. */
async function midSizeSession(server: Awaited<ReturnType<typeof startFakeServer>>, env: NodeJS.ProcessEnv, dir: string): Promise<number> {
  writeFileSync(join(dir, '.agentrc'), JSON.stringify({ permissions: { mode: 'allow' } }));
  for (let t = 0; t < SESSION_TURNS; t++) {
    const lines = Array.from({ length: 100 }, (_, l) => `line ${l}: export const value${l} = compute(${l * t}, "the quick brown fox jumps");`);
    writeFileSync(join(dir, `f${t}.txt`), `${lines.join('\n')}\n`);
    server.enqueue({ toolCalls: [{ name: 'Bash', input: { command: `cat f${t}.txt` } }] }, { text: `f${t}.txt holds 100 lines.` });
    await timeRun([BIN, '-p', `read f${t}.txt`, '--model', RESUME_MODEL, ...(t > 0 ? ['--continue'] : [])], env, dir);
  }
  const last = server.requests.at(-1)?.usage;
  return last ? last.inputTokens + last.cacheReadTokens + last.cacheWriteTokens : 0;
}

export async function benchStartup(opts: { runs?: number } = {}): Promise<StartupFigures> {
  const runs = opts.runs ?? 15;
  const server = await startFakeServer({ fallback: { text: 'pong' } });
  const { root, project, env } = benchPlace('startup', server.anthropicBaseURL);
  try {
    const node: number[] = [];
    const version: number[] = [];
    const print: number[] = [];
    const peer: number[] = [];
    const peerBin = process.env.AGENT_BENCH_PEER;
    const sessionDir = join(root, 'session');
    mkdirSync(sessionDir);
    const sessionDb = join(root, 'session.db');
    const resumedTokens = await midSizeSession(server, { ...env, AGENT_DB: sessionDb }, sessionDir);
    const resumed: number[] = [];
    const runDb = join(root, 'resumed.db');
    // interleaved, so that machine load drifts affect all three alike
    for (let i = 0; i < runs; i++) {
      node.push(await timeRun(['-e', '0'], env));
      version.push(await timeRun([BIN, '--version'], env));
      print.push(await timeRun([BIN, '-p', 'ping', '--model', 'claude-sonnet-4-6'], env, project));
      copyFileSync(sessionDb, runDb);
      resumed.push(await timeRun([BIN, '-p', 'ping', '--continue', '--model', RESUME_MODEL], { ...env, AGENT_DB: runDb }, sessionDir));
      if (peerBin)
        peer.push(await timeRun(['-p', 'ping', '--model', 'claude-sonnet-4-6'], { ...env, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' }, project, peerBin));
    }
    const rss: number[] = [];
    if (hasGnuTime()) for (let i = 0; i < 5; i++) rss.push(await peakRss([BIN, '-p', 'ping', '--model', 'claude-sonnet-4-6'], env, project));
    const nodeMs = median(node);
    const versionMs = median(version);
    const printMs = median(print);
    const resumedMs = median(resumed);
    const printPeakRssMiB = rss.length > 0 ? median(rss) / 1024 : undefined;
    const figures: StartupFigures = {
      runs,
      nodeMs,
      versionMs,
      printMs,
      resumedMs,
      resumedTokens,
      versionRatio: versionMs / nodeMs,
      printRatio: printMs / nodeMs,
      resumedRatio: resumedMs / nodeMs,
      printPeakRssMiB,
    };
    if (peer.length > 0) figures.peerMs = median(peer);
    return figures;
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

export function formatStartup(f: StartupFigures): string {
  const ms = (n: number): string => `${n.toFixed(0)} ms`;
  return [
    `start-up (median of ${f.runs} interleaved runs):`,
    `  node -e 0                     ${ms(f.nodeMs)}`,
    `  agent --version               ${ms(f.versionMs)}  → ${f.versionRatio.toFixed(2)}× node`,
    `  agent -p (one round trip)     ${ms(f.printMs)}  → ${f.printRatio.toFixed(2)}× node`,
    `  agent -p --continue           ${ms(f.resumedMs)}  → ${f.resumedRatio.toFixed(2)}× node, ${(f.resumedMs / f.printMs).toFixed(2)}× a new session's (a session of ${SESSION_TURNS} tool turns, ${f.resumedTokens.toLocaleString('en-US')} tokens)`,
    `  agent -p peak RSS             ${f.printPeakRssMiB === undefined ? 'n/a (no GNU time)' : `${f.printPeakRssMiB.toFixed(0)} MiB`}`,
    ...(f.peerMs === undefined
      ? []
      : [`  claude -p (AGENT_BENCH_PEER)  ${ms(f.peerMs)}  → agent -p takes ${(f.printMs / f.peerMs).toFixed(2)}× Claude Code's time`]),
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchStartup()
    .then((f) => console.log(formatStartup(f)))
    .catch((e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    });
}
