// Compaction fidelity (issue 37): what the working state carries through compaction, whatever
// the summary keeps. Figures measured in one run, no pass/fail.
//   npx tsx bench/fidelity.ts      (npm run bench -- fidelity)
// Issue 37's 14-turn coding session (test/e2e/ledger-script.ts: rules in the person's first
// messages, a fact read from a file, a modified file, a failed command, older requests, a
// decision in the model's reply) runs in-process against the fake server through the real
// Anthropic adapter, then one more turn. Compaction comes three ways: manual (/compact before
// the last turn), reactive (the provider's window shrinks under the last turn's request) and
// auto (a 9,000-token window: several compactions in the session). Three summarizers: one that
// keeps nothing, one that keeps each fact it is shown with probability 1/2 (fixed seed), one
// that keeps every fact it is shown. Each run twice: the ledger off (compaction.ledger false:
// the code path of main before issue 37) and on. Probes of the first request after the last
// compaction, by Factory's types: recall, artifact, continuation, decision.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IN_PLACE_MARKER } from '../src/compaction/prompt.js';
import { loadConfig } from '../src/config/config.js';
import { createProvider } from '../src/llm/factory.js';
import { EXTRA_FACTS, FACTS, TURNS, type Fact, type ProbeType } from '../test/e2e/ledger-script.js';
import { lastUserText, startFakeServer, type RequestView } from '../test/fake-server/server.js';
import { rng } from './rng.js';
import { benchSession } from './place.js';

const MODEL = 'claude-sonnet-4-5';
const ALL: readonly Fact[] = [...FACTS, ...EXTRA_FACTS];
const TYPES: readonly ProbeType[] = ['recall', 'artifact', 'continuation', 'decision'];
type Trigger = 'manual' | 'reactive' | 'auto' | 'auto×3';
/** Turns after the script in the auto×3 runs, at most, until the third auto compaction. */
const MORE_TURNS = 24;
type Keeper = 'nothing' | 'half' | 'all';

const isSummarizer = (v: RequestView): boolean => v.system.includes('context checkpoints') || (lastUserText(v)?.includes(IN_PLACE_MARKER) ?? false);

/** The summary a summarizer of this kind writes from what it was shown. */
function summarizer(kind: Keeper, seed: number): (v: RequestView) => string {
  const draw = rng(seed);
  return (v) => {
    const shown = JSON.stringify(v.messages);
    const kept = kind === 'nothing' ? [] : ALL.filter((f) => shown.includes(f.needle) && (kind === 'all' || draw() < 0.5));
    return ['## Goal', 'Continue the work.', '## Facts', ...kept.map((f) => `- ${f.needle}`), '## Next Steps', 'Continue.'].join('\n');
  };
}

export interface FidelityRun {
  trigger: Trigger;
  keeper: Keeper;
  ledger: boolean;
  compactions: number;
  /** Facts in the session before the (last) compaction: what is probed. */
  planted: Fact[];
  carried: Fact[];
  /** Tokens of the ledger block in the last checkpoint (0 without it). */
  ledgerTokens: number;
  /** The first request after the last compaction. */
  firstTokens: number;
}

async function run(trigger: Trigger, keeper: Keeper, ledger: boolean): Promise<FidelityRun> {
  const server = await startFakeServer({ contextWindow: 1_000_000 });
  const dir = mkdtempSync(join(tmpdir(), 'agent-bench-fidelity-'));
  try {
    mkdirSync(join(dir, 'config'));
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'config', 'app.env'), 'PAYMENT_HOST=localhost\nPAYMENT_PORT=8734\n');
    const small = trigger === 'auto' || trigger === 'auto×3';
    writeFileSync(
      join(dir, '.agentrc'),
      JSON.stringify({
        permissions: { mode: 'allow' },
        ...(small ? { models: { [MODEL]: { contextWindow: 9_000, maxOutputTokens: 1_500, provider: 'anthropic' } } } : {}),
        compaction: {
          // AGENT_BENCH_COMPACTION: more compaction settings (JSON), e.g. {"background":false} for the synchronous path
          ...(JSON.parse(process.env.AGENT_BENCH_COMPACTION ?? '{}') as Record<string, unknown>),
          ledger,
          ...(small ? { autoBufferTokens: 1_000, warningBufferTokens: 1_500, microBufferTokens: 1_200, blockingBufferTokens: 300, tailTurns: 2 } : {}),
        },
      }),
    );
    const config = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: MODEL } });
    const provider = createProvider({ provider: 'anthropic', apiKey: 'k', baseURL: server.anthropicBaseURL, cache: config.cache });
    const { session, store } = await benchSession(config, provider);
    const write = summarizer(keeper, 37);
    server.respondWith((req) => (req.view && isSummarizer(req.view) ? { text: write(req.view) } : undefined));
    let compactions = 0;
    let lastAt = -1;
    let ledgerTokens = 0;
    session.on((e) => {
      if (e.type === 'compaction_end' && e.record.status === 'applied' && e.record.trigger !== 'micro') {
        compactions++;
        lastAt = server.requests.length;
        ledgerTokens = e.record.report?.ledger?.tokens ?? 0;
      }
    });
    for (const t of TURNS) {
      server.enqueue(...t.replies);
      await session.prompt(t.prompt);
    }
    // successive auto compactions: the facts planted in the script must survive the later ones too
    for (let i = 0; trigger === 'auto×3' && compactions < 3 && i < MORE_TURNS; i++) {
      server.enqueue({ text: `Part ${i}: ${'The module keeps its state in one place and passes it down explicitly. '.repeat(30)}` });
      await session.prompt(`Walk me through part ${i} of the module.`);
    }
    if (trigger === 'manual') await session.compact();
    if (trigger === 'reactive') {
      const size = server.requests.filter((q) => q.view && !isSummarizer(q.view)).at(-1)!.view!.promptTokens;
      server.settings.contextWindow = { [MODEL]: size - 400, '*': 1_000_000 };
    }
    server.enqueue({ text: 'Continuing.' });
    await session.prompt('Go on.');
    session.close();
    store.close();
    const after = server.requests.slice(Math.max(0, lastAt)).find((q) => q.view && !isSummarizer(q.view) && q.response?.status === 200);
    const text = after ? JSON.stringify(after.view!.messages) : '';
    // only the facts planted before the compaction are probed (an auto compaction may come mid-session)
    const before = server.requests
      .slice(0, Math.max(0, lastAt))
      .filter((q) => q.view && !isSummarizer(q.view))
      .map((q) => JSON.stringify(q.view!.messages))
      .join('\n');
    return {
      trigger,
      keeper,
      ledger,
      compactions,
      planted: ALL.filter((f) => before.includes(f.needle)),
      carried: lastAt < 0 ? [] : ALL.filter((f) => before.includes(f.needle) && text.includes(f.needle)),
      ledgerTokens,
      firstTokens: after?.view?.promptTokens ?? 0,
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runFidelityBench(): Promise<FidelityRun[]> {
  const out: FidelityRun[] = [];
  for (const trigger of ['manual', 'reactive', 'auto', 'auto×3'] as const)
    for (const keeper of ['nothing', 'half', 'all'] as const) for (const ledger of [false, true]) out.push(await run(trigger, keeper, ledger));
  return out;
}

export function formatFidelityBench(runs: readonly FidelityRun[]): string {
  const per = (r: FidelityRun, t: ProbeType): string => {
    const total = r.planted.filter((f) => f.type === t).length;
    return `${r.carried.filter((f) => f.type === t).length}/${total}`;
  };
  const lines = [
    '| compaction | summarizer keeps | ledger | compactions | recall | artifact | continuation | decision | carried | ledger tokens | first request tokens |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of runs)
    lines.push(
      `| ${r.trigger} | ${r.keeper} | ${r.ledger ? 'on' : 'off (main)'} | ${r.compactions} | ${TYPES.map((t) => per(r, t)).join(' | ')} | **${r.carried.length}/${r.planted.length}** | ${r.ledgerTokens.toLocaleString('en-US')} | ${r.firstTokens.toLocaleString('en-US')} |`,
    );
  const lost = (r: FidelityRun): string =>
    r.planted
      .filter((f) => !r.carried.includes(f))
      .map((f) => f.name)
      .join('; ') || '—';
  lines.push('', 'Lost with the ledger on:');
  for (const r of runs.filter((x) => x.ledger)) lines.push(`- ${r.trigger}, keeps ${r.keeper}: ${lost(r)}`);
  return lines.join('\n');
}

console.log(formatFidelityBench(await runFidelityBench()));
