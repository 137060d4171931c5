// Spill benchmark: the long tool-heavy session of issue 21, today's rule (spilling off: Bash
// keeps 30,000 characters of head and tail in the context) vs the spill rule (output.spillTokens
// default), on Anthropic billing (uncached + 1.25× writes + 0.1× reads) and OpenAI billing
// (uncached + 0.1× cached), through the real adapters and SDKs against the fake server and its
// cache simulation. 40 turns on a 200K window; every other turn the model runs a command that
// prints 6,000 lines (~42 KB). Each turn's prompt carries a note; all 40 must be in the last
// request. Then the peak RSS of archiving one 50 MB output (capped at 10 MB).
//   npx tsx bench/spill.ts
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { LoopOptions } from '../src/agent/host.js';
import { runTools } from '../src/agent/runTools.js';
import { IN_PLACE_MARKER } from '../src/compaction/prompt.js';
import { loadConfig } from '../src/config/config.js';
import { createProvider } from '../src/llm/factory.js';
import { archiveSpill } from '../src/session/recall.js';
import { openStore } from '../src/store/index.js';
import { createTools } from '../src/tools/registry.js';
import { lastUserText, startFakeServer, type RecordedRequest, type RequestView } from '../test/fake-server/server.js';
import { benchSession } from './place.js';

const TURNS = 40;
const COMMAND = 'seq 100001 106000';
const SUMMARY = ['## Goal', 'Run the checks the person asks for.', '## Next Steps', 'Wait for the next note.'].join('\n');

type Wire = 'anthropic' | 'openai';

interface SpillRun {
  label: string;
  requests: number;
  billedInput: number;
  largestRequest: number;
  notesInLast: number;
  compactions: number;
}

const isSummarizer = (v: RequestView): boolean => v.system.includes('context checkpoints') || (lastUserText(v)?.includes(IN_PLACE_MARKER) ?? false);
const total = (q: RecordedRequest): number => (q.usage ? q.usage.inputTokens + q.usage.cacheWriteTokens + q.usage.cacheReadTokens : 0);

function billedOf(wire: Wire, q: RecordedRequest): number {
  if (!q.usage) return 0;
  // the fake reports OpenAI's cached tokens as cache reads, with no writes
  return wire === 'anthropic'
    ? q.usage.inputTokens + 1.25 * q.usage.cacheWriteTokens + 0.1 * q.usage.cacheReadTokens
    : q.usage.inputTokens + 0.1 * q.usage.cacheReadTokens;
}

async function runSession(wire: Wire, spill: boolean): Promise<SpillRun> {
  const model = wire === 'anthropic' ? 'bench-claude' : 'bench-gpt';
  const server = await startFakeServer({ contextWindow: 200_000 });
  const dir = mkdtempSync(join(tmpdir(), 'agent-bench-spill-'));
  try {
    writeFileSync(
      join(dir, '.agentrc'),
      JSON.stringify({
        models: { [model]: { contextWindow: 200_000, maxOutputTokens: 8_000, provider: wire } },
        permissions: { mode: 'allow' },
        ...(spill ? {} : { output: { spillTokens: 0 } }),
      }),
    );
    const keyVar = wire === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY';
    const config = loadConfig({ cwd: dir, home: dir, env: { [keyVar]: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model } });
    const provider = createProvider({
      provider: wire,
      apiKey: 'k',
      baseURL: wire === 'anthropic' ? server.anthropicBaseURL : server.openaiBaseURL,
      cache: config.cache,
    });
    const { session, store } = await benchSession(config, provider, { now: () => Date.now() });
    server.respondWith((req) => (isSummarizer(req.view) ? { text: SUMMARY } : undefined));
    let compactions = 0;
    session.on((e) => {
      if (e.type === 'compaction_end' && e.record.status === 'applied') compactions++;
    });
    for (let t = 0; t < TURNS; t++) {
      if (t % 2 === 0)
        server.enqueue(
          { text: 'Running it.', toolCalls: [{ name: 'Bash', input: { command: COMMAND } }] },
          { text: `Check ${t} done: 6,000 numbers, all in order.` },
        );
      else server.enqueue({ text: `Noted ${t}.` });
      const r = await session.prompt(`note-${t}: please run the check again and keep this note (${'context '.repeat(20)}).`);
      if (r.reason !== 'end_turn') throw new Error(`turn ${t} ended with ${r.reason}`);
    }
    session.close();
    store.close();
    const reqs = server.requests.filter((q) => q.view && q.usage && !isSummarizer(q.view));
    const last = JSON.stringify(reqs[reqs.length - 1]!.view);
    const notesInLast = Array.from({ length: TURNS }, (_, t) => last.includes(`note-${t}:`)).filter(Boolean).length;
    const all = server.requests.filter((q) => q.usage);
    return {
      label: `${wire}, ${spill ? 'spill rule (new)' : 'spilling off (today)'}`,
      requests: all.length,
      billedInput: Math.round(all.reduce((n, q) => n + billedOf(wire, q), 0)),
      largestRequest: Math.max(...all.map(total)),
      notesInLast,
      compactions,
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface BigOutputRun {
  archivedChars: number;
  totalBytes: number;
  rssBeforeMb: number;
  peakRssMb: number;
  previewChars: number;
}

/** One 50 MB output through Bash and the result path into the store: what is archived (the cap) and the peak RSS. */
export async function runBigOutput(): Promise<BigOutputRun> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-bench-spill-big-'));
  const store = openStore(join(dir, 'agent.db'));
  try {
    store.createSession({ id: 's1', cwd: dir, provider: 'anthropic', model: 'm' });
    const config = loadConfig({ cwd: dir, home: dir, env: { AGENT_DB: join(dir, 'agent.db') }, flags: {} });
    const tools = createTools({ bash: { ...config.bash, timeoutMs: 300_000 } });
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const opts = {
      cwd: dir,
      gate: { authorize: async () => ({ ok: true as const }) },
      spill: archiveSpill(
        store,
        () => 's1',
        () => config.output,
      ),
    } as unknown as LoopOptions;
    const { results } = await runTools(
      [{ type: 'tool_use', id: 'tu1', name: 'Bash', input: { command: "yes 'a line of fifty characters to make up fifty megabytes' | head -c 52428800" } }],
      new Map(tools.map((t) => [t.name, t])),
      opts,
      new AbortController().signal,
      () => undefined,
    );
    peak = Math.max(peak, process.memoryUsage().rss);
    clearInterval(sampler);
    const spilled = store.spilled.get('s1', 'o1');
    if (!spilled) throw new Error(`not spilled: ${results[0]!.content.slice(0, 200)}`);
    return {
      archivedChars: spilled.content.length,
      totalBytes: spilled.totalBytes,
      rssBeforeMb: rssBefore / 2 ** 20,
      peakRssMb: peak / 2 ** 20,
      previewChars: results[0]!.content.length,
    };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runSpillBench(): Promise<SpillRun[][]> {
  const out: SpillRun[][] = [];
  for (const wire of ['anthropic', 'openai'] as const) out.push([await runSession(wire, false), await runSession(wire, true)]);
  return out;
}

export function formatSpillBench(pairs: SpillRun[][]): string {
  const n = (v: number): string => v.toLocaleString('en-US');
  const lines = [`${TURNS}-turn session, 200K window, \`${COMMAND}\` (6,000 lines, ~42 KB) every other turn:`];
  for (const [today, next] of pairs) {
    for (const x of [today!, next!]) {
      lines.push(
        `  ${x.label.padEnd(34)} billed ${n(x.billedInput).padStart(9)}  largest request ${n(x.largestRequest).padStart(7)}  notes in last request ${x.notesInLast}/${TURNS}  (${x.requests} requests, ${x.compactions} compactions)`,
      );
    }
    lines.push(
      `    new ÷ today: billed ${(next!.billedInput / today!.billedInput).toFixed(3)} (goal ≤ 0.25), largest ${n(next!.largestRequest)} (goal ≤ 48,000)`,
    );
  }
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runSpillBench().then(
    async (r) => {
      console.log(formatSpillBench(r));
      const big = await runBigOutput();
      const mb = (v: number): string => v.toFixed(1);
      console.log(
        `50 MB output through Bash into the archive: ${mb(big.totalBytes / 2 ** 20)} MB seen, ${mb(big.archivedChars / 2 ** 20)} MB archived (cap 10 MB), preview ${big.previewChars.toLocaleString('en-US')} characters; ` +
          `RSS ${mb(big.rssBeforeMb)} MB before, peak ${mb(big.peakRssMb)} MB (+${mb(big.peakRssMb - big.rssBeforeMb)} MB)`,
      );
    },
    (e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}
