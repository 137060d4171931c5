// Background compaction (issue 43): how long a -p tool loop that crosses auto compaction waits
// for its summary. Figures measured in one run, no pass/fail.
//   npm run bench -- compaction-wait
// A 40-step tool loop (a FileRead of ~1,600 tokens a step, each reply starting STEP_MS late) on a
// 30K window runs in-process through the real Anthropic adapter and SDK against the fake server,
// as `-p` runs it (the turn, then the print run's settle of a due background compaction). The
// summarizer answers after 0, 5 and 30 s, or never; each with compaction.background on (the
// default prefire point), on with compaction.prefire 0.7 (the summary started earlier) and off
// (the synchronous path). Reported per run: the longest wait between two model
// requests of the loop, the p95 of those waits (the per-step latency), the whole run, and what
// compaction did. A synchronous run whose summarizer never answers is stopped after HANG_CAP_MS.
// Then the billed input of the caching bench's 40-turn session (two auto compactions), background
// on (default, prefire 0.7) vs off: what writing summaries ahead and warming the cache cost.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IN_PLACE_MARKER } from '../src/compaction/prompt.js';
import { loadConfig } from '../src/config/config.js';
import { createProvider } from '../src/llm/factory.js';
import { lastUserText, startFakeServer, type RequestView } from '../test/fake-server/server.js';
import { runSession } from './caching.js';
import { benchSession } from './place.js';

const MODEL = 'bench-30k';
const STEPS = 40;
const STEP_MS = 250;
const HANG_CAP_MS = 60_000;
const SUMMARY = '## Goal\nread the files\n## Next Steps\nKeep reading.';

const isSummarizer = (v: RequestView): boolean => v.system.includes('context checkpoints') || (lastUserText(v)?.includes(IN_PLACE_MARKER) ?? false);
const isWarmUp = (v: RequestView): boolean => (v.maxTokens ?? Number.POSITIVE_INFINITY) <= 16;

interface Summarizer {
  label: string;
  delayMs?: number;
  hang?: boolean;
}

interface WaitRun {
  summarizer: string;
  background: boolean;
  finished: boolean;
  longestGapMs: number;
  p95GapMs: number;
  totalMs: number;
  compactions: string[];
}

async function loop(summarizer: Summarizer, background: boolean, prefire?: number): Promise<WaitRun> {
  const server = await startFakeServer({ contextWindow: 1_000_000 });
  const dir = mkdtempSync(join(tmpdir(), 'agent-bench-bgwait-'));
  try {
    for (let i = 0; i < 10; i++)
      writeFileSync(join(dir, `f${i}.txt`), Array.from({ length: 60 }, (_, l) => `line ${l} of f${i}: ${'lorem ipsum dolor sit amet '.repeat(4)}`).join('\n'));
    writeFileSync(
      join(dir, '.agentrc'),
      JSON.stringify({
        permissions: { mode: 'allow' },
        models: { [MODEL]: { contextWindow: 30_000, maxOutputTokens: 4_096, provider: 'anthropic' } },
        // micro compaction kept out of the way: every output recent
        compaction: { background, microKeepRecent: 100, ...(prefire !== undefined ? { prefire } : {}) },
      }),
    );
    const config = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: MODEL } });
    const provider = createProvider({ provider: 'anthropic', apiKey: 'k', baseURL: server.anthropicBaseURL, cache: config.cache });
    const { session, store } = await benchSession(config, provider);
    const times: number[] = [];
    let step = 0;
    server.respondWith((req) => {
      const v = req.view;
      if (isSummarizer(v)) return { text: SUMMARY, ...(summarizer.delayMs ? { delayMs: summarizer.delayMs } : {}), ...(summarizer.hang ? { hang: true } : {}) };
      if (isWarmUp(v)) return { text: 'ok' };
      times.push(Date.now());
      step++;
      if (step > STEPS) return { text: 'Done.', delayMs: STEP_MS };
      return { toolCalls: [{ name: 'FileRead', input: { path: `f${step % 10}.txt` } }], delayMs: STEP_MS };
    });
    const compactions: string[] = [];
    session.on((e) => {
      if (e.type === 'compaction_end' && e.record.trigger !== 'micro')
        compactions.push(`${e.record.trigger} ${e.record.status}${e.record.method === 'ledger' ? ' (no summary)' : ''}`);
    });
    const start = Date.now();
    // as -p runs it: the turn, then a due background compaction settled before the run ends
    const run = (async () => {
      await session.prompt('read the files');
      await session.settleCompaction();
      return true;
    })();
    let cap: NodeJS.Timeout | undefined;
    const finished = await Promise.race([run, new Promise<false>((r) => (cap = setTimeout(() => r(false), HANG_CAP_MS)))]);
    clearTimeout(cap);
    const totalMs = Date.now() - start;
    if (!finished) {
      session.interrupt();
      await run.catch(() => undefined);
    }
    session.close();
    store.close();
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    const sorted = [...gaps].sort((a, b) => a - b);
    // a run stopped at the cap waited from its last request until then, at least
    const longest = Math.max(sorted.at(-1) ?? 0, finished ? 0 : start + totalMs - (times.at(-1) ?? start));
    return {
      summarizer: summarizer.label,
      background,
      finished: finished && step > STEPS,
      longestGapMs: longest,
      p95GapMs: sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)] ?? 0,
      totalMs,
      compactions,
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const SUMMARIZERS: Summarizer[] = [
  { label: '0 s', delayMs: 0 },
  { label: '5 s', delayMs: 5_000 },
  { label: '30 s', delayMs: 30_000 },
  { label: 'never', hang: true },
];

async function main(): Promise<void> {
  const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
  console.log(`${STEPS}-step -p tool loop on a 30K window, replies ${STEP_MS} ms late; waits between two model requests of the loop:`);
  for (const summarizer of SUMMARIZERS)
    for (const [path, background, prefire] of [
      ['background ', true, undefined],
      ['bg, pre 0.7', true, 0.7],
      ['synchronous', false, undefined],
    ] as const) {
      const r = await loop(summarizer, background, prefire);
      console.log(
        `  summarizer ${r.summarizer.padEnd(5)} ${path}  longest ${s(r.longestGapMs).padStart(8)}  p95 ${s(r.p95GapMs).padStart(7)}  ` +
          `run ${s(r.totalMs).padStart(8)}${r.finished ? '' : ` NOT FINISHED (stopped after ${HANG_CAP_MS / 1000} s)`}  compactions: ${r.compactions.join(', ') || 'none'}`,
      );
    }
  const on = await runSession('background on (default)', true, undefined);
  const early = await runSession('background, prefire 0.7', true, undefined, { prefire: 0.7 });
  const off = await runSession('background off (synchronous)', true, undefined, { background: false });
  const n = (v: number): string => v.toLocaleString('en-US');
  console.log("caching bench's 40-turn session, Anthropic billing (input + 1.25× writes + 0.1× reads):");
  for (const x of [on, early, off])
    console.log(
      `  ${x.label.padEnd(30)} billed ${n(x.billedInput).padStart(9)}  (${x.requests} requests, ${x.autoCompactions} auto compactions, summaries billed ${n(x.summaryBilled)})`,
    );
  console.log(`  background ÷ synchronous billed input: ${(on.billedInput / off.billedInput).toFixed(3)} (goal ≤ 1.05)`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
