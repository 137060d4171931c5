// OpenAI's compaction vs this agent's own, on one scripted session: figures measured in one
// run, no pass/fail.
//   npx tsx bench/responses.ts      (npm run bench -- responses)
// A 30-turn gpt-5.4 session on the Responses API (a FileRead and a long answer per turn, a 32K
// window so that compaction fires several times) runs in-process through the real Responses
// adapter and SDK against the fake server, once with compaction.engine "own" (the agent's
// summarizer writes a readable checkpoint) and once with "provider" (responses.compact writes an
// encrypted compaction item). The fake bills like OpenAI from its simulated prompt cache.
// Reported per engine: billed input (uncached + 0.1× cached), output tokens, requests,
// compactions, wall time (the fake answers at once: a real compaction pass takes seconds either
// way), and what the turns after the last compaction can still read: readable summary tokens,
// opaque (encrypted) tokens, and the archived messages Recall can still open.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { IN_PLACE_MARKER } from '../src/compaction/prompt.js';
import { loadConfig } from '../src/config/config.js';
import { createProvider } from '../src/llm/factory.js';
import { countText } from '../test/fake-server/tokens.js';
import { lastUserText, startFakeServer, type RecordedRequest, type RequestView } from '../test/fake-server/server.js';
import { openaiBilled, writeModules } from './workload.js';
import { benchSession } from './place.js';

const MODEL = 'gpt-5.4';
const TURNS = 30;
const SUMMARY = [
  '## Goal',
  'Review every module of the project.',
  '## Completed Work',
  'Modules read so far, each described: step functions that multiply and add.',
  '## Next Steps',
  'Read the next module.',
].join('\n');

export interface EngineRun {
  engine: 'own' | 'provider';
  requests: number;
  /** uncached + 0.1 × cached input, in input-token units */
  billedInput: number;
  output: number;
  compactions: number;
  wallMs: number;
  /** Last request: tokens of checkpoint text a model (or a person) can read. */
  readableSummary: number;
  /** Last request: tokens standing for earlier context that only OpenAI can read. */
  opaque: number;
  /** Messages in the archive, which Recall searches and /uncompact restores. */
  archived: number;
  refused: number;
}

const isSummarizer = (v: RequestView): boolean => v.system.includes('context checkpoints') || (lastUserText(v)?.includes(IN_PLACE_MARKER) ?? false);

async function runSession(engine: 'own' | 'provider'): Promise<EngineRun> {
  const server = await startFakeServer({ contextWindow: 1_000_000 });
  const dir = mkdtempSync(join(tmpdir(), 'agent-bench-responses-'));
  try {
    writeModules(dir, TURNS);
    writeFileSync(
      join(dir, '.agentrc'),
      JSON.stringify({
        api: 'responses',
        models: { [MODEL]: { contextWindow: 32_000, maxOutputTokens: 4_000, provider: 'openai' } },
        compaction: { engine, autoBufferTokens: 10_000, microBufferTokens: 12_000 },
      }),
    );
    const config = loadConfig({ cwd: dir, home: dir, env: { OPENAI_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: MODEL } });
    const provider = createProvider({ provider: 'openai', apiKey: 'k', baseURL: server.openaiBaseURL, api: 'responses', cache: config.cache });
    const { session, store } = await benchSession(config, provider);
    server.respondWith((req) => (isSummarizer(req.view) ? { text: SUMMARY, reasoning: false } : undefined));
    let compactions = 0;
    let archived = 0;
    session.on((e) => {
      if (e.type === 'compaction_end' && e.record.status === 'applied' && e.record.trigger !== 'micro') {
        compactions++;
        archived += e.record.archivedCount ?? 0;
      }
    });
    const started = performance.now();
    for (let t = 0; t < TURNS; t++) {
      server.enqueue(
        { text: `Reading mod${t}.ts.`, toolCalls: [{ name: 'FileRead', input: { path: `mod${t}.ts` } }] },
        { text: `mod${t}.ts defines forty step functions. ${'Each multiplies its input and adds an offset. '.repeat(40)}` },
      );
      const r = await session.prompt(`Review mod${t}.ts and tell me what it does.`);
      if (r.reason !== 'end_turn') throw new Error(`${engine}: turn ${t} ended with ${r.reason}`);
    }
    const wallMs = performance.now() - started;
    session.close();
    store.close();
    const reqs = server.requests.filter((q) => q.usage);
    const last = server.requests.filter((q) => q.path === '/v1/responses' && q.view).at(-1)!;
    const input = (last.body as { input: { type: string; role?: string; content?: unknown }[] }).input;
    const checkpoint = input.find((it) => it.type === 'message' && it.role === 'user' && JSON.stringify(it.content).includes('Context checkpoint'));
    const readableSummary = checkpoint ? countText(JSON.stringify(checkpoint.content)) : 0;
    const opaque = last.view!.promptTokens - countWithoutCompaction(last);
    return {
      engine,
      requests: reqs.length,
      billedInput: Math.round(reqs.reduce((n, q) => n + openaiBilled(q), 0)),
      output: reqs.reduce((n, q) => n + q.usage!.outputTokens, 0),
      compactions,
      wallMs,
      readableSummary,
      opaque,
      archived,
      refused: server.requests.filter((q) => (q.response?.status ?? 200) >= 400 || q.response?.kind === 'error').length,
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The last request's count without its compaction items (what the fake adds for each). */
function countWithoutCompaction(q: RecordedRequest): number {
  const items = (q.body as { input: { type: string; encrypted_content?: string }[] }).input;
  let sealed = 0;
  for (const it of items) {
    if (it.type !== 'compaction' || it.encrypted_content === undefined) continue;
    const v = JSON.parse(Buffer.from(it.encrypted_content, 'base64').toString('utf8')) as { tokens: number };
    sealed += v.tokens;
  }
  return q.view!.promptTokens - sealed;
}

export async function runResponsesBench(): Promise<{ own: EngineRun; provider: EngineRun }> {
  const own = await runSession('own');
  const provider = await runSession('provider');
  return { own, provider };
}

export function formatResponsesBench(r: { own: EngineRun; provider: EngineRun }): string {
  const n = (v: number): string => Math.round(v).toLocaleString('en-US');
  const row = (x: EngineRun): string =>
    `  ${x.engine.padEnd(9)} billed input ${n(x.billedInput).padStart(8)}  output ${n(x.output).padStart(6)}  ${x.requests} requests  ${x.compactions} compactions  ` +
    `${n(x.wallMs)} ms  | last request: ${n(x.readableSummary)} readable checkpoint tokens, ${n(x.opaque)} encrypted; ${x.archived} messages archived (Recall)  refused ${x.refused}`;
  return [
    `${TURNS}-turn gpt-5.4 session on the Responses API, 32K window, OpenAI billing (input + 0.1× cached):`,
    row(r.own),
    row(r.provider),
    `  provider ÷ own billed input: ${(r.provider.billedInput / r.own.billedInput).toFixed(3)}; output: ${(r.provider.output / r.own.output).toFixed(3)}`,
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runResponsesBench().then(
    (r) => console.log(formatResponsesBench(r)),
    (e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}
