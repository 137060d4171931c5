import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startFakeServer, type RecordedRequest } from '../test/fake-server/server.js';
import type { Responder } from '../test/fake-server/types.js';
import { benchPlace, peerHome } from './place.js';
import { timeRun } from './startup.js';
import { anthropicBilled, writeModules } from './workload.js';

// Issue 48: billed input of the same scripted session, this agent vs Claude Code (AGENT_BENCH_PEER),
// through the same fake provider (its prompt cache simulated from Anthropic's rules, billed as
// workload.ts's anthropicBilled). Each turn is one `-p --continue` run: the prompt names a step,
// the model reads source files with Bash (`cat modN.ts`, ~1,000 tokens each; Claude Code's Bash
// is allowed with --allowedTools), then answers in a line. Two sessions: 24 turns of one read
// each, and a tool-heavy one of 40 turns of three reads each. Without a peer only the agent's
// figures are printed.

const BIN = resolve(import.meta.dirname, '..', 'bin', 'agent.js');
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

async function session(turns: number, calls: number, command: string | undefined): Promise<{ billed: number; requests: number }> {
  const server = await startFakeServer({ fallback: { text: 'ok' }, responder: responder(calls) });
  // AGENT_BENCH_COMPACTION: the agent's compaction settings (JSON), e.g. {"background":false} for the synchronous path
  const compaction: unknown = JSON.parse(process.env.AGENT_BENCH_COMPACTION ?? '{}');
  const place = benchPlace('billed', server.anthropicBaseURL, JSON.stringify({ permissions: { mode: 'allow' }, compaction }));
  const { root, project } = place;
  writeModules(project, MODULES);
  peerHome(place.home, [project]);
  const env: NodeJS.ProcessEnv = { ...place.env, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
  try {
    for (let t = 0; t < turns; t++) {
      const args = ['-p', `step ${t}: read the modules of this step`, '--model', 'claude-sonnet-4-6', ...(t > 0 ? ['--continue'] : [])];
      if (command) await timeRun([...args, '--allowedTools', 'Bash'], env, project, command);
      else await timeRun([BIN, ...args], env, project);
    }
    const model = server.requests.filter((r: RecordedRequest) => r.path.endsWith('/messages'));
    const results = model.filter((r) => r.view?.messages.at(-1)?.blocks.some((b) => b.type === 'tool_result')).length;
    if (results < turns * calls) throw new Error(`${command ?? 'agent'}: ${results} tool results reached the model, ${turns * calls} expected`);
    return { billed: model.reduce((s, r) => s + anthropicBilled(r), 0), requests: model.length };
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const peer = process.env.AGENT_BENCH_PEER;
  const n = (x: number): string => Math.round(x).toLocaleString('en-US');
  for (const [name, turns, calls] of [
    ['24-turn session, one read a turn', 24, 1],
    ['40-turn tool-heavy session, three reads a turn', 40, 3],
  ] as const) {
    const a = await session(turns, calls, undefined);
    const line = `${name}: agent ${n(a.billed)} billed input tokens (${a.requests} requests)`;
    if (!peer) {
      console.log(line);
      continue;
    }
    const p = await session(turns, calls, peer);
    console.log(`${line}, Claude Code ${n(p.billed)} (${p.requests} requests) → ${(a.billed / p.billed).toFixed(2)}× Claude Code's`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
