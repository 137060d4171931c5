import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startFakeServer, type RecordedRequest } from '../test/fake-server/server.js';
import type { Responder } from '../test/fake-server/types.js';
import { benchPlace, peerHome } from './place.js';
import { timeRun } from './startup.js';
import { resolveModel } from '../src/config/models.js';
import { isSummaryRequest, missingEdits, toolHeavyResponder, writeProject } from './toolHeavy.js';
import { anthropicBilled, openaiBilled, writeModules } from './workload.js';

// Issue 48: billed input of the same scripted session, this agent vs Claude Code (AGENT_BENCH_PEER)
// and, on the Responses API, vs Codex (AGENT_BENCH_CODEX), through the same fake provider (its
// prompt caches simulated from the providers' rules, billed as workload.ts says). Each turn is one
// process: `-p --continue`, Codex `exec resume --last`; the prompt names a step. Three sessions:
// 24 turns of one Bash read each (`cat modN.ts`, ~1,000 tokens), and toolHeavy.ts's 40-turn
// coding session on claude-sonnet-4-6 and on gpt-5.4 (docs/performance.md says why that shape).
// Without a peer only the agent's figures are printed.

// AGENT_BENCH_BIN: another build of the agent to bill (a copy of the checkout built with a change)
const BIN = process.env.AGENT_BENCH_BIN ?? resolve(import.meta.dirname, '..', 'bin', 'agent.js');
const MODULES = 30;

/** The reads of a step: `calls` cat commands, then a one-line answer. */
function responder(calls: number): Responder {
  return (req) => {
    const msgs = req.view.messages;
    if (req.view.toolNames.length === 0 || msgs.length === 0) return { text: 'ok' };
    let done = 0;
    let i = msgs.length - 1;
    while (i >= 0 && msgs[i]!.blocks.some((b) => b.type === 'tool_result')) {
      done++;
      i -= 2;
    }
    const step = Number(/step (\d+)/.exec(JSON.stringify(msgs[Math.max(i, 0)]))?.[1] ?? 0);
    if (done >= calls) return { text: `Step ${step} read: the modules compute linear steps.` };
    const n = (step * calls + done) % MODULES;
    return { toolCalls: [{ name: 'Bash', input: { command: `cat mod${n}.ts`, description: 'Read a module' } }] };
  };
}

type Program = 'agent' | 'claude' | 'agent-openai' | 'codex';
interface Bill {
  billed: number;
  requests: number;
  /** The largest prompt sent, in the fake's count. */
  largest: number;
  /** Requests answered with the checkpoint (compactions). */
  summaries: number;
}

const PEER_MODEL = { anthropic: 'claude-sonnet-4-6', openai: 'gpt-5.4' } as const;

/** Codex's configuration: the fake's Responses endpoint as a custom provider, the agent's window for the model. */
function codexHome(root: string, baseURL: string): string {
  const home = join(root, 'codex');
  mkdirSync(home);
  const toml = [
    `model = "${PEER_MODEL.openai}"`,
    'model_provider = "fake"',
    `model_context_window = ${resolveModel(PEER_MODEL.openai).contextWindow}`,
    '[model_providers.fake]',
    'name = "fake"',
    `base_url = "${baseURL}"`,
    'wire_api = "responses"',
    'env_key = "OPENAI_API_KEY"',
    // its sub-agent tools come as a `namespace` tool, which the fake does not take
    '[features]',
    'multi_agent = false',
  ];
  writeFileSync(join(home, 'config.toml'), `${toml.join('\n')}\n`);
  return home;
}

/**
 * One session of `turns` turns, one process a turn (`-p --continue`; Codex `exec resume --last`),
 * through a fake with the model's real window. `shape` 'reads': the 24-turn session of one Bash
 * read a turn; 'tool-heavy': toolHeavy.ts's script.
 */
async function session(program: Program, turns: number, shape: 'reads' | 'tool-heavy', command?: string): Promise<Bill> {
  const openai = program === 'agent-openai' || program === 'codex';
  const model = openai ? PEER_MODEL.openai : PEER_MODEL.anthropic;
  let turn = 0;
  const contextWindow = { [model]: resolveModel(model).contextWindow, '*': 200_000 };
  const server = await startFakeServer({ fallback: { text: 'ok' }, contextWindow });
  // AGENT_BENCH_COMPACTION: the agent's compaction settings (JSON), e.g. {"background":false} for the synchronous path
  const compaction: unknown = JSON.parse(process.env.AGENT_BENCH_COMPACTION ?? '{}');
  // AGENT_BENCH_RC: more of the agent's .agentrc (JSON), e.g. {"output":{"spillTokens":4000}}
  const more: object = JSON.parse(process.env.AGENT_BENCH_RC ?? '{}');
  const rc = { permissions: { mode: 'allow' }, compaction, ...(openai ? { api: 'responses' } : {}), ...more };
  const place = benchPlace('billed', server.anthropicBaseURL, JSON.stringify(rc));
  const { root, project } = place;
  if (shape === 'reads') writeModules(project, MODULES);
  else writeProject(project);
  server.respondWith(shape === 'reads' ? responder(1) : toolHeavyResponder(() => turn, project));
  peerHome(place.home, [project]);
  const env: NodeJS.ProcessEnv = { ...place.env, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
  if (openai) Object.assign(env, { OPENAI_API_KEY: 'sk-bench-0123456789', OPENAI_BASE_URL: server.openaiBaseURL });
  if (program === 'codex') env.CODEX_HOME = codexHome(root, server.openaiBaseURL);
  try {
    for (; turn < turns; turn++) {
      const prompt = `step ${turn}: ${shape === 'reads' ? 'read the modules of this step' : 'raise the next limit and check the suite'}`;
      if (program === 'codex') {
        const flags = ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox'];
        await timeRun([...flags, ...(turn > 0 ? ['resume', '--last'] : []), prompt], env, project, command);
        continue;
      }
      const args = ['-p', prompt, '--model', model, ...(turn > 0 ? ['--continue'] : [])];
      if (program === 'claude') await timeRun([...args, '--allowedTools', 'Bash,Read,Edit,Grep'], env, project, command);
      else await timeRun([BIN, ...args], env, project);
    }
    const billed = server.requests.filter((r: RecordedRequest) => r.usage);
    if (shape === 'reads') {
      const results = billed.filter((r) => r.view?.messages.at(-1)?.blocks.some((b) => b.type === 'tool_result')).length;
      if (results < turns) throw new Error(`${program}: ${results} tool results reached the model, ${turns} expected`);
    } else {
      const missing = missingEdits(project, turns);
      if (missing > 0) throw new Error(`${program}: ${missing} of the session's ${turns} edits did not land`);
    }
    const bill = openai ? openaiBilled : anthropicBilled;
    return {
      billed: billed.reduce((s, r) => s + bill(r), 0),
      requests: billed.length,
      largest: Math.max(...billed.map((r) => r.view?.promptTokens ?? 0)),
      summaries: billed.filter((r) => r.view && isSummaryRequest(r.view)).length,
    };
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const peers: Partial<Record<Program, string>> = { claude: process.env.AGENT_BENCH_PEER, codex: process.env.AGENT_BENCH_CODEX };
  const n = (x: number): string => Math.round(x).toLocaleString('en-US');
  // AGENT_BENCH_BILLED: the sessions to run (reads, heavy, responses; default all)
  const only = process.env.AGENT_BENCH_BILLED?.split(',');
  const runs = [
    ['reads', '24-turn session, one read a turn', 24, 'reads', 'agent', 'claude'],
    ['heavy', '40-turn tool-heavy session', 40, 'tool-heavy', 'agent', 'claude'],
    ['responses', '40-turn tool-heavy session on Responses', 40, 'tool-heavy', 'agent-openai', 'codex'],
  ] as const;
  for (const [key, name, fullTurns, shape, ours, peer] of runs) {
    // AGENT_BENCH_TURNS: fewer turns, to try the script
    const turns = Number(process.env.AGENT_BENCH_TURNS ?? fullTurns);
    if (only && !only.includes(key)) continue;
    const show = (p: string, b: Bill): string =>
      `${p} ${n(b.billed)} billed input tokens (${b.requests} requests, largest ${n(b.largest)}, ${b.summaries} summaries)`;
    const a = await session(ours, turns, shape);
    const command = peers[peer];
    if (!command) {
      console.log(`${name}: ${show(ours, a)}`);
      continue;
    }
    const p = await session(peer, turns, shape, command);
    console.log(`${name}: ${show(ours, a)}; ${show(peer === 'claude' ? 'Claude Code' : 'Codex', p)} → ${(a.billed / p.billed).toFixed(2)}×`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
