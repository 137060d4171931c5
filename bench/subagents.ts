// Sub-agent benchmark: figures measured in one run, no pass/fail.
//   npx tsx bench/subagents.ts
// A scripted 20-turn exploration, each turn reading five large files (~4k tokens each), runs
// in-process through the real Anthropic adapter and SDK against the fake server (which bills
// like Anthropic from its simulated cache), twice: the parent reads the files itself, or it
// hands each turn's reading to a Task child that reports in a paragraph. Reported:
// 1. the parent's largest request with delegation ÷ without (goal ≤ 0.3);
// 2. billed input (uncached + 1.25× cache writes + 0.1× reads, children and summaries
//    included) with delegation ÷ without (goal ≤ 1).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AgentCatalog } from '../src/agents/agents.js';
import { IN_PLACE_MARKER } from '../src/compaction/prompt.js';
import { createTokenCounter } from '../src/compaction/tokens.js';
import { loadConfig } from '../src/config/config.js';
import { createProvider } from '../src/llm/factory.js';
import { Session } from '../src/session/session.js';
import { openStore } from '../src/store/index.js';
import { subagentCapability } from '../src/agents/capability.js';
import { createTools } from '../src/tools/registry.js';
import { lastUserText, startFakeServer, type RequestView } from '../test/fake-server/server.js';
import { anthropicBilled } from './workload.js';

const MODEL = 'bench-claude';
const WINDOW = 200_000;
const TURNS = 20;
const FILES_PER_TURN = 5;
const SUMMARY = [
  '## Goal',
  'Explore the code base module by module.',
  '## Completed Work',
  'Modules read so far, each described.',
  '## Next Steps',
  'Read the next modules.',
].join('\n');
const REPORT = `The five modules define step functions that multiply their input and add an offset; none has side effects; the offsets grow with the module number. ${'Each function is pure and the modules do not import one another. '.repeat(6)}`;

export interface ExplorationRun {
  label: string;
  requests: number;
  parentRequests: number;
  /** The parent's largest request, in prompt tokens as the server counted them. */
  largestParent: number;
  /** uncached + 1.25 × writes + 0.1 × reads over every request (children and summaries too), in input-token units */
  billedInput: number;
  autoCompactions: number;
}

const isSummarizer = (v: RequestView): boolean => v.system.includes('context checkpoints') || (lastUserText(v)?.includes(IN_PLACE_MARKER) ?? false);

function turnPrompt(t: number, delegate: boolean): string {
  const reads = Array.from({ length: FILES_PER_TURN }, (_, f) => `@read mod${t}_${f}.ts`).join('\n');
  if (!delegate) return `Explore modules ${t}.\n${reads}\n@report ${REPORT}`;
  return `Explore modules ${t}.\n@task ${JSON.stringify({ description: `explore modules ${t}`, prompt: `Read these modules and describe them.\n${reads}\n@report ${REPORT}` })}\n@report ${REPORT}`;
}

async function runExploration(label: string, delegate: boolean): Promise<ExplorationRun> {
  const server = await startFakeServer({ contextWindow: WINDOW });
  const dir = mkdtempSync(join(tmpdir(), 'agent-bench-sub-'));
  try {
    for (let t = 0; t < TURNS; t++) {
      for (let f = 0; f < FILES_PER_TURN; f++) {
        const body = Array.from(
          { length: 120 },
          (_, l) => `// module ${t}.${f}, line ${l}\nexport function step${l}(input: number): number { return input * ${l + t} + ${l * f}; }`,
        ).join('\n');
        writeFileSync(join(dir, `mod${t}_${f}.ts`), `${body}\n`);
      }
    }
    writeFileSync(join(dir, '.agentrc'), JSON.stringify({ models: { [MODEL]: { contextWindow: WINDOW, maxOutputTokens: 8_000, provider: 'anthropic' } } }));
    const config = loadConfig({ cwd: dir, home: dir, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(dir, 'agent.db') }, flags: { model: MODEL } });
    const store = openStore(config.dbPath);
    const provider = createProvider({ provider: 'anthropic', apiKey: 'k', baseURL: server.anthropicBaseURL, cache: config.cache });
    const agents = new AgentCatalog([]);
    const session = Session.open({
      config,
      store,
      provider,
      tools: (lent) => createTools({ bash: config.bash }, lent),
      capabilities: [subagentCapability(agents)],
      counter: await createTokenCounter(),
    });
    server.respondWith((req) => (isSummarizer(req.view) ? { text: SUMMARY } : undefined));
    let autoCompactions = 0;
    session.on((e) => {
      if (e.type === 'compaction_end' && e.record.status === 'applied' && e.record.trigger !== 'micro') autoCompactions++;
    });
    for (let t = 0; t < TURNS; t++) {
      const r = await session.prompt(turnPrompt(t, delegate));
      if (r.reason !== 'end_turn') throw new Error(`${label}: turn ${t} ended with ${r.reason}`);
    }
    session.close();
    store.close();
    const reqs = server.requests.filter((q) => q.view && q.usage);
    // the parent's requests carry the Task tool (with delegation) or are the only ones (without)
    const parent = reqs.filter((q) => !isSummarizer(q.view!) && (!delegate || q.view!.toolNames.includes('Task')));
    return {
      label,
      requests: reqs.length,
      parentRequests: parent.length,
      largestParent: Math.max(...parent.map((q) => q.view!.promptTokens)),
      billedInput: Math.round(reqs.reduce((n, q) => n + anthropicBilled(q), 0)),
      autoCompactions,
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runSubagentBench(): Promise<{ direct: ExplorationRun; delegated: ExplorationRun }> {
  const direct = await runExploration('the parent reads the files', false);
  const delegated = await runExploration('a Task child reads them', true);
  return { direct, delegated };
}

export function formatSubagentBench(r: { direct: ExplorationRun; delegated: ExplorationRun }): string {
  const n = (v: number): string => v.toLocaleString('en-US');
  const row = (x: ExplorationRun): string =>
    `  ${x.label.padEnd(28)} largest parent request ${n(x.largestParent).padStart(8)} tokens · billed input ${n(x.billedInput).padStart(10)} · ${x.requests} requests (${x.parentRequests} the parent's), ${x.autoCompactions} compactions`;
  return [
    `${TURNS}-turn exploration, ${FILES_PER_TURN} large files a turn, ${n(WINDOW)}-token window, Anthropic billing (input + 1.25× writes + 0.1× reads):`,
    row(r.direct),
    row(r.delegated),
    `  largest parent request, delegated ÷ direct: ${(r.delegated.largestParent / r.direct.largestParent).toFixed(3)} (goal ≤ 0.3)`,
    `  billed input, delegated ÷ direct: ${(r.delegated.billedInput / r.direct.billedInput).toFixed(3)} (goal ≤ 1)`,
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runSubagentBench().then(
    (r) => console.log(formatSubagentBench(r)),
    (e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}
