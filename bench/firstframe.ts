import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { peerHome } from './place.js';
import { buildArchiveFixture } from './store.js';

// First interactive frame of the TUI in a real pseudo-terminal (util-linux `script`): from the
// spawn until the prompt's hint line is on screen, for a new session and for a resumed one of
// 2,000 messages, as ratios to `node -e 0` and to each other, measured in one run. `script`'s
// terminal answers no cursor report, so these are a silent terminal's times (the TUI's question
// at start, how wide 👍🏽 is drawn, ui/emoji-probe.ts, delays no frame). A new session
// whose terminal answers as tmux does is measured too, and one in a generated 17,700-file git
// repository. With AGENT_BENCH_PEER set to a Claude Code executable, its first frame (its
// "? for shortcuts" line, onboarding and trust already answered in its ~/.claude.json) is timed
// in the same interleaved runs, in the empty project and in the large one (issue 48).

const BIN = resolve(import.meta.dirname, '..', 'bin', 'agent.js');
/** The hint line under the prompt: drawn by the first frame of the interactive app. */
const READY = '/help commands';
/** The line a resumed 2,000-message session's reprint starts with (more items than it prints). */
const REPRINT_STARTS = 'earlier items not shown';
/** Claude Code's first frame: the hint under its prompt ("? for shortcuts"; 2.1.332's "(shift+tab to cycle)"). */
const PEER_READY = /shortcuts|shift\+tab to cycle/;
const LARGE_FILES = 17_700;

/** A git repository of LARGE_FILES ~2 KB files in nested folders (bench/checkpoints.ts's shape). */
function makeLargeRepo(root: string): void {
  mkdirSync(root);
  writeFileSync(join(root, '.gitignore'), 'build/\n');
  for (let i = 0; i < LARGE_FILES; i++) {
    const dir = join(root, `pkg${i % 60}`, `mod${i % 17}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `file${i}.ts`), `export const value${i} = ${i};\n`.repeat(60));
  }
  mkdirSync(join(root, 'build'));
  for (let i = 0; i < 500; i++) writeFileSync(join(root, 'build', `out${i}.js`), 'built\n');
  writeFileSync(join(root, '.agentrc'), '{}');
  execFileSync('git', ['init', '-q'], { cwd: root });
}

export interface FirstFrameFigures {
  runs: number;
  resumedMessages: number;
  nodeMs: number;
  freshMs: number;
  resumedMs: number;
  freshRatio: number;
  resumedRatio: number;
  resumedVsFresh: number;
  /** A new session whose terminal answers the cursor reports (as tmux: the sample four columns wide). */
  answeringMs: number;
  /** From a resumed session's first frame until it has printed its older items (it takes no keys meanwhile). */
  reprintMs: number;
  /** A new session in the 17,700-file repository. */
  largeMs: number;
  /** Claude Code's first frame (AGENT_BENCH_PEER), in the empty project and in the large one. */
  peerMs?: number;
  peerLargeMs?: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The direct children of a process (Linux /proc); none where that is not available. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Resolves once every pid has exited (at most 5 s). */
async function untilGone(pids: number[]): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

/** Wall time until `ready` appears on the pty (the child is killed then), or until exit without it. */
export async function timeToScreen(command: string[], env: NodeJS.ProcessEnv, cwd: string, ready: string | RegExp | undefined): Promise<number> {
  return (await screenTimes(command, env, cwd, ready)).ready;
}

/**
 * timeToScreen's `ready`; with `then`, the child runs on until `ready` appears again after `then`,
 * and `settled` is that time (a resumed session reprints its older items after the first frame,
 * and takes no keys while it does: `then` is a line the reprint starts with).
 */
export function screenTimes(
  command: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  ready: string | RegExp | undefined,
  then?: string,
  answers = false,
): Promise<{ ready: number; settled: number }> {
  return new Promise((done, fail) => {
    const shell = `stty rows 40 cols 120; exec ${command.map(quote).join(' ')}`;
    const t0 = process.hrtime.bigint();
    const child = spawn('script', ['-qfec', shell, '/dev/null'], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let out = '';
    let reports = 0;
    let finished = false;
    let readyMs = 0;
    let settledMs = 0;
    const now = (): number => Number(process.hrtime.bigint() - t0) / 1e6;
    const finish = (err?: Error): void => {
      if (finished) return;
      finished = true;
      const ms = readyMs || now();
      // the command runs in the pty's own session, outside script's process group: it is
      // killed by pid and waited for, or the next resume would find its session lease still held
      const inPty = childrenOf(child.pid!);
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      for (const pid of inPty) kill(pid);
      void untilGone(inPty).then(() => (err ? fail(err) : done({ ready: ms, settled: settledMs || ms })));
    };
    const timer = setTimeout(() => finish(new Error(`no "${ready}" within 30 s; screen:\n${out.slice(-2000)}`)), 30_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      // each cursor report asked for gets the column a tmux pane would give: 1, then 5 (👍🏽 four wide)
      for (let asked = out.split('\u001b[6n').length - 1; answers && reports < asked; reports++) child.stdin.write(`\u001b[1;${1 + 4 * reports}R`);
      if (ready === undefined) return;
      const shows = (from: number): boolean => (typeof ready === 'string' ? out.includes(ready, from) : ready.test(out.slice(from)));
      if (readyMs === 0 && shows(0)) {
        readyMs = now();
        if (then === undefined) {
          clearTimeout(timer);
          finish();
        }
      }
      const at = then === undefined ? -1 : out.indexOf(then);
      if (readyMs > 0 && at >= 0 && shows(at)) {
        settledMs = now();
        clearTimeout(timer);
        finish();
      }
    });
    child.on('error', (e) => finish(e));
    child.on('close', () => {
      clearTimeout(timer);
      finish(ready === undefined ? undefined : new Error(`exited before "${ready}"; screen:\n${out.slice(-2000)}`));
    });
  });
}

export async function benchFirstFrame(opts: { runs?: number; resumed?: number } = {}): Promise<FirstFrameFigures> {
  const runs = opts.runs ?? Number(process.env.AGENT_BENCH_RUNS ?? 15);
  const resumedMessages = opts.resumed ?? 2_000;
  const fixture = buildArchiveFixture({ archived: 0, tail: resumedMessages });
  const root = mkdtempSync(join(tmpdir(), 'agent-bench-frame-'));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home);
  mkdirSync(project);
  writeFileSync(join(project, '.agentrc'), '{}');
  const base: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, TERM: 'xterm-256color', ANTHROPIC_API_KEY: 'sk-ant-bench-0123456789' };
  const model = ['--model', 'claude-sonnet-4-6'];
  const large = join(root, 'large');
  makeLargeRepo(large);
  const peerBin = process.env.AGENT_BENCH_PEER;
  // no server answers: neither program sends a request before its first frame
  const peerEnv: NodeJS.ProcessEnv = { ...base, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
  if (peerBin) peerHome(home, [project, large], base.ANTHROPIC_API_KEY);
  try {
    const node: number[] = [];
    const fresh: number[] = [];
    const resumed: number[] = [];
    const reprinted: number[] = [];
    const answering: number[] = [];
    const largeRuns: number[] = [];
    const peer: number[] = [];
    const peerLarge: number[] = [];
    // interleaved, so that machine load drifts affect all three alike
    for (let i = 0; i < runs; i++) {
      node.push(await timeToScreen([process.execPath, '-e', '0'], base, project, undefined));
      fresh.push(await timeToScreen([process.execPath, BIN, ...model], { ...base, AGENT_DB: join(root, 'fresh.db') }, project, READY));
      answering.push(
        (await screenTimes([process.execPath, BIN, ...model], { ...base, AGENT_DB: join(root, 'fresh.db') }, project, READY, undefined, true)).ready,
      );
      const r = await screenTimes(
        [process.execPath, BIN, '--resume', fixture.sessionId, ...model],
        { ...base, AGENT_DB: fixture.smallFile },
        project,
        READY,
        REPRINT_STARTS,
      );
      resumed.push(r.ready);
      reprinted.push(r.settled - r.ready);
      largeRuns.push(await timeToScreen([process.execPath, BIN, ...model], { ...base, AGENT_DB: join(root, 'large.db') }, large, READY));
      if (peerBin) {
        peer.push(await timeToScreen([peerBin, ...model], peerEnv, project, PEER_READY));
        peerLarge.push(await timeToScreen([peerBin, ...model], peerEnv, large, PEER_READY));
      }
    }
    const nodeMs = median(node);
    const freshMs = median(fresh);
    const resumedMs = median(resumed);
    return {
      runs,
      resumedMessages,
      nodeMs,
      freshMs,
      resumedMs,
      freshRatio: freshMs / nodeMs,
      resumedRatio: resumedMs / nodeMs,
      resumedVsFresh: resumedMs / freshMs,
      answeringMs: median(answering),
      reprintMs: median(reprinted),
      largeMs: median(largeRuns),
      ...(peer.length > 0 ? { peerMs: median(peer), peerLargeMs: median(peerLarge) } : {}),
    };
  } finally {
    fixture.cleanup();
    rmSync(root, { recursive: true, force: true });
  }
}

export function formatFirstFrame(f: FirstFrameFigures): string {
  const ms = (n: number): string => `${n.toFixed(0)} ms`;
  return [
    `first interactive frame in a pty (median of ${f.runs} interleaved runs; node -e 0 through the same pty):`,
    `  node -e 0                          ${ms(f.nodeMs)}`,
    `  agent, new session                 ${ms(f.freshMs)}  → ${f.freshRatio.toFixed(2)}× node`,
    `  agent, new session, answering      ${ms(f.answeringMs)}  → ${(f.answeringMs / f.freshMs).toFixed(2)}× the silent terminal's (it answers the width question)`,
    `  agent --resume (${f.resumedMessages.toLocaleString('en-US')} messages)    ${ms(f.resumedMs)}  → ${f.resumedRatio.toFixed(2)}× node, ${f.resumedVsFresh.toFixed(2)}× the new session`,
    `  its older items reprinted          ${ms(f.reprintMs)} after its first frame`,
    `  agent, ${LARGE_FILES.toLocaleString('en-US')}-file repository      ${ms(f.largeMs)}  → ${(f.largeMs / f.freshMs).toFixed(2)}× the empty project's`,
    ...(f.peerMs === undefined || f.peerLargeMs === undefined
      ? []
      : [
          `  claude (AGENT_BENCH_PEER)          ${ms(f.peerMs)}  → agent's first frame takes ${(f.freshMs / f.peerMs).toFixed(2)}× Claude Code's`,
          `  claude, ${LARGE_FILES.toLocaleString('en-US')}-file repository     ${ms(f.peerLargeMs)}  → agent's takes ${(f.largeMs / f.peerLargeMs).toFixed(2)}× Claude Code's`,
        ]),
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchFirstFrame()
    .then((f) => console.log(formatFirstFrame(f)))
    .catch((e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    });
}
