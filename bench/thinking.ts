// Thinking benchmark: figures measured in one run, no pass/fail.
//   npx tsx bench/thinking.ts
// A scripted 24-turn session on claude-sonnet-5-5 (the 5 family thinks by default; the fake
// server signs each thinking block to its prefix and refuses a stale or missing one), each turn
// a tool loop (a FileRead, then an answer), run in-process through the real Anthropic adapter
// and SDK. Reported: the cache hit share (cache reads ÷ all input the provider counted; goal
// ≥ 0.94), billed input (uncached + 1.25× writes + 0.1× reads), thinking blocks sent back, and
// refused requests (goal 0).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/config.js';
import { createProvider } from '../src/llm/factory.js';
import { startFakeServer, type RecordedRequest } from '../test/fake-server/server.js';
import { anthropicBilled, writeModules } from './workload.js';
import { benchSession } from './place.js';

const MODEL = 'claude-sonnet-5-5';
const TURNS = 24;

async function main(): Promise<void> {
  const server = await startFakeServer({ contextWindow: 200_000 });
  const dir = mkdtempSync(join(tmpdir(), 'agent-bench-thinking-'));
  try {
    writeModules(dir, TURNS);
    writeFileSync(join(dir, '.agentrc'), JSON.stringify({ permissions: { mode: 'allow' } }));
    const config = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: MODEL } });
    const provider = createProvider({ provider: 'anthropic', apiKey: 'k', baseURL: server.anthropicBaseURL, cache: config.cache });
    const { session, store } = await benchSession(config, provider);
    const thought = 'Let me think about what this module does and how to describe it. '.repeat(8);
    for (let t = 0; t < TURNS; t++) {
      server.enqueue(
        { thinking: thought, text: `Reading mod${t}.ts.`, toolCalls: [{ name: 'FileRead', input: { path: `mod${t}.ts` } }] },
        { thinking: thought, text: `mod${t}.ts defines forty step functions. ${'Each multiplies its input and adds an offset. '.repeat(20)}` },
      );
      const r = await session.prompt(`Review mod${t}.ts and tell me what it does.`);
      if (r.reason !== 'end_turn') throw new Error(`turn ${t} ended with ${r.reason}`);
    }
    session.close();
    store.close();
    const reqs = server.requests.filter((q) => q.view);
    const ok = reqs.filter((q) => q.usage);
    const sum = (f: (q: RecordedRequest) => number): number => ok.reduce((n, q) => n + f(q), 0);
    const reads = sum((q) => q.usage!.cacheReadTokens);
    const all = sum((q) => q.usage!.inputTokens + q.usage!.cacheReadTokens + q.usage!.cacheWriteTokens);
    const billedInput = sum(anthropicBilled);
    const sentBack = reqs.reduce((n, q) => n + q.view!.messages.reduce((k, m) => k + m.blocks.filter((b) => b.type === 'thinking').length, 0), 0);
    const thinkingTokens = sum((q) => q.usage!.thinkingTokens ?? 0);
    const n = (v: number): string => Math.round(v).toLocaleString('en-US');
    console.log(
      [
        `${TURNS}-turn thinking session on ${MODEL} (a tool loop per turn, thinking signed to its prefix):`,
        `  requests ${reqs.length}, refused ${reqs.length - ok.length} (goal 0)`,
        `  cache hit share ${(reads / all).toFixed(3)} (reads ${n(reads)} of ${n(all)} input tokens; goal ≥ 0.94)`,
        `  billed input ${n(billedInput)} (input + 1.25× writes + 0.1× reads); thinking tokens ${n(thinkingTokens)}; thinking blocks sent back ${n(sentBack)}`,
      ].join('\n'),
    );
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
