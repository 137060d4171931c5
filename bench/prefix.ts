import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { startFakeServer } from '../test/fake-server/server.js';
import { benchPlace } from './place.js';
import { timeRun } from './startup.js';

// Issue 48: the fixed prefix of every request of a default session (the system prompt and the
// tool definitions, as the first request sends them on the Anthropic wire), counted with
// gpt-tokenizer's o200k_base as the project counts (the provider's own count differs by a few
// per cent, alike for both sides). `agent -p` runs in an empty project with no instructions, no
// skills, no MCP servers; each tool's share is listed, largest first.
// With AGENT_BENCH_PEER set to a Claude Code executable, its first request through the same fake
// server is counted the same way.

const BIN = resolve(import.meta.dirname, '..', 'bin', 'agent.js');

interface Prefix {
  systemTokens: number;
  toolsTokens: number;
  /** name → tokens of its definition (name, description, input schema as JSON). */
  perTool: [string, number][];
  /** The fake provider's count of the whole first request (prefix, date note and "ping"), as it bills it. */
  billed: number;
}

const tokens = (text: string): number => encode(text).length;

/** The prefix of one recorded Messages body. */
function prefixOf(req: { body?: unknown; usage?: { inputTokens: number; cacheReadTokens: number; cacheWriteTokens: number } }): Prefix {
  const body = req.body;
  const u = req.usage;
  const billed = u ? u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens : 0;
  const b = body as { system?: string | { text: string }[]; tools?: { name: string }[] };
  const system = typeof b.system === 'string' ? b.system : (b.system ?? []).map((s) => s.text).join('\n');
  const tools = b.tools ?? [];
  const perTool = tools.map((t): [string, number] => [t.name, tokens(JSON.stringify(t))]).sort((x, y) => y[1] - x[1]);
  return { systemTokens: tokens(system), toolsTokens: perTool.reduce((s, [, n]) => s + n, 0), perTool, billed };
}

export async function benchPrefix(): Promise<{ agent: Prefix; peer?: Prefix }> {
  const server = await startFakeServer({ fallback: { text: 'pong' } });
  const { root, project, env } = benchPlace('prefix', server.anthropicBaseURL);
  try {
    await timeRun([BIN, '-p', 'ping', '--model', 'claude-sonnet-4-6'], env, project);
    const first = server.requests.find((r) => r.path.endsWith('/messages'));
    if (!first) throw new Error('agent -p sent no request');
    const agent = prefixOf(first);
    const peerBin = process.env.AGENT_BENCH_PEER;
    if (!peerBin) return { agent };
    const seen = server.requests.length;
    await timeRun(['-p', 'ping', '--model', 'claude-sonnet-4-6'], { ...env, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' }, project, peerBin);
    // Claude Code's largest request is its turn (a smaller one may come first: a title or a quota check)
    const peerReqs = server.requests.slice(seen).filter((r) => r.path.endsWith('/messages'));
    const peer = peerReqs.map((r) => prefixOf(r)).sort((x, y) => y.systemTokens + y.toolsTokens - (x.systemTokens + x.toolsTokens))[0];
    return peer ? { agent, peer } : { agent };
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

function formatPrefix(r: { agent: Prefix; peer?: Prefix }): string {
  const total = (p: Prefix): number => p.systemTokens + p.toolsTokens;
  const n = (x: number): string => x.toLocaleString('en-US');
  const lines = [
    `fixed prefix of a default session (o200k_base tokens; budget 3,500):`,
    `  agent    ${n(total(r.agent))}  (system ${n(r.agent.systemTokens)}, ${r.agent.perTool.length} tools ${n(r.agent.toolsTokens)}); the fake provider bills the first request ${n(r.agent.billed)}`,
    ...r.agent.perTool.map(([name, t]) => `    ${name.padEnd(14)} ${n(t)}`),
  ];
  if (r.peer)
    lines.push(
      `  claude   ${n(total(r.peer))}  (system ${n(r.peer.systemTokens)}, ${r.peer.perTool.length} tools ${n(r.peer.toolsTokens)}; billed ${n(r.peer.billed)}) → agent's is ${(total(r.agent) / total(r.peer)).toFixed(2)}× Claude Code's`,
    );
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchPrefix()
    .then((r) => console.log(formatPrefix(r)))
    .catch((e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    });
}
