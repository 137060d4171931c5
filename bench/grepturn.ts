import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { rgPath } from '@vscode/ripgrep';
import { startFakeServer } from '../test/fake-server/server.js';
import type { Responder } from '../test/fake-server/types.js';
import { benchPlace, peerHome } from './place.js';
import { median, timeRun } from './startup.js';

// Issue 48: a Grep turn over a generated 17,700-file git repository (~2 KB files, a .gitignore'd
// build folder), through `-p` against the fake provider: the model asks for one Grep, then answers.
// The Grep's share is the round trip minus a plain `-p` round trip of the same program, measured in
// the same interleaved runs, so start-up cancels out. Two searches: a rare identifier (lines) and a
// word in every file (the default files mode, newest first). With AGENT_BENCH_PEER set to a Claude
// Code executable, the same search is timed beside it: Claude Code 2.1.197 has no Grep tool (its
// model searches with ripgrep through Bash), so its turn runs `rg` (the packaged one) in Bash.

const BIN = resolve(import.meta.dirname, '..', 'bin', 'agent.js');
const FILES = 17_700;
const RUNS = Number(process.env.AGENT_BENCH_RUNS ?? 7);

/** Fills the project (made by benchPlace, its .agentrc allowing every tool) with FILES files and an ignored build/, under git. */
function makeRepo(root: string): void {
  writeFileSync(join(root, '.gitignore'), 'build/\n');
  for (let i = 0; i < FILES; i++) {
    const dir = join(root, `pkg${i % 60}`, `mod${i % 17}`);
    mkdirSync(dir, { recursive: true });
    const lines = Array.from({ length: 40 }, (_, n) => `export function h${i}_${n}(x: Req${n % 7}): Promise<Res> { return run(x, ${n}); }`);
    if (i % 1000 === 7) lines.splice(20, 0, 'const RARE_NEEDLE_7731 = true;');
    writeFileSync(join(dir, `file${i}.ts`), `${lines.join('\n')}\n`);
  }
  mkdirSync(join(root, 'build'));
  for (let i = 0; i < 500; i++) writeFileSync(join(root, 'build', `out${i}.js`), 'Promise<Res>\n'.repeat(40));
  execFileSync('git', ['init', '-q'], { cwd: root });
}

interface Search {
  name: string;
  agent: Record<string, unknown>;
  /** Claude Code's Bash command for the same search. */
  peer: string;
}

const SEARCHES: Search[] = [
  {
    name: 'rare identifier, lines',
    agent: { pattern: 'RARE_NEEDLE_\\d+', outputMode: 'lines' },
    peer: `${rgPath} -n 'RARE_NEEDLE_\\d+'`,
  },
  { name: 'word in every file, files', agent: { pattern: 'Promise<Res>' }, peer: `${rgPath} -l 'Promise<Res>' | head -100` },
];

/** One Grep call (Claude Code: Bash) for a prompt that says "grep now", then an answer once its result came back; plain text otherwise. */
function responder(search: () => Search): Responder {
  return (req) => {
    const last = req.view.messages.at(-1);
    if (req.view.toolNames.length === 0 || !last) return { text: 'pong' };
    if (last.blocks.some((b) => b.type === 'tool_result')) return { text: 'found.' };
    if (!JSON.stringify(last).includes('grep now')) return { text: 'pong' };
    const s = search();
    return req.view.toolNames.includes('Grep')
      ? { toolCalls: [{ name: 'Grep', input: s.agent }] }
      : { toolCalls: [{ name: 'Bash', input: { command: s.peer, description: 'Search' } }] };
  };
}

async function main(): Promise<void> {
  let current: Search = SEARCHES[0]!;
  const server = await startFakeServer({ fallback: { text: 'pong' }, responder: responder(() => current) });
  const { root, home, project: repo, env } = benchPlace('grepturn', server.anthropicBaseURL, JSON.stringify({ permissions: { mode: 'allow' } }));
  makeRepo(repo);
  const peerBin = process.env.AGENT_BENCH_PEER;
  const peerEnv: NodeJS.ProcessEnv = { ...env, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
  peerHome(home, [repo]);
  const model = ['--model', 'claude-sonnet-4-6'];
  try {
    // a new session's first turn snapshots the tree (issue 46's checkpoints): every run continues
    // one session, whose boundaries then find the tree unchanged; Claude Code continues its own too
    await timeRun([BIN, '-p', 'ping', ...model], env, repo);
    if (peerBin) await timeRun(['-p', 'ping', ...model], peerEnv, repo, peerBin);
    const cont = ['--continue', ...model];
    console.log(
      `Grep turn over a ${FILES.toLocaleString('en-US')}-file repository (median of ${RUNS} interleaved runs; the turn minus a plain -p round trip):`,
    );
    for (const s of SEARCHES) {
      const agent: number[] = [];
      const peer: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const plain = await timeRun([BIN, '-p', 'ping', ...cont], env, repo);
        current = s;
        agent.push((await timeRun([BIN, '-p', 'grep now', ...cont], env, repo)) - plain);
        if (peerBin) {
          const peerPlain = await timeRun(['-p', 'ping', ...cont], peerEnv, repo, peerBin);
          peer.push((await timeRun(['-p', 'grep now', '--allowedTools', 'Bash', ...cont], peerEnv, repo, peerBin)) - peerPlain);
        }
      }
      // the search ran: its result went back to the model
      const results = server.requests.filter((r) => r.view?.messages.at(-1)?.blocks.some((b) => b.type === 'tool_result'));
      if (results.length === 0) throw new Error('no Grep result reached the model');
      if (process.env.AGENT_BENCH_VERBOSE)
        for (const r of results.slice(-3)) console.log(JSON.stringify(r.view?.messages.at(-1)?.blocks.find((b) => b.type === 'tool_result')).slice(0, 300));
      const a = median(agent);
      const line = `  ${s.name.padEnd(28)} agent ${a.toFixed(0)} ms`;
      console.log(peer.length > 0 ? `${line}, claude ${median(peer).toFixed(0)} ms → ${(a / median(peer)).toFixed(2)}× Claude Code's` : line);
    }
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
