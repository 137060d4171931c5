// Prompt-caching benchmark: figures measured in one run, no pass/fail.
//   npx tsx bench/caching.ts
// A scripted 40-turn session (a FileRead and an answer per turn on a 32K window: two auto
// compactions when nothing is cached, an idle pause past the TTL at turn 20) runs in-process through the real Anthropic adapter and SDK against the
// fake server, which bills like Anthropic from its simulated cache. Reported:
// 1. billed input (uncached + 1.25× cache writes + 0.1× cache reads, summaries included) with
//    caching on vs off (goal: ≤ 0.25× of the uncached run);
// 2. micro compaction's cache cost under the cache-aware rule (microPolicy.ts) vs clearing
//    whatever is clearable at every call, both with caching on.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { MicroPolicy } from '../src/compaction/microPolicy.js';
import { IN_PLACE_MARKER } from '../src/compaction/prompt.js';
import { loadConfig } from '../src/config/config.js';
import { createProvider } from '../src/llm/factory.js';
import { lastUserText, startFakeServer, type RecordedRequest, type RequestView } from '../test/fake-server/server.js';
import { anthropicBilled, writeModules } from './workload.js';
import { benchSession } from './place.js';

const MODEL = 'bench-claude';
const TURNS = 40;
const IDLE_EVERY = 20;
const IDLE_MS = 6 * 60_000;
const SUMMARY = [
  '## Goal',
  'Review every module of the project.',
  '## Completed Work',
  'Modules read so far, each described.',
  '## Next Steps',
  'Read the next module.',
].join('\n');

export interface CachingRun {
  label: string;
  requests: number;
  /** uncached + 1.25 × writes + 0.1 × reads, in input-token units */
  billedInput: number;
  input: number;
  cacheRead: number;
  cacheWrite: number;
  autoCompactions: number;
  microCompactions: number;
  /** billed input of the summary requests alone */
  summaryBilled: number;
}

export interface CachingBenchResult {
  on: CachingRun;
  off: CachingRun;
  everyCall: CachingRun;
  /** on.billedInput ÷ off.billedInput */
  ratio: number;
  /** on.billedInput ÷ everyCall.billedInput */
  microRatio: number;
}

const isSummarizer = (v: RequestView): boolean => v.system.includes('context checkpoints') || (lastUserText(v)?.includes(IN_PLACE_MARKER) ?? false);

/** One 40-turn session; `compaction` adds settings (compaction-wait.ts runs it with background compaction off). */
export async function runSession(
  label: string,
  enabled: boolean,
  microPolicy: MicroPolicy | undefined,
  compaction: Record<string, unknown> = {},
): Promise<CachingRun> {
  const server = await startFakeServer({ contextWindow: 1_000_000 });
  const dir = mkdtempSync(join(tmpdir(), 'agent-bench-cache-'));
  try {
    writeModules(dir, TURNS);
    writeFileSync(
      join(dir, '.agentrc'),
      JSON.stringify({
        cache: { enabled },
        models: { [MODEL]: { contextWindow: 32_000, maxOutputTokens: 4_000, provider: 'anthropic' } },
        compaction: { autoBufferTokens: 20_000, microBufferTokens: 26_000, ...compaction },
      }),
    );
    const config = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: MODEL } });
    const provider = createProvider({ provider: 'anthropic', apiKey: 'k', baseURL: server.anthropicBaseURL, cache: config.cache });
    let offset = 0;
    const { session, store } = await benchSession(config, provider, { now: () => Date.now() + offset, ...(microPolicy ? { microPolicy } : {}) });
    server.respondWith((req) => (isSummarizer(req.view) ? { text: SUMMARY } : undefined));
    let autoCompactions = 0;
    let microCompactions = 0;
    session.on((e) => {
      if (e.type === 'compaction_end' && e.record.status === 'applied') {
        if (e.record.trigger === 'micro') microCompactions++;
        else autoCompactions++;
      }
    });
    for (let t = 0; t < TURNS; t++) {
      if (t > 0 && t % IDLE_EVERY === 0) {
        // the person steps away past the 5-minute TTL: the cache goes cold
        offset += IDLE_MS;
        server.promptCache.advance(IDLE_MS);
      }
      server.enqueue(
        { text: `Reading mod${t}.ts.`, toolCalls: [{ name: 'FileRead', input: { path: `mod${t}.ts` } }] },
        { text: `mod${t}.ts defines forty step functions. ${'Each multiplies its input and adds an offset. '.repeat(50)}` },
      );
      const r = await session.prompt(`Review mod${t}.ts and tell me what it does.`);
      if (r.reason !== 'end_turn') throw new Error(`turn ${t} ended with ${r.reason}`);
    }
    session.close();
    store.close();
    const reqs = server.requests.filter((q) => q.view && q.usage);
    const sum = (f: (q: RecordedRequest) => number): number => reqs.reduce((n, q) => n + f(q), 0);
    return {
      label,
      requests: reqs.length,
      billedInput: Math.round(sum(anthropicBilled)),
      input: sum((q) => q.usage!.inputTokens),
      cacheRead: sum((q) => q.usage!.cacheReadTokens),
      cacheWrite: sum((q) => q.usage!.cacheWriteTokens),
      autoCompactions,
      microCompactions,
      summaryBilled: Math.round(reqs.filter((q) => isSummarizer(q.view!)).reduce((n, q) => n + anthropicBilled(q), 0)),
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runCachingBench(): Promise<CachingBenchResult> {
  const on = await runSession('caching on, cache-aware micro', true, undefined);
  const off = await runSession('caching off', false, undefined);
  const everyCall = await runSession('caching on, micro at every call', true, 'every-call');
  return { on, off, everyCall, ratio: on.billedInput / off.billedInput, microRatio: on.billedInput / everyCall.billedInput };
}

export function formatCachingBench(r: CachingBenchResult): string {
  const n = (v: number): string => v.toLocaleString('en-US');
  const row = (x: CachingRun): string =>
    `  ${x.label.padEnd(34)} billed ${n(x.billedInput).padStart(9)}  (input ${n(x.input)}, writes ${n(x.cacheWrite)}, reads ${n(x.cacheRead)}; ` +
    `${x.requests} requests, ${x.autoCompactions} auto + ${x.microCompactions} micro compactions, summaries billed ${n(x.summaryBilled)})`;
  return [
    `${TURNS}-turn session, Anthropic billing (input + 1.25× writes + 0.1× reads), idle ${IDLE_MS / 60_000} min every ${IDLE_EVERY} turns:`,
    row(r.on),
    row(r.off),
    row(r.everyCall),
    `  billed input with caching ÷ without: ${r.ratio.toFixed(3)} (goal ≤ 0.25)`,
    `  cache-aware micro ÷ micro at every call: ${r.microRatio.toFixed(3)}`,
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runCachingBench().then(
    (r) => console.log(formatCachingBench(r)),
    (e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}
